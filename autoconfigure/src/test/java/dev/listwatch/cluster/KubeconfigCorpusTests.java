package dev.listwatch.cluster;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

import dev.listwatch.testsupport.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kubeconfig files shaped like those real tools write parse to the expected server,
 * namespace and credentials.
 */
class KubeconfigCorpusTests {

	@TempDir
	Path dir;

	private TestSettings settings(Path kubeconfig) {
		return new TestSettings(this.dir).kubeconfig(kubeconfig);
	}

	@Test
	void kind() {
		Cluster cluster = settings(Corpus.write("kind.yaml", this.dir)).load();
		assertThat(cluster.server()).isEqualTo(URI.create("https://127.0.0.1:41235"));
		assertThat(cluster.namespace()).isEqualTo("default");
		assertThat(cluster.description()).isEqualTo("context kind-dev in " + this.dir.resolve("kind.yaml"));
		assertThat(cluster.credentials()).isSameAs(StaticCredentials.NONE);
		assertThat(cluster.credentials().authorization()).isNull();
		assertThat(cluster.ssl()).as("the kubeconfig's CA and client certificate").isNotNull();
		assertThat(cluster.ssl().getManagers().getKeyManagers()).singleElement()
			.isInstanceOf(Tls.ClientKeyManager.class);
		assertThat(cluster.insecureSkipTlsVerify()).isFalse();
		assertThat(cluster.proxy()).isNull();
	}

	@Test
	void minikubeWithRelativeFilePaths() {
		Corpus.write(this.dir.resolve(".minikube/ca.crt"), Corpus.ca().certificatePem());
		Corpus.write(this.dir.resolve(".minikube/profiles/minikube/client.crt"), Corpus.client().certificatePem());
		Corpus.write(this.dir.resolve(".minikube/profiles/minikube/client.key"), Corpus.client().pkcs8Pem());
		Cluster cluster = settings(Corpus.write("minikube.yaml", this.dir)).load();
		assertThat(cluster.server()).isEqualTo(URI.create("https://192.168.49.2:8443"));
		assertThat(cluster.namespace()).isEqualTo("default");
		assertThat(cluster.credentials().authorization()).isNull();
	}

	@Test
	void k3s() {
		Cluster cluster = settings(Corpus.write("k3s.yaml", this.dir)).load();
		assertThat(cluster.server()).isEqualTo(URI.create("https://127.0.0.1:6443"));
		assertThat(cluster.description()).startsWith("context default in ");
	}

	@Test
	void eksAwsGetToken() throws IOException {
		Path aws = Corpus.credentialScript(this.dir.resolve("bin/aws"), ExecCredentials.V1BETA1, "k8s-aws-v1.eks");
		TestSettings settings = settings(Corpus.write("eks.yaml", this.dir));
		settings.env("PATH", this.dir.resolve("bin") + ":/usr/bin:/bin");
		Cluster cluster = settings.load();
		assertThat(cluster.server())
			.isEqualTo(URI.create("https://ABCDEF0123456789ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com"));
		assertThat(cluster.namespace()).isEqualTo("payments");
		assertThat(cluster.credentials()).isInstanceOf(ExecCredentials.class);
		assertThat(cluster.credentials().authorization()).isEqualTo("Bearer k8s-aws-v1.eks");
		assertThat(Files.readString(Path.of(aws + ".args")).strip())
			.isEqualTo("--region us-west-2 eks get-token --cluster-name prod --output json");
		assertThat(Files.readString(Path.of(aws + ".env"))).contains("AWS_PROFILE=prod");
		assertThat(Files.readString(Path.of(aws + ".info"))).contains("\"interactive\":false")
			.doesNotContain("\"cluster\"");
	}

	@Test
	void eksIamAuthenticator() {
		Corpus.credentialScript(this.dir.resolve("bin/aws-iam-authenticator"), ExecCredentials.V1BETA1, "k8s-aws-v1.x");
		TestSettings settings = settings(Corpus.write("eks-iam-authenticator.yaml", this.dir));
		settings.env("PATH", this.dir.resolve("bin") + ":/usr/bin:/bin");
		Cluster cluster = settings.load();
		assertThat(cluster.credentials().authorization()).isEqualTo("Bearer k8s-aws-v1.x");
		assertThat(cluster.namespace()).isEqualTo("default");
	}

