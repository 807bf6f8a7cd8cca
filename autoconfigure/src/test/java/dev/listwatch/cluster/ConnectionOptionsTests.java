package dev.listwatch.cluster;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.pem.PemContent;
import org.springframework.boot.ssl.pem.PemSslStore;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The options' TLS overrides (CA, SSL bundle, insecure-skip-tls-verify) by client-go's
 * rules, the proxy parser and the {@link Cluster} value's checks.
 */
class ConnectionOptionsTests {

	@TempDir
	Path dir;

	/** A bundle with the client's certificate and key, and the CA. */
	private static SslBundle clientBundle() {
		return SslBundle.of(new PemSslStoreBundle(
				PemSslStore.of(Tls.certificates(Corpus.client().certificatePem()),
						PemContent.of(Corpus.client().pkcs8Pem()).getPrivateKey()),
				PemSslStore.of(Tls.certificates(Corpus.ca().certificatePem()), null)));
	}

	/** A bundle with the CA only. */
	private static SslBundle bundle() {
		return SslBundle
			.of(new PemSslStoreBundle(null, PemSslStore.of(Tls.certificates(Corpus.ca().certificatePem()), null)));
	}

	private TestSettings kind() {
		return new TestSettings(this.dir).kubeconfig(Corpus.write("kind.yaml", this.dir));
	}

	@Test
	void insecureAndCaBothFromSettingsAreRefused() {
		TestSettings settings = new TestSettings(this.dir);
		settings.server = "https://127.0.0.1:6443";
		settings.insecure = true;
		settings.certificateAuthorityData = Corpus.ca().certificatePem();
		KubeconfigException ex = catchThrowableOfType(KubeconfigException.class, settings::load);
		assertThat(ex).isNotNull();
		assertThat(ex.file()).isEqualTo(ClusterLoader.SETTINGS);
		assertThat(ex.field()).isEqualTo("listwatch.connection.insecure-skip-tls-verify");
		assertThat(ex.getMessage()).contains("is true while listwatch.connection.certificate-authority-data is set");
		assertThat(ex.fix()).contains("unset listwatch.connection.insecure-skip-tls-verify");
	}

	@Test
	void anSslBundleReplacesTheKubeconfigsCaAndClientCertificate() {
		SslBundle bundle = clientBundle();
		TestSettings settings = kind();
		settings.sslBundleName = "apiserver";
		settings.sslBundle = bundle;
		Cluster cluster = settings.load();
		assertThat(cluster.ssl()).isSameAs(bundle);
		assertThat(cluster.description()).endsWith(" with SSL bundle 'apiserver'");
		assertThat(kind().load().ssl()).as("without the option: the kubeconfig's material").isNotSameAs(bundle);
	}

	@Test
	void anSslBundleWithoutAKeyStoreIsRefusedWhenTheKubeconfigUsesAClientCertificate() {
		TestSettings settings = kind();
		settings.sslBundleName = "apiserver";
		settings.sslBundle = bundle();
		KubeconfigException ex = catchThrowableOfType(KubeconfigException.class, settings::load);
		assertThat(ex).isNotNull();
		assertThat(ex.field()).isEqualTo("listwatch.connection.ssl-bundle");
		assertThat(ex.getMessage()).contains("has no key store").contains("client certificate");
		assertThat(ex.fix()).contains("spring.ssl.bundle.pem.apiserver.keystore.certificate");
	}

	@Test
	void aClusterServerWithUserInformationIsRefusedWithoutShowingIt() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Cluster(URI.create("https://admin:s3cret@10.0.0.1:6443"), null, false, null,
					Credentials.none(), null, Duration.ofSeconds(5), "default", "test"))
			.withMessageContaining("user information")
			.withMessageNotContaining("s3cret");
	}

	@Test
	void anSslBundleClearsTheKubeconfigsInsecureSkipTlsVerify() {
		Path file = Corpus.write(this.dir.resolve("insecure.yaml"), """
				apiVersion: v1
				kind: Config
				clusters: [{name: c, cluster: {insecure-skip-tls-verify: true, server: "https://127.0.0.1:6443"}}]
				contexts: [{name: x, context: {cluster: c}}]
				current-context: x
				""");
		TestSettings settings = new TestSettings(this.dir).kubeconfig(file);
		assertThat(settings.load().insecureSkipTlsVerify()).isTrue();
		settings.sslBundleName = "apiserver";
		settings.sslBundle = bundle();
		assertThat(settings.load().insecureSkipTlsVerify()).isFalse();
	}

	@Test
	void anSslBundleWithInsecureSkipTlsVerifyFromSettingsIsRefused() {
		TestSettings settings = kind();
		settings.sslBundleName = "apiserver";
		settings.sslBundle = clientBundle();
		settings.insecure = true;
		KubeconfigException ex = catchThrowableOfType(KubeconfigException.class, settings::load);
		assertThat(ex.field()).isEqualTo("listwatch.connection.insecure-skip-tls-verify");
		assertThat(ex.getMessage()).contains("is true while listwatch.connection.ssl-bundle is set");
		assertThat(ex.fix()).contains("unset listwatch.connection.ssl-bundle");
	}

	@Test
	void anSslBundleWithACaFromSettingsIsRefused() {
		TestSettings settings = kind();
		settings.sslBundleName = "apiserver";
		settings.sslBundle = bundle();
		settings.certificateAuthorityData = Corpus.ca().certificatePem();
		KubeconfigException ex = catchThrowableOfType(KubeconfigException.class, settings::load);
		assertThat(ex.file()).isEqualTo(ClusterLoader.SETTINGS);
		assertThat(ex.field()).isEqualTo("listwatch.connection.ssl-bundle");
		assertThat(ex.getMessage()).contains("names SSL bundle 'apiserver'");
		assertThat(ex.fix()).contains("spring.ssl.bundle.pem.apiserver.truststore.certificate");
	}

	@Test
	void proxyCredentialsArePercentDecodedAndNeverShown() {
		Cluster.Proxy proxy = Values.parseProxy("http://user:pa%40ss@proxy.example.com:3128", "f", "x");
		assertThat(proxy.username()).isEqualTo("user");
		assertThat(proxy.password()).isEqualTo("pa@ss");
		assertThat(proxy.withoutCredentials()).isEqualTo("http://proxy.example.com:3128");
		assertThat(proxy.toString()).doesNotContain("pa@ss");
	}

	@Test
	void aClusterValueChecksItsServerAndShowsNoSecret() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Cluster(URI.create("ftp://x"), null, false, null, Credentials.none(), null,
					Duration.ofSeconds(1), "default", "test"))
			.withMessageContaining("is not an http(s) URL with a host");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Cluster(URI.create("https://x"), null, false, null, Credentials.none(), null,
					Duration.ZERO, "default", "test"))
			.withMessageContaining("connectTimeout must be positive");
		Cluster cluster = new Cluster(URI.create("https://x:6443/prefix/"), null, false, null,
				Credentials.bearerToken("s3cr3t-token"), new Cluster.Proxy("proxy", 3128, "user", "pr0xy-pass"),
				Duration.ofSeconds(1), "default", "test");
		assertThat(cluster.server()).isEqualTo(URI.create("https://x:6443/prefix"));
		assertThat(cluster.credentials().authorization()).isEqualTo("Bearer s3cr3t-token");
		assertThat(cluster.toString()).contains("https://x:6443/prefix", "http://proxy:3128")
			.doesNotContain("s3cr3t-token", "pr0xy-pass", "user");
		assertThatIllegalArgumentException().isThrownBy(() -> Credentials.bearerToken(" "))
			.withMessageContaining("Credentials.none()");
	}

}
