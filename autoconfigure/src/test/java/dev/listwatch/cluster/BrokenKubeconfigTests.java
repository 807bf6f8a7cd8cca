package dev.listwatch.cluster;

import java.nio.file.Path;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Every broken kubeconfig fails with a {@link KubeconfigException} that names the file,
 * the field and the fix.
 */
class BrokenKubeconfigTests {

	@TempDir
	Path dir;

	static Stream<Arguments> broken() {
		return Stream.of(Arguments.of("not-yaml.yaml", "", "is not valid YAML (line", "fix the YAML syntax"),
				Arguments.of("not-a-kubeconfig.yaml", "", "is not a kubeconfig", "apiVersion: v1, kind: Config"),
				Arguments.of("no-contexts.yaml", "contexts", "defines no context", "kubectl config set-context"),
				Arguments.of("unknown-current-context.yaml", "current-context",
						"names context 'staging' which is not defined", "[dev, prod]"),
				Arguments.of("missing-cluster.yaml", "contexts[dev].context.cluster",
						"names cluster 'kind-prod' which is not defined", "[kind-dev]"),
				Arguments.of("missing-user.yaml", "contexts[dev].context.user", "names user 'bob' which is not defined",
						"[alice]"),
				Arguments.of("missing-server.yaml", "clusters[c].cluster.server", "is missing",
						"https://127.0.0.1:6443"),
				Arguments.of("bad-base64.yaml", "users[admin].user.client-key-data", "is not valid base64",
						"base64 -w0 client.key"),
				Arguments.of("bad-ca.yaml", "clusters[c].cluster.certificate-authority-data",
						"does not hold a PEM certificate", "base64 -w0 ca.crt"),
				Arguments.of("key-mismatch.yaml", "users[admin].user.client-key-data",
						"does not match the certificate in users[admin].user.client-certificate-data",
						"the key that was issued with the certificate"),
				Arguments.of("unreadable-cert.yaml", "users[admin].user.client-certificate",
						"certs/missing.crt which cannot be read", "relative paths resolve against the kubeconfig"),
				Arguments.of("auth-provider.yaml", "users[gke].user.auth-provider",
						"auth-provider plugins were removed in kubectl 1.26", "exec credential plugin"),
				Arguments.of("socks4-proxy.yaml", "clusters[c].cluster.proxy-url",
						"has the scheme 'socks4', which is not a proxy scheme client-go accepts",
						"write an http://, https:// or socks5:// proxy URL"),
				Arguments.of("exec-v1alpha1.yaml", "users[old].user.exec.apiVersion",
						"client.authentication.k8s.io/v1alpha1', which is not supported",
						"client.authentication.k8s.io/v1"),
				Arguments.of("exec-not-found.yaml", "users[gke].user.exec.command",
						"'no-such-auth-plugin' which is not an executable file on the PATH",
						"gcloud components install no-such-auth-plugin"),
				Arguments.of("insecure-with-ca.yaml", "clusters[c].cluster.insecure-skip-tls-verify",
						"is true while clusters[c].cluster.certificate-authority-data is set",
						"remove insecure-skip-tls-verify to verify the API server against the CA"),
				Arguments.of("socks5h-proxy.yaml", "clusters[c].cluster.proxy-url",
						"has the scheme 'socks5h', which is not a proxy scheme client-go accepts",
						"write socks5:// instead"),
				Arguments.of("exec-interactive-always.yaml", "users[sso].user.exec.interactiveMode",
						"is Always: the plugin needs a terminal", "interactiveMode: Never"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("broken")
	void failsNamingFileFieldAndFix(String name, String field, String problem, String fix) {
		Path file = Corpus.write("broken/" + name, this.dir);
		KubeconfigException ex = fail(new TestSettings(this.dir).kubeconfig(file));
		assertThat(ex.file()).isEqualTo(file.toString());
		assertThat(ex.field()).isEqualTo(field);
		assertThat(ex.fix()).contains(fix);
		assertThat(ex.getMessage()).startsWith("Kubeconfig " + file)
			.contains(field)
			.contains(problem)
			.endsWith("Fix: " + ex.fix());
	}

	private static KubeconfigException fail(TestSettings settings) {
		KubeconfigException ex = catchThrowableOfType(KubeconfigException.class, settings::load);
		assertThat(ex).as("expected a KubeconfigException").isNotNull();
		return ex;
	}

	@Test
	void missingExplicitFile() {
		Path file = this.dir.resolve("nope/config");
		KubeconfigException ex = fail(new TestSettings(this.dir).kubeconfig(file));
		assertThat(ex.file()).isEqualTo(file.toString());
		assertThat(ex.getMessage()).contains("does not exist");
		assertThat(ex.fix()).contains("listwatch.kubeconfig");
	}

	@Test
	void kubeconfigVariableNamingOnlyMissingFiles() {
		String variable = this.dir.resolve("a") + ":" + this.dir.resolve("b");
		KubeconfigException ex = fail(new TestSettings(this.dir).env("KUBECONFIG", variable));
		assertThat(ex.file()).isEqualTo(variable);
		assertThat(ex.getMessage()).contains("$KUBECONFIG").contains("names no file that exists");
	}

	@Test
	void nothingToLoad() {
		KubeconfigException ex = fail(new TestSettings(this.dir));
		assertThat(ex.file()).isEqualTo(this.dir.resolve("home/.kube/config").toString());
		assertThat(ex.getMessage()).contains("KUBERNETES_SERVICE_HOST is not set");
		assertThat(ex.fix()).contains("KUBECONFIG");
	}

	@Test
	void unknownContextFromSettingsListsKnownOnes() {
		TestSettings settings = new TestSettings(this.dir).kubeconfig(Corpus.write("kind.yaml", this.dir));
		settings.context = "kind-prod";
		KubeconfigException ex = fail(settings);
		assertThat(ex.field()).isEqualTo("listwatch.context");
		assertThat(ex.getMessage()).contains("'kind-prod'");
		assertThat(ex.fix()).contains("[kind-dev]");
	}

	@Test
	void inClusterWithoutToken() {
		KubeconfigException ex = fail(new TestSettings(this.dir).env("KUBERNETES_SERVICE_HOST", "10.96.0.1")
			.env("KUBERNETES_SERVICE_PORT", "443"));
		assertThat(ex.getMessage()).contains(this.dir.resolve("serviceaccount/token").toString())
			.contains("cannot be read");
	}

	@Test
	void unreadableTokenFile() {
		Path file = Corpus.write(this.dir.resolve("config"), """
				apiVersion: v1
				kind: Config
				current-context: c
				clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
				users: [{name: u, user: {tokenFile: secret/token}}]
				contexts: [{name: c, context: {cluster: c, user: u}}]
				""");
		KubeconfigException ex = fail(new TestSettings(this.dir).kubeconfig(file));
		assertThat(ex.field()).isEqualTo("users[u].user.tokenFile");
		assertThat(ex.getMessage()).contains(this.dir.resolve("secret/token").toString());
	}

	@Test
	void unreadableKeyPem() {
		Path file = Corpus.write(this.dir.resolve("config"), """
				apiVersion: v1
				kind: Config
				current-context: c
				clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
				users: [{name: u, user: {client-certificate-data: %s, client-key-data: %s}}]
				contexts: [{name: c, context: {cluster: c, user: u}}]
				""".formatted(Corpus.client().certificateBase64(),
				TestPki.base64("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")));
		KubeconfigException ex = fail(new TestSettings(this.dir).kubeconfig(file));
		assertThat(ex.field()).isEqualTo("users[u].user.client-key-data");
		assertThat(ex.getMessage()).contains("does not hold a PEM private key");
	}

	@Test
	void certificateWithoutKey() {
		Path file = Corpus.write(this.dir.resolve("config"), """
				apiVersion: v1
				kind: Config
				current-context: c
				clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
				users: [{name: u, user: {client-certificate-data: %s}}]
				contexts: [{name: c, context: {cluster: c, user: u}}]
				""".formatted(Corpus.client().certificateBase64()));
		KubeconfigException ex = fail(new TestSettings(this.dir).kubeconfig(file));
		assertThat(ex.field()).isEqualTo("users[u].user.client-key-data");
		assertThat(ex.getMessage()).contains("is missing but users[u].user.client-certificate-data is set");
	}

	@Test
	void badServerUrl() {
		Path file = Corpus.write(this.dir.resolve("config"), """
				apiVersion: v1
				kind: Config
				current-context: c
				clusters: [{name: c, cluster: {server: "ftp://127.0.0.1:6443"}}]
				contexts: [{name: c, context: {cluster: c}}]
				""");
		KubeconfigException ex = fail(new TestSettings(this.dir).kubeconfig(file));
		assertThat(ex.field()).isEqualTo("clusters[c].cluster.server");
		assertThat(ex.getMessage()).contains("is not an http(s) URL");
	}

}
