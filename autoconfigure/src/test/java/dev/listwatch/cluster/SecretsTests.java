package dev.listwatch.cluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Secrets planted in kubeconfigs, token files and exec plugin output never reach logs,
 * exception messages or {@code toString()}.
 */
@ExtendWith(OutputCaptureExtension.class)
class SecretsTests {

	private static final String TOKEN = "tOkEnSeCrEt-1f2e3d";

	private static final String PASSWORD = "pAsSwOrDsEcReT-9a8b";

	private static final String FILE_TOKEN = "fIlEtOkEnSeCrEt-5c6d";

	private static final String EXEC_TOKEN = "eXeCtOkEnSeCrEt-7e8f";

	private static final String EXEC_STDERR = "eXeCsTdErRsEcReT-0a0b";

	private static final String EXEC_ENV = "eXeCeNvSeCrEt-4d4d";

	private static final String PROXY_PASSWORD = "pRoXyPaSsWoRd-3c3c";

	@TempDir
	Path dir;

	private final List<String> seen = new ArrayList<>();

	private List<String> secrets() {
		List<String> secrets = new ArrayList<>(List.of(TOKEN, PASSWORD, FILE_TOKEN, EXEC_TOKEN, EXEC_STDERR, EXEC_ENV,
				PROXY_PASSWORD, Corpus.OPENSHIFT_TOKEN, Corpus.RANCHER_TOKEN, Corpus.BASIC_PASSWORD, Corpus.DEV_TOKEN,
				Corpus.TOKEN));
		// key material: the base64 of the client key, and a line of its PEM body
		String keyBase64 = TestPki.base64(Corpus.client().traditionalPem());
		secrets.add(keyBase64.substring(0, 40));
		secrets.add(Corpus.client().traditionalPem().lines().skip(1).findFirst().orElseThrow());
		return secrets;
	}

	private void record(Supplier<Object> action) {
		try {
			Object result = action.get();
			this.seen.add(String.valueOf(result));
			if (result instanceof Cluster cluster) {
				this.seen.add(cluster.credentials().toString());
				this.seen.add(cluster.description());
			}
		}
		catch (RuntimeException ex) {
			for (Throwable t = ex; t != null; t = t.getCause()) {
				this.seen.add(t.toString());
				if (t instanceof KubeconfigException kex) {
					this.seen.add(kex.fix());
					this.seen.add(kex.field());
				}
			}
		}
	}

	private Path kubeconfig(String name, String user, String cluster) {
		return Corpus.write(this.dir.resolve(name), """
				apiVersion: v1
				kind: Config
				current-context: c
				clusters:
				- name: c
				  cluster:
				    server: https://127.0.0.1:6443
				%s
				users:
				- name: u
				  user:
				%s
				contexts:
				- name: c
				  context: {cluster: c, user: u}
				""".formatted(cluster.lines().map((l) -> "    " + l).reduce("", (a, b) -> a + b + "\n"),
				user.lines().map((l) -> "    " + l).reduce("", (a, b) -> a + b + "\n")));
	}

	private Cluster load(Path kubeconfig) {
		TestSettings settings = new TestSettings(this.dir).kubeconfig(kubeconfig);
		settings.env("MY_SECRET_ENV", EXEC_ENV);
		return settings.load();
	}

