package dev.listwatch.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code HTTPS_PROXY} and {@code NO_PROXY} on the real API server, through a real CONNECT
 * proxy on loopback that wants credentials. The server is addressed as
 * {@code kubernetes.default.svc} (a name of its certificate that does not resolve here),
 * since loopback addresses are never proxied: only the proxy can reach it.
 */
class EnvironmentProxyIT {

	@TempDir
	Path dir;

	@Test
	void httpsProxyFromTheEnvironmentCarriesTheWatchAndNoProxyBypassesIt() throws Exception {
		LocalApiServer server = LocalApiServer.shared();
		String ns = server.createNamespace("lw-env-proxy");
		server.writer().create("/api/v1/namespaces/" + ns + "/configmaps", ApiWriter.configMap(ns, "a", "v", "0"));
		int port = Integer.parseInt(server.serverUrl().substring(server.serverUrl().lastIndexOf(':') + 1));
		Path kubeconfig = this.dir.resolve("kubeconfig");
		Files.writeString(kubeconfig,
				Files.readString(server.kubeconfig())
					.replaceAll("(?m)^(\\s*server:\\s*)https://127\\.0\\.0\\.1:\\d+",
							"$1https://kubernetes.default.svc:" + port));
		try (AuthenticatingProxy proxy = new AuthenticatingProxy("lw", "pr0xy-s3cret")) {
			String proxyUrl = "http://lw:pr0xy-s3cret@127.0.0.1:" + proxy.port();
			Cluster cluster = load(kubeconfig, Map.of("HTTPS_PROXY", proxyUrl));
			assertThat(cluster.proxy()).isEqualTo(new Cluster.Proxy("127.0.0.1", proxy.port(), "lw", "pr0xy-s3cret"));
			assertThat(cluster.toString()).doesNotContain("pr0xy-s3cret");
			try (ApiServerClient client = client(cluster)) {
				assertThat(configMaps(client, ns).list(ListOptions.none()).objects()).extracting(KubernetesObject::name)
					.containsExactly("a");
			}
			assertThat(proxy.requests()).anyMatch((head) -> head.startsWith("CONNECT kubernetes.default.svc:" + port));

			int seen = proxy.requests().size();
			Cluster bypassing = load(kubeconfig, Map.of("HTTPS_PROXY", proxyUrl, "NO_PROXY", "10.0.0.0/8,.svc"));
			assertThat(bypassing.proxy()).isNull();
			try (ApiServerClient client = client(bypassing)) {
				assertThatExceptionOfType(KubernetesApiException.class)
					.isThrownBy(() -> configMaps(client, ns).list(ListOptions.none()))
					.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(KubernetesApiException.Kind.CONNECTION));
			}
			assertThat(proxy.requests()).as("direct: the proxy saw nothing").hasSize(seen);
		}
	}

	@Test
	void theKubeconfigsProxyUrlWinsOverTheEnvironment() throws Exception {
		LocalApiServer server = LocalApiServer.shared();
		Path kubeconfig = this.dir.resolve("kubeconfig");
		Files.writeString(kubeconfig,
				Files.readString(server.kubeconfig())
					.replaceAll("(?m)^(\\s*)server:(\\s*)https://127\\.0\\.0\\.1:(\\d+)",
							"$1server:$2https://api.corp.example:$3\n$1proxy-url: http://kubeconfig-proxy:3128"));
		Cluster cluster = load(kubeconfig, Map.of("HTTPS_PROXY", "http://env-proxy:8080"));
		assertThat(cluster.proxy()).isEqualTo(new Cluster.Proxy("kubeconfig-proxy", 3128, null, null));
	}

	private Cluster load(Path kubeconfig, Map<String, String> environment) {
		return Cluster.load(ConnectionOptions.builder()
			.kubeconfig(kubeconfig.toString())
			.environment(environment)
			.homeDirectory(this.dir)
			.serviceAccountDirectory(this.dir)
			.build());
	}

	private static ApiServerClient client(Cluster cluster) {
		return ApiServerClient.create(cluster, RestClient.builder(), JsonMapper.shared(), Clock.systemUTC());
	}

	private static ListerWatcher<KubernetesObject> configMaps(ApiServerClient client, String namespace) {
		return client.listerWatcher(new ApiServerClient.Target("v1", "ConfigMap", null, namespace),
				KubernetesObject.class, ApiServerClient.Decoding.DEFAULTS);
	}

}
