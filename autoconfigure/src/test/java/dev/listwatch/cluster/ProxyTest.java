package dev.listwatch.cluster;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code proxy-url} sends requests through an HTTP proxy.
 */
class ProxyTest {

	@TempDir
	Path dir;

	private HttpServer proxy;

	private final Map<String, String> seen = new ConcurrentHashMap<>();

	@AfterEach
	void stop() {
		if (this.proxy != null) {
			this.proxy.stop(0);
		}
	}

	@Test
	void requestsGoThroughTheProxy() throws IOException {
		this.proxy = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.proxy.createContext("/", (exchange) -> {
			this.seen.put("uri", exchange.getRequestURI().toString());
			this.seen.put("host", String.valueOf(exchange.getRequestHeaders().getFirst("Host")));
			byte[] body = "via proxy".getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(200, body.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(body);
			}
		});
		this.proxy.start();
		Path file = Corpus.write(this.dir.resolve("config"), """
				apiVersion: v1
				kind: Config
				current-context: c
				clusters:
				- name: c
				  cluster:
				    server: http://apiserver.invalid:8080/prefix/
				    proxy-url: http://127.0.0.1:%d
				contexts:
				- name: c
				  context: {cluster: c}
				""".formatted(this.proxy.getAddress().getPort()));
		Cluster cluster = new TestSettings(this.dir).kubeconfig(file).load();
		assertThat(cluster.server()).isEqualTo(URI.create("http://apiserver.invalid:8080/prefix"));
		try (ClientHttpResponse response = cluster.requestFactory()
			.createRequest(URI.create(cluster.server() + "/api"), HttpMethod.GET)
			.execute()) {
			assertThat(new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("via proxy");
		}
		assertThat(this.seen.get("uri")).isEqualTo("http://apiserver.invalid:8080/prefix/api");
		assertThat(this.seen.get("host")).isEqualTo("apiserver.invalid:8080");
	}

	@Test
	void proxyCredentialsAreNotShownInExecClusterInfo() {
		ClusterLoader.Proxy proxy = ClusterLoader.parseProxy("http://user:pa%40ss@proxy.example.com:3128", "f", "x");
		assertThat(proxy.username()).isEqualTo("user");
		assertThat(proxy.password()).isEqualTo("pa@ss");
		assertThat(proxy.withoutCredentials()).isEqualTo("http://proxy.example.com:3128");
		assertThat(proxy.toString()).doesNotContain("pa@ss");
	}

}