	@Test
	void noSecretInLogsExceptionsOrToString(CapturedOutput output) {
		// good loads
		record(() -> load(kubeconfig("token.yaml", "token: " + TOKEN, "")));
		record(() -> load(kubeconfig("basic.yaml", "username: admin\npassword: " + PASSWORD, "")));
		Path tokenFile = Corpus.write(this.dir.resolve("token"), FILE_TOKEN);
		record(() -> load(kubeconfig("tokenfile.yaml", "tokenFile: " + tokenFile, "")));
		record(() -> load(
				kubeconfig("token-and-missing-file.yaml", "token: " + TOKEN + "\ntokenFile: missing-token", "")));
		record(() -> load(kubeconfig("cert.yaml", "client-certificate-data: " + Corpus.client().certificateBase64()
				+ "\nclient-key-data: " + TestPki.base64(Corpus.client().traditionalPem()), "")));
		record(() -> load(kubeconfig("proxy.yaml", "token: " + TOKEN,
				"proxy-url: http://user:" + PROXY_PASSWORD + "@proxy.example.com:3128")));
		record(() -> load(kubeconfig("insecure.yaml", "token: " + TOKEN, "insecure-skip-tls-verify: true")));
		for (String name : List.of("openshift.yaml", "rancher.yaml", "basic-auth.yaml", "kind.yaml")) {
			record(() -> load(Corpus.write(name, this.dir)));
		}
		// exec plugins, good and bad
		Corpus.script(this.dir.resolve("good-plugin"),
				"""
						echo "debug: $MY_SECRET_ENV" >&2
						echo '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"%s"}}'"""
					.formatted(EXEC_TOKEN));
		Corpus.script(this.dir.resolve("failing-plugin"),
				"echo '%s' >&2\necho '%s'\nexit 1".formatted(EXEC_STDERR, EXEC_TOKEN));
		Corpus.script(this.dir.resolve("junk-plugin"), "echo 'token: %s'".formatted(EXEC_TOKEN));
		Corpus.script(this.dir.resolve("wrong-version-plugin"),
				"echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"%s\",\"status\":{\"token\":\"%s\"}}'"
					.formatted(EXEC_TOKEN, EXEC_TOKEN));
		for (String plugin : List.of("good-plugin", "failing-plugin", "junk-plugin", "wrong-version-plugin")) {
			record(() -> {
				Cluster cluster = load(kubeconfig(plugin + ".yaml", """
						exec:
						  apiVersion: client.authentication.k8s.io/v1
						  command: ./%s
						  args: ["--token", "%s"]
						  env: [{name: PLUGIN_SECRET, value: "%s"}]""".formatted(plugin, TOKEN, PASSWORD), ""));
				this.seen.add(cluster.toString());
				this.seen.add(cluster.credentials().toString());
				String authorization = cluster.credentials().authorization();
				assertThat(authorization).isEqualTo("Bearer " + EXEC_TOKEN);
				return cluster;
			});
		}
		// broken loads holding secrets next to the error
		record(() -> load(kubeconfig("yaml-error.yaml", "token: " + TOKEN + "\n  - oops: [", "")));
		record(() -> load(kubeconfig("bad-key.yaml", "client-certificate-data: " + Corpus.client().certificateBase64()
				+ "\nclient-key-data: " + TOKEN + "!!", "")));
		record(() -> load(kubeconfig("bad-key-pem.yaml", "client-certificate-data: "
				+ Corpus.client().certificateBase64() + "\nclient-key-data: " + TestPki.base64(TOKEN), "")));
		record(() -> load(kubeconfig("auth-provider.yaml",
				"auth-provider: {name: oidc, config: {id-token: " + TOKEN + ", client-secret: " + PASSWORD + "}}",
				"")));
		record(() -> load(kubeconfig("socks.yaml", "token: " + TOKEN,
				"proxy-url: socks5://u:" + PROXY_PASSWORD + "@localhost:1080")));
		record(() -> load(kubeconfig("https-proxy.yaml", "token: " + TOKEN,
				"proxy-url: https://u:" + PROXY_PASSWORD + "@proxy.example.com:3129")));
		record(() -> load(kubeconfig("socks5h.yaml", "token: " + TOKEN,
				"proxy-url: socks5h://u:" + PROXY_PASSWORD + "@proxy.example.com:1080")));
		record(() -> load(kubeconfig("socks4.yaml", "token: " + TOKEN,
				"proxy-url: socks4://u:" + PROXY_PASSWORD + "@proxy.example.com:1080")));
		record(() -> load(kubeconfig("missing-ctx-cluster.yaml", "token: " + TOKEN, "").resolveSibling("none")));
		for (String name : List.of("not-yaml.yaml", "bad-base64.yaml", "key-mismatch.yaml", "missing-user.yaml",
				"auth-provider.yaml")) {
			record(() -> load(Corpus.write("broken/" + name, this.dir)));
		}
		record(() -> new TestSettings(this.dir).build());

		assertThat(this.seen).hasSizeGreaterThan(30);
		String everything = String.join("\n", this.seen) + "\n" + output.getAll();
		for (String secret : secrets()) {
			assertThat(everything).as("output must not contain a secret").doesNotContain(secret);
		}
		// sanity: the captures did see the relevant messages
		assertThat(everything).contains("exited with code 1")
			.contains("not an ExecCredential JSON")
			.contains("is not valid YAML")
			.contains("proxy=https://proxy.example.com:3129")
			.contains("has the scheme 'socks5h'")
			.contains("has the scheme 'socks4'")
			.contains("Using the token of users[u].user.token in ")
			.contains("insecure-skip-tls-verify is set");
	}

	@Test
	void settingsToStringHidesToken() {
		TestSettings settings = new TestSettings(this.dir);
		settings.token = TOKEN;
		assertThat(settings.build().toString()).doesNotContain(TOKEN).contains("<redacted>");
	}

}
