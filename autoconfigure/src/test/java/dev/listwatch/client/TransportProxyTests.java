package dev.listwatch.client;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
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
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A cluster's {@code proxy-url}: the transport sends requests through the HTTP proxy,
 * with the proxy's credentials for {@code http://} and {@code https://} servers alike (on
 * the JDK client, or on Jetty's where the JDK client would not send them). Every kind of
 * proxy through a real proxy: {@code ProxyKindsIT}.
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
			assertThat(transport.jetty()).as("the JDK client never sends credentials on a CONNECT").isTrue();
			assertThat(get(transport)).isEqualTo("200 ok");
			assertThat(get(transport)).as("the tunnel is reused").isEqualTo("200 ok");
			assertThat(this.seen).as("bodies as the server sends them").doesNotContainKey("accept-encoding");
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
			assertThat(get(transport))
				.startsWith("407 The proxy http://127.0.0.1:" + proxy.port() + " refused the proxy credentials")
				.doesNotContain("wrong");
			assertThat(this.seen).doesNotContainKey("path");
		}
	}

	@Test
	void proxyCredentialsForAnHttpServer() throws Exception {
		try (AuthenticatingProxy proxy = new AuthenticatingProxy("user", "secret");
				Transport transport = Transport.create(load(URI.create("http://apiserver.invalid:8080"),
						"http://user:secret@127.0.0.1:" + proxy.port()))) {
			assertThat(transport.jetty()).as("the JDK client authenticates to the proxy itself").isFalse();
			assertThat(get(transport)).isEqualTo("200 via proxy");
			assertThat(proxy.requests()).last()
				.satisfies((head) -> assertThat(head).startsWith("GET http://apiserver.invalid:8080/version HTTP/1.1")
					.contains("Proxy-Authorization: Basic dXNlcjpzZWNyZXQ="));
		}
	}

	@Test
	void closingAJettyTransportFailsLaterRequests() throws Exception {
		URI server = startHttps();
		try (AuthenticatingProxy proxy = new AuthenticatingProxy("user", "secret")) {
			Transport transport = Transport.create(load(server, "http://user:secret@127.0.0.1:" + proxy.port()));
			assertThat(get(transport)).isEqualTo("200 ok");
			transport.close();
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> get(transport))
				.withMessageContaining("closed");
			transport.close();
		}
	}

	@Test
	void closingAJdkTransportStopsItsTasks() throws Exception {
		URI server = startHttps();
		Transport transport = Transport.create(load(server, null));
		assertThat(transport.jetty()).isFalse();
		assertThat(get(transport)).isEqualTo("200 ok");
		transport.close();
		assertThat(transport.executor()).isNotNull()
			.satisfies((executor) -> assertThat(executor.isShutdown()).isTrue());
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> get(transport));
	}

	@Test
	void jettyIsUsedOnlyForTheProxiesTheJdkClientCannotUse() {
		URI https = URI.create("https://api.example.com:6443");
		URI http = URI.create("http://api.example.com:8080");
		assertThat(Transport.needsJetty(cluster(https, null))).isFalse();
		assertThat(Transport.needsJetty(cluster(https, new Cluster.Proxy("proxy", 3128, null, null)))).isFalse();
		assertThat(Transport.needsJetty(cluster(http, new Cluster.Proxy("proxy", 3128, "user", "pw")))).isFalse();
		assertThat(Transport.needsJetty(cluster(https, new Cluster.Proxy("proxy", 3128, "user", "pw")))).isTrue();
		assertThat(Transport
			.needsJetty(cluster(http, new Cluster.Proxy(Cluster.Proxy.Scheme.HTTPS, "proxy", 443, null, null))))
			.isTrue();
		assertThat(Transport
			.needsJetty(cluster(http, new Cluster.Proxy(Cluster.Proxy.Scheme.SOCKS5, "proxy", 1080, null, null))))
			.isTrue();
	}

	@Test
	void withoutJettyTheMessageNamesTheProxyAndTheDependencyButNoSecret() {
		Cluster cluster = cluster(URI.create("https://api.example.com:6443"),
				new Cluster.Proxy(Cluster.Proxy.Scheme.SOCKS5, "proxy", 1080, "user", "s3cret-pw"));
		assertThat(Transport.missingJettyMessage(cluster)).contains("socks5://proxy:1080")
			.contains("org.eclipse.jetty:jetty-client")
			.doesNotContain("s3cret-pw")
			.doesNotContain("user");
	}

	private static Cluster cluster(URI server, Cluster.Proxy proxy) {
		return new Cluster(server, null, false, null, dev.listwatch.cluster.Credentials.none(), proxy,
				Duration.ofSeconds(5), "default", "test");
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
			String encoding = exchange.getRequestHeaders().getFirst("Accept-Encoding");
			if (encoding != null) {
				this.seen.put("accept-encoding", encoding);
			}
			byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(200, body.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(body);
			}
		});
		this.https.start();
		return URI.create("https://127.0.0.1:" + this.https.getAddress().getPort());
	}

	private Cluster load(URI server, @Nullable String proxyUrl) {
		Path file = Corpus.write(this.dir.resolve("config"), """
				apiVersion: v1
				kind: Config
				current-context: c
				clusters:
				- name: c
				  cluster:
				    server: %s
				%s
				%s
				contexts:
				- name: c
				  context: {cluster: c}
				""".formatted(server, (proxyUrl != null) ? "    proxy-url: " + proxyUrl : "",
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
