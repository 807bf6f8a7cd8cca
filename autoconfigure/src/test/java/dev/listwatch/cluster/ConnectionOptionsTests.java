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
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
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
		Cluster.Proxy proxy = Values.parseProxy("http://user:pa%40ss@proxy.example.com:3128", "f", "x", false);
		assertThat(proxy.username()).isEqualTo("user");
		assertThat(proxy.password()).isEqualTo("pa@ss");
		assertThat(proxy.withoutCredentials()).isEqualTo("http://proxy.example.com:3128");
		assertThat(proxy.toString()).doesNotContain("pa@ss");
	}

	@Test
	void everyProxySchemeClientGoAcceptsWithItsDefaultPort() {
		assertThat(Values.parseProxy("https://u:p%3Aw@proxy.example.com", "f", "x", false))
			.isEqualTo(new Cluster.Proxy(Cluster.Proxy.Scheme.HTTPS, "proxy.example.com", 443, "u", "p:w"))
			.hasToString("https://proxy.example.com:443");
		assertThat(Values.parseProxy("SOCKS5://u:pw@[::1]", "f", "x", false))
			.isEqualTo(new Cluster.Proxy(Cluster.Proxy.Scheme.SOCKS5, "::1", 1080, "u", "pw"))
			.hasToString("socks5://[::1]:1080");
		assertThat(Values.parseProxy("http://proxy.example.com", "f", "x", false))
			.isEqualTo(new Cluster.Proxy("proxy.example.com", 80, null, null));
		assertThat(Values.parseProxy("socks5h://proxy:1081", "environment", "HTTPS_PROXY", true))
			.as("Go's transport takes socks5h from the environment")
			.isEqualTo(new Cluster.Proxy(Cluster.Proxy.Scheme.SOCKS5, "proxy", 1081, null, null));
	}

	@Test
	void aProxySchemeClientGoRefusesNamesTheFieldAndTheFix() {
		assertThatExceptionOfType(KubeconfigException.class)
			.isThrownBy(() -> Values.parseProxy("socks5h://u:s3cret@proxy:1080", "/k/config",
					"clusters[c].cluster.proxy-url", false))
			.withMessageContaining("/k/config: clusters[c].cluster.proxy-url has the scheme 'socks5h'")
			.withMessageContaining("write socks5:// instead")
			.withMessageNotContaining("s3cret");
		assertThatExceptionOfType(KubeconfigException.class)
			.isThrownBy(() -> Values.parseProxy("socks4://proxy:1080", "f", "proxy-url", false))
			.withMessageContaining("socks4")
			.withMessageContaining("http://, https:// or socks5://");
	}

	@Test
	void withoutJettyAProxyOnlyJettyCanUseFailsStartupNamingTheFieldAndTheDependency() {
		Cluster.Proxy socks = new Cluster.Proxy(Cluster.Proxy.Scheme.SOCKS5, "proxy", 1080, "u", "s3cret");
		assertThatExceptionOfType(KubeconfigException.class)
			.isThrownBy(() -> ClusterLoader.requireProxyClient(socks, true, false, "/k/config",
					"clusters[c].cluster.proxy-url"))
			.satisfies((ex) -> {
				assertThat(ex.getMessage()).contains("/k/config: clusters[c].cluster.proxy-url is a socks5:// proxy")
					.contains("org.eclipse.jetty:jetty-client")
					.doesNotContain("s3cret");
				assertThat(ex.fix()).contains("<artifactId>jetty-client</artifactId>");
			});
		Cluster.Proxy tls = new Cluster.Proxy(Cluster.Proxy.Scheme.HTTPS, "proxy", 443, null, null);
		assertThatExceptionOfType(KubeconfigException.class)
			.isThrownBy(() -> ClusterLoader.requireProxyClient(tls, false, false, "environment", "HTTP_PROXY"))
			.withMessageContaining("environment: HTTP_PROXY is an https:// proxy");
		Cluster.Proxy basic = new Cluster.Proxy("proxy", 3128, "u", "s3cret");
		assertThatExceptionOfType(KubeconfigException.class)
			.isThrownBy(() -> ClusterLoader.requireProxyClient(basic, true, false, "environment", "HTTPS_PROXY"))
			.withMessageContaining("with credentials")
			.withMessageNotContaining("s3cret");
		// what the JDK client does itself needs nothing
		ClusterLoader.requireProxyClient(basic, false, false, "environment", "HTTP_PROXY");
		ClusterLoader.requireProxyClient(new Cluster.Proxy("proxy", 3128, null, null), true, false, "f", "x");
		ClusterLoader.requireProxyClient(socks, true, true, "f", "x");
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
