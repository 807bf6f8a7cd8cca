package dev.listwatch.cluster;

import java.net.URI;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The proxy from {@code HTTPS_PROXY}, {@code HTTP_PROXY} and {@code NO_PROXY}, by the
 * rules of Go's {@code httpproxy} package that client-go follows.
 */
class EnvironmentProxyTests {

	private static final URI SERVER = URI.create("https://api.corp.example:6443");

	@Test
	void anHttpsServerGoesThroughHttpsProxyWithUpperCaseFirstAndNeverThroughHttpProxy() {
		assertThat(proxy(SERVER, Map.of("HTTPS_PROXY", "http://proxy:3128", "https_proxy", "http://other:1")))
			.isEqualTo(new Cluster.Proxy("proxy", 3128, null, null));
		assertThat(proxy(SERVER, Map.of("https_proxy", "other:8080"))).as("lower case, and no scheme means http://")
			.isEqualTo(new Cluster.Proxy("other", 8080, null, null));
		assertThat(proxy(SERVER, Map.of("HTTP_PROXY", "http://proxy:3128"))).isNull();
		assertThat(proxy(URI.create("http://api.corp.example:8080"), Map.of("HTTP_PROXY", "http://proxy:3128")))
			.isEqualTo(new Cluster.Proxy("proxy", 3128, null, null));
		assertThat(proxy(SERVER, Map.of())).isNull();
		assertThat(proxy(SERVER, Map.of("HTTPS_PROXY", "http://user:p%40ss@proxy:3128")))
			.isEqualTo(new Cluster.Proxy("proxy", 3128, "user", "p@ss"));
	}

	@Test
	void localhostAndLoopbackAreNeverProxied() {
		Map<String, String> env = Map.of("HTTPS_PROXY", "http://proxy:3128");
		assertThat(proxy(URI.create("https://localhost:6443"), env)).isNull();
		assertThat(proxy(URI.create("https://127.0.0.1:6443"), env)).isNull();
		assertThat(proxy(URI.create("https://127.3.2.1:6443"), env)).isNull();
		assertThat(proxy(URI.create("https://[::1]:6443"), env)).isNull();
		assertThat(proxy(URI.create("https://10.0.0.1:6443"), env)).isNotNull();
	}

	@Test
	void noProxyMatchesDomainsSubdomainsIpsCidrsAndPorts() {
		assertThat(EnvironmentProxy.useProxy("api.corp.example", 6443, "*")).isFalse();
		assertThat(EnvironmentProxy.useProxy("api.corp.example", 6443, "corp.example")).isFalse();
		assertThat(EnvironmentProxy.useProxy("corp.example", 6443, "corp.example")).isFalse();
		assertThat(EnvironmentProxy.useProxy("corp.example", 6443, ".corp.example")).as("subdomains only").isTrue();
		assertThat(EnvironmentProxy.useProxy("api.corp.example", 6443, ".corp.example")).isFalse();
		assertThat(EnvironmentProxy.useProxy("api.corp.example", 6443, "*.corp.example")).isFalse();
		assertThat(EnvironmentProxy.useProxy("notcorp.example", 6443, "corp.example")).isTrue();
		assertThat(EnvironmentProxy.useProxy("api.corp.example", 6443, " other.example , CORP.example ")).isFalse();
		assertThat(EnvironmentProxy.useProxy("api.corp.example", 6443, "corp.example:443")).as("another port").isTrue();
		assertThat(EnvironmentProxy.useProxy("api.corp.example", 6443, "corp.example:6443")).isFalse();
		assertThat(EnvironmentProxy.useProxy("10.1.2.3", 6443, "10.0.0.0/8")).isFalse();
		assertThat(EnvironmentProxy.useProxy("11.1.2.3", 6443, "10.0.0.0/8")).isTrue();
		assertThat(EnvironmentProxy.useProxy("10.1.2.3", 6443, "10.1.2.3")).isFalse();
		assertThat(EnvironmentProxy.useProxy("10.1.2.3", 6443, "10.1.2.3:443")).isTrue();
		assertThat(EnvironmentProxy.useProxy("fd00::5", 6443, "fd00::/16")).isFalse();
		assertThat(EnvironmentProxy.useProxy("api.corp.example", 6443, "10.0.0.0/8")).as("names are not resolved")
			.isTrue();
		assertThat(EnvironmentProxy.useProxy("api.corp.example", 6443, "")).isTrue();
	}

	@Test
	void theDefaultPortOfTheSchemeIsMatched() {
		assertThat(proxy(URI.create("https://api.corp.example"),
				Map.of("HTTPS_PROXY", "http://proxy:3128", "NO_PROXY", "api.corp.example:443")))
			.isNull();
		assertThat(proxy(SERVER, Map.of("HTTPS_PROXY", "http://proxy:3128", "no_proxy", "corp.example"))).isNull();
	}

	@Test
	void everyProxySchemeGoTakesFromTheEnvironment() {
		assertThat(proxy(SERVER, Map.of("HTTPS_PROXY", "https://user:p%40ss@proxy:3129")))
			.isEqualTo(new Cluster.Proxy(Cluster.Proxy.Scheme.HTTPS, "proxy", 3129, "user", "p@ss"));
		assertThat(proxy(SERVER, Map.of("HTTPS_PROXY", "socks5://proxy")))
			.isEqualTo(new Cluster.Proxy(Cluster.Proxy.Scheme.SOCKS5, "proxy", 1080, null, null));
		assertThat(proxy(URI.create("http://api.corp.example:8080"), Map.of("http_proxy", "socks5h://u:pw@proxy:1081")))
			.isEqualTo(new Cluster.Proxy(Cluster.Proxy.Scheme.SOCKS5, "proxy", 1081, "u", "pw"));
	}

	@Test
	void aProxyUrlThatCannotWorkFailsNamingTheVariable() {
		assertThatExceptionOfType(KubeconfigException.class)
			.isThrownBy(() -> proxy(SERVER, Map.of("HTTPS_PROXY", "socks4://user:s3cret@proxy:1080")))
			.withMessageContaining("environment: HTTPS_PROXY has the scheme 'socks4'")
			.withMessageNotContaining("s3cret");
		assertThatExceptionOfType(KubeconfigException.class)
			.isThrownBy(() -> proxy(SERVER, Map.of("https_proxy", "ftp://proxy:21")))
			.withMessageContaining("https_proxy");
	}

	private static Cluster.Proxy proxy(URI server, Map<String, String> environment) {
		return EnvironmentProxy.forServer(server, environment);
	}

}
