package dev.listwatch.client;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.net.ssl.SSLContext;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.listwatch.cluster.AuthenticatingProxy;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.Corpus;
import dev.listwatch.cluster.TestPki;
import dev.listwatch.cluster.TestSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A cluster's {@code proxy-url}: the transport sends requests through the HTTP proxy,
 * with the proxy's credentials for {@code http://} and {@code https://} servers alike.
 */
class TransportProxyTests {

	@TempDir
	Path dir;

	private HttpServer proxy;

	private final Map<String, String> seen = new ConcurrentHashMap<>();

	private HttpsServer https;

	private String caData;

	@AfterEach
	void stop() {
		if (this.proxy != null) {
			this.proxy.stop(0);
		}
		if (this.https != null) {
			this.https.stop(0);
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
		try (Transport transport = Transport.create(cluster);
				ClientHttpResponse response = transport.requestFactory()
					.createRequest(URI.create(cluster.server() + "/api"), HttpMethod.GET)
					.execute()) {
			assertThat(new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("via proxy");
		}
		assertThat(this.seen.get("uri")).isEqualTo("http://apiserver.invalid:8080/prefix/api");
		assertThat(this.seen.get("host")).isEqualTo("apiserver.invalid:8080");
	}

	@Test
	void proxyCredentialsOpenTheTunnelToAnHttpsServer() throws Exception {
		URI server = startHttps();
		// '@' percent-encoded, '+' as it is: a '+' in a URL's user info is a plus, not a
		// space
		try (AuthenticatingProxy proxy = new AuthenticatingProxy("user", "pa@s+s");
				Transport transport = Transport
					.create(load(server, "http://user:pa%40s+s@127.0.0.1:" + proxy.port()))) {
			assertThat(get(transport)).isEqualTo("200 ok");
			assertThat(get(transport)).as("the tunnel is reused").isEqualTo("200 ok");
			String authority = "127.0.0.1:" + server.getPort();
			assertThat(proxy.requests()).singleElement()
				.satisfies((head) -> assertThat(head).startsWith("CONNECT " + authority + " HTTP/1.1\r\n")
					.contains("Proxy-Authorization: Basic dXNlcjpwYUBzK3M="));
			assertThat(this.seen).containsEntry("path", "/version");
		}
	}

	@Test
	void wrongProxyCredentialsForAnHttpsServerAnswer407() throws Exception {
		URI server = startHttps();
		try (AuthenticatingProxy proxy = new AuthenticatingProxy("user", "right");
				Transport transport = Transport.create(load(server, "http://user:wrong@127.0.0.1:" + proxy.port()))) {
			assertThat(get(transport)).startsWith("407 ");
			assertThat(this.seen).doesNotContainKey("path");
		}
	}

	@Test
	void proxyCredentialsForAnHttpServer() throws Exception {
		try (AuthenticatingProxy proxy = new AuthenticatingProxy("user", "secret");
				Transport transport = Transport.create(load(URI.create("http://apiserver.invalid:8080"),
						"http://user:secret@127.0.0.1:" + proxy.port()))) {
			assertThat(transport.relayAddress()).as("the JDK client authenticates to the proxy itself").isNull();
			assertThat(get(transport)).isEqualTo("200 via proxy");
			assertThat(proxy.requests()).last()
				.satisfies((head) -> assertThat(head).startsWith("GET http://apiserver.invalid:8080/version HTTP/1.1")
					.contains("Proxy-Authorization: Basic dXNlcjpzZWNyZXQ="));
		}
	}

	@Test
	void relayTunnelsOnlyToTheApiServer() throws Exception {
		try (AuthenticatingProxy proxy = new AuthenticatingProxy("user", "secret")) {
			Cluster.Proxy settings = new Cluster.Proxy("127.0.0.1", proxy.port(), "user", "secret");
			try (ProxyRelay relay = ProxyRelay.start(settings, URI.create("https://api.example.com:6443"),
					Duration.ofSeconds(5))) {
				assertThat(relay.toString()).doesNotContain("secret").contains("http://127.0.0.1:" + proxy.port());
				assertThat(exchange(relay, "CONNECT evil.example.com:6443 HTTP/1.1\r\n\r\n"))
					.startsWith("HTTP/1.1 403 ");
				assertThat(exchange(relay, "CONNECT api.example.com:443 HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 403 ");
				assertThat(exchange(relay, "GET http://api.example.com:6443/ HTTP/1.1\r\n\r\n"))
					.startsWith("HTTP/1.1 403 ");
				assertThat(proxy.requests()).isEmpty();
			}
		}
	}

	@Test
	void closingTheTransportClosesTheRelayAndTheThreads() throws Exception {
		URI server = startHttps();
		try (AuthenticatingProxy proxy = new AuthenticatingProxy("user", "secret")) {
			Transport transport = Transport.create(load(server, "http://user:secret@127.0.0.1:" + proxy.port()));
			assertThat(get(transport)).isEqualTo("200 ok");
			InetSocketAddress relay = transport.relayAddress();
			assertThat(relay).isNotNull();
			transport.close();
			assertThat(transport.executor().isShutdown()).isTrue();
			// the listening socket closes once its accepting thread has left accept()
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThatExceptionOfType(IOException.class).isThrownBy(() -> {
					try (Socket socket = new Socket()) {
						socket.connect(relay, 5000);
					}
				}));
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> get(transport));
		}
	}

	private static String exchange(ProxyRelay relay, String request) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(relay.address(), 5000);
			socket.setSoTimeout(5000);
			socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
			return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
		}
	}

	private URI startHttps() throws IOException {
		TestPki.Issued ca = Corpus.ca();
		TestPki.Issued certificate = TestPki.issue(ca, "apiserver", TestPki.KeyType.EC, "127.0.0.1");
		this.caData = ca.certificateBase64();
		SSLContext context = certificate.serverContext(null);
		this.https = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.https.setHttpsConfigurator(new HttpsConfigurator(context));
		this.https.createContext("/", (exchange) -> {
			this.seen.put("path", exchange.getRequestURI().getPath());
			byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(200, body.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(body);
			}
		});
		this.https.start();
		return URI.create("https://127.0.0.1:" + this.https.getAddress().getPort());
	}

	private Cluster load(URI server, String proxyUrl) {
		Path file = Corpus.write(this.dir.resolve("config"), """
				apiVersion: v1
				kind: Config
				current-context: c
				clusters:
				- name: c
				  cluster:
				    server: %s
				    proxy-url: %s
				%s
				contexts:
				- name: c
				  context: {cluster: c}
				""".formatted(server, proxyUrl,
				(this.caData != null) ? "    certificate-authority-data: " + this.caData : ""));
		return new TestSettings(this.dir).kubeconfig(file).load();
	}

	private static String get(Transport transport) throws IOException {
		try (ClientHttpResponse response = transport.requestFactory()
			.createRequest(URI.create(transport.server() + "/version"), HttpMethod.GET)
			.execute()) {
			return response.getStatusCode().value() + " "
					+ new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8);
		}
	}

}