	@Test
	void gkeWithProvideClusterInfo() throws IOException {
		Path plugin = Corpus.credentialScript(this.dir.resolve("bin/gke-gcloud-auth-plugin"), ExecCredentials.V1BETA1,
				"ya29.gke");
		TestSettings settings = settings(Corpus.write("gke.yaml", this.dir));
		settings.env("PATH", this.dir.resolve("bin") + ":/usr/bin:/bin");
		Cluster cluster = settings.load();
		assertThat(cluster.server()).isEqualTo(URI.create("https://34.76.10.20"));
		assertThat(cluster.credentials().authorization()).isEqualTo("Bearer ya29.gke");
		String info = Files.readString(Path.of(plugin + ".info"));
		assertThat(info).contains("\"apiVersion\":\"client.authentication.k8s.io/v1beta1\"")
			.contains("\"server\":\"https://34.76.10.20\"")
			.contains("\"certificate-authority-data\":\"" + Corpus.ca().certificateBase64() + "\"");
	}

	@Test
	void gkePluginMissingShowsInstallHint() {
		TestSettings settings = settings(Corpus.write("gke.yaml", this.dir));
		settings.env("PATH", this.dir.resolve("nothing-here").toString());
		org.assertj.core.api.Assertions.assertThatExceptionOfType(KubeconfigException.class)
			.isThrownBy(settings::load)
			.satisfies((ex) -> {
				assertThat(ex.field()).isEqualTo("users[gke_my-project_europe-west1_autopilot-1].user.exec.command");
				assertThat(ex.fix()).contains("Install gke-gcloud-auth-plugin");
			});
	}

	@Test
	void openShiftTokenInsecure() {
		Cluster cluster = settings(Corpus.write("openshift.yaml", this.dir)).load();
		assertThat(cluster.server()).isEqualTo(URI.create("https://api.crc.testing:6443"));
		assertThat(cluster.namespace()).isEqualTo("myproject");
		assertThat(cluster.credentials().authorization()).isEqualTo("Bearer " + Corpus.OPENSHIFT_TOKEN);
		assertThat(cluster.credentials().refresh()).isFalse();
	}

	@Test
	void rancherServerWithPathPrefix() {
		Cluster cluster = settings(Corpus.write("rancher.yaml", this.dir)).load();
		assertThat(cluster.server()).isEqualTo(URI.create("https://rancher.example.com/k8s/clusters/c-m-abc12"));
		assertThat(cluster.credentials().authorization())
			.isEqualTo("Bearer kubeconfig-user-abc12:" + Corpus.RANCHER_TOKEN);
	}

	@Test
	void basicAuthOverHttp() {
		Cluster cluster = settings(Corpus.write("basic-auth.yaml", this.dir)).load();
		assertThat(cluster.server()).isEqualTo(URI.create("http://10.0.0.1:8080"));
		assertThat(cluster.namespace()).isEqualTo("ops");
		assertThat(cluster.credentials().authorization()).isEqualTo("Basic " + Base64.getEncoder()
			.encodeToString(("admin:" + Corpus.BASIC_PASSWORD).getBytes(StandardCharsets.UTF_8)));
	}

	@Test
	void mergedKubeconfigFollowsKubectlRules() {
		Path base = Corpus.write("merged/base.yaml", this.dir);
		Path overrides = Corpus.write("merged/team/overrides.yaml", this.dir);
		Corpus.write(this.dir.resolve("merged/team/tokens/prod.token"), Corpus.PROD_TOKEN + "\n");
		TestSettings settings = new TestSettings(this.dir);
		settings.env("KUBECONFIG", this.dir.resolve("missing.yaml") + ":" + base + ":" + overrides);
		// first file that sets current-context wins; first definition of a name wins
		Cluster dev = settings.load();
		assertThat(dev.server()).isEqualTo(URI.create("https://dev.example.com:6443"));
		assertThat(dev.namespace()).isEqualTo("dev-team");
		assertThat(dev.credentials().authorization()).isEqualTo("Bearer " + Corpus.DEV_TOKEN);
		assertThat(dev.description()).isEqualTo("context dev in " + base);
		// a context from the second file, its relative tokenFile resolved against that
		// file
		settings.context = "prod";
		Cluster prod = settings.load();
		assertThat(prod.server()).isEqualTo(URI.create("https://prod.example.com:6443"));
		assertThat(prod.namespace()).isEqualTo("prod-team");
		assertThat(prod.credentials()).isInstanceOf(TokenFileCredentials.class);
		assertThat(prod.credentials().authorization()).isEqualTo("Bearer " + Corpus.PROD_TOKEN);
		assertThat(prod.description()).isEqualTo("context prod in " + overrides);
	}

	@Test
	void homeKubeconfigIsTheFallback() {
		Corpus.write("openshift.yaml", this.dir.resolve("home"));
		try {
			Files.move(this.dir.resolve("home/openshift.yaml"),
					Files.createDirectories(this.dir.resolve("home/.kube")).resolve("config"));
		}
		catch (IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
		Cluster cluster = new TestSettings(this.dir).load();
		assertThat(cluster.server()).isEqualTo(URI.create("https://api.crc.testing:6443"));
		assertThat(cluster.description()).endsWith(this.dir.resolve("home/.kube/config").toString());
	}

	@Test
	void explicitKubeconfigWinsOverKubeconfigVariable() {
		Path kind = Corpus.write("kind.yaml", this.dir);
		Path openshift = Corpus.write("openshift.yaml", this.dir);
		TestSettings settings = settings(kind).env("KUBECONFIG", openshift.toString());
		assertThat(settings.load().server()).isEqualTo(URI.create("https://127.0.0.1:41235"));
	}

	@Test
	void settingsOverrideTheFile() {
		TestSettings settings = settings(Corpus.write("openshift.yaml", this.dir));
		settings.server = "https://override.example.com:443/";
		settings.token = "settings-token";
		settings.namespace = "override-ns";
		Cluster cluster = settings.load();
		assertThat(cluster.server()).isEqualTo(URI.create("https://override.example.com:443"));
		assertThat(cluster.namespace()).isEqualTo("override-ns");
		assertThat(cluster.credentials().authorization()).isEqualTo("Bearer settings-token");
	}

	@Test
	void settingsAloneWithoutKubeconfig() {
		TestSettings settings = new TestSettings(this.dir);
		settings.server = "https://10.1.2.3:6443";
		settings.token = "settings-token";
		settings.certificateAuthorityData = Corpus.ca().certificatePem();
		Cluster cluster = settings.load();
		assertThat(cluster.server()).isEqualTo(URI.create("https://10.1.2.3:6443"));
		assertThat(cluster.namespace()).isEqualTo("default");
		assertThat(cluster.description()).isEqualTo("server https://10.1.2.3:6443 from listwatch settings");
		assertThat(cluster.credentials().authorization()).isEqualTo("Bearer settings-token");
	}

	@Test
	void inCluster() throws IOException {
		Path serviceAccount = this.dir.resolve("serviceaccount");
		Corpus.write(serviceAccount.resolve("token"), "in-cluster-token-1\n");
		Corpus.write(serviceAccount.resolve("ca.crt"), Corpus.ca().certificatePem());
		Corpus.write(serviceAccount.resolve("namespace"), "team-a");
		MutableClock clock = new MutableClock(java.time.Instant.parse("2025-01-01T00:00:00Z"));
		TestSettings settings = new TestSettings(this.dir).env("KUBERNETES_SERVICE_HOST", "10.96.0.1")
			.env("KUBERNETES_SERVICE_PORT", "443");
		settings.clock = clock;
		Cluster cluster = settings.load();
		assertThat(cluster.server()).isEqualTo(URI.create("https://10.96.0.1:443"));
		assertThat(cluster.namespace()).isEqualTo("team-a");
		assertThat(cluster.description()).isEqualTo("in-cluster");
		assertThat(cluster.credentials().authorization()).isEqualTo("Bearer in-cluster-token-1");
		// the projected token rotates: re-read after a minute, not before
		Corpus.write(serviceAccount.resolve("token"), "in-cluster-token-2\n");
		clock.advance(java.time.Duration.ofSeconds(59));
		assertThat(cluster.credentials().authorization()).isEqualTo("Bearer in-cluster-token-1");
		clock.advance(java.time.Duration.ofSeconds(1));
		assertThat(cluster.credentials().authorization()).isEqualTo("Bearer in-cluster-token-2");
	}

	@Test
	void inClusterIpv6() {
		Path serviceAccount = this.dir.resolve("serviceaccount");
		Corpus.write(serviceAccount.resolve("token"), "t");
		Cluster cluster = new TestSettings(this.dir).env("KUBERNETES_SERVICE_HOST", "fd00::1")
			.env("KUBERNETES_SERVICE_PORT", "6443")
			.load();
		assertThat(cluster.server()).isEqualTo(URI.create("https://[fd00::1]:6443"));
		assertThat(cluster.namespace()).isEqualTo("default");
	}

}
