package dev.listwatch.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStream;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.ConnectionOptions;
import dev.listwatch.cluster.TestPki;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import dev.listwatch.testsupport.TestProxy;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Every proxy a kubeconfig can name, each a real proxy on loopback in front of the real
 * API server ({@code testcluster}'s {@code testproxy}: goproxy for HTTP and HTTPS,
 * go-socks5 for SOCKS5), each wanting credentials: an {@code https://} proxy (TLS to the
 * proxy), a {@code socks5://} proxy, and an {@code http://} proxy in front of the
 * {@code https} server (a CONNECT with credentials). The server is named
 * {@code kubernetes.default.svc} (a name of its certificate that resolves nowhere here):
 * only the proxy, which dials every target at 127.0.0.1, reaches it, so an event that
 * arrives came through the proxy, and the proxy reports the name it was asked for and the
 * user it accepted. listwatch opens no listening port on the way.
 */
@ExtendWith(LocalApiServerExtension.class)
class ProxyKindsIT {

	private static final String USER = "lw-proxy";

	/** Characters that a URL must escape ('@', ':', '%') and one it need not ('+'). */
	private static final String PASSWORD = "pr0xy@s3cr:et%+";

	private static final String ENCODED_PASSWORD = "pr0xy%40s3cr%3Aet%25+";

	private static TestPki.Issued proxyCa;

	private static Path proxyCertificate;

	private static Path proxyKey;

	@TempDir
	static Path shared;

	@TempDir
	Path dir;

	@BeforeAll
	static void proxyPki() throws IOException {
		proxyCa = TestPki.ca("testproxy-ca");
		TestPki.Issued certificate = TestPki.issue(proxyCa, "testproxy", TestPki.KeyType.EC, "127.0.0.1");
		proxyCertificate = Files.writeString(shared.resolve("proxy.crt"), certificate.certificatePem());
		proxyKey = Files.writeString(shared.resolve("proxy.key"), certificate.pkcs8Pem());
	}

	@ParameterizedTest
	@EnumSource(TestProxy.Kind.class)
	void aWatchStreamsThroughTheProxyWithItsCredentials(TestProxy.Kind kind, LocalApiServer server) throws Exception {
		String namespace = server.createNamespace("lw-proxy-" + kind.name().toLowerCase(Locale.ROOT));
		try (TestProxy proxy = start(kind, USER, PASSWORD)) {
			Cluster cluster = load(server, proxy.url(USER + ":" + ENCODED_PASSWORD), Map.of());
			assertThat(cluster.toString()).doesNotContain(PASSWORD).doesNotContain(ENCODED_PASSWORD);
			Set<String> listening = listeningSockets();
			try (ApiServerClient client = client(cluster)) {
				ListerWatcher<KubernetesObject> configMaps = configMaps(client, namespace);
				String resourceVersion = configMaps.list(ListOptions.none()).resourceVersion();
				try (WatchStream<KubernetesObject> watch = configMaps.watch(
						ListOptions.none().withResourceVersion(resourceVersion).withTimeout(Duration.ofMinutes(5)))) {
					// events are delivered as they happen, while the watch stays open
					for (String name : List.of("first", "second")) {
						server.writer()
							.create("/api/v1/namespaces/" + namespace + "/configmaps",
									ApiWriter.configMap(namespace, name, "k", "v"));
						WatchEvent<KubernetesObject> event = next(watch);
						assertThat(event.type()).isEqualTo(WatchEvent.Type.ADDED);
						assertThat(event.object().name()).isEqualTo(name);
					}
					assertThat(listeningSockets()).as("listwatch listens on no port (no relay)").isEqualTo(listening);
				}
			}
			String target = "kubernetes.default.svc:" + port(server);
			assertThat(proxy.events()).as("the proxy tunnelled to the name, with the user it accepted")
				.contains("connect user=" + USER + " target=" + target)
				.noneMatch((event) -> event.startsWith("refused"));
		}
	}

	@ParameterizedTest
	@EnumSource(TestProxy.Kind.class)
	void wrongCredentialsFailClearlyWithoutThePassword(TestProxy.Kind kind, LocalApiServer server) throws IOException {
		String wrong = "wr0ng-pa55word";
		try (TestProxy proxy = start(kind, USER, PASSWORD)) {
			Cluster cluster = load(server, proxy.url(USER + ":" + wrong), Map.of());
			try (ApiServerClient client = client(cluster)) {
				assertThatExceptionOfType(KubernetesApiException.class)
					.isThrownBy(() -> configMaps(client, "default").list(ListOptions.none()))
					.satisfies((ex) -> {
						String text = messages(ex);
						assertThat(text).contains(proxy.url(null))
							.doesNotContain(wrong)
							.doesNotContain(PASSWORD)
							.doesNotContain(ENCODED_PASSWORD);
						if (kind == TestProxy.Kind.SOCKS5) {
							assertThat(ex.kind()).isEqualTo(KubernetesApiException.Kind.CONNECTION);
							assertThat(text).contains("username/password authentication failure");
						}
						else {
							assertThat(ex.code()).isEqualTo(407);
							assertThat(text).contains("refused the proxy credentials");
						}
					});
			}
			assertThat(proxy.events())
				.contains((kind == TestProxy.Kind.SOCKS5) ? "refused reason=wrong-credentials target="
						: "refused reason=wrong-credentials target=kubernetes.default.svc:" + port(server))
				.noneMatch((event) -> event.startsWith("connect"));
		}
	}

	@Test
	void anHttpsProxyWhoseCertificateIsNotTrustedIsNotUsed(LocalApiServer server) throws IOException {
		try (TestProxy proxy = start(TestProxy.Kind.HTTPS, USER, PASSWORD)) {
			Cluster cluster = load(server, proxy.url(USER + ":" + ENCODED_PASSWORD), Map.of(), false);
			try (ApiServerClient client = client(cluster)) {
				assertThatExceptionOfType(KubernetesApiException.class)
					.isThrownBy(() -> configMaps(client, "default").list(ListOptions.none()))
					.satisfies((ex) -> {
						assertThat(ex.kind()).isEqualTo(KubernetesApiException.Kind.CONNECTION);
						assertThat(messages(ex)).contains(proxy.url(null))
							.contains("The certificate of the proxy " + proxy.url(null) + " is trusted neither by")
							.doesNotContain(PASSWORD);
					});
			}
			assertThat(proxy.events()).as("no CONNECT, so no credentials, reached it").isEmpty();
		}
	}

	@Test
	void aSocks5ProxyFromTheEnvironment(LocalApiServer server) throws Exception {
		try (TestProxy proxy = start(TestProxy.Kind.SOCKS5, USER, PASSWORD)) {
			String url = proxy.url(USER + ":" + ENCODED_PASSWORD).replace("socks5://", "socks5h://");
			Cluster cluster = load(server, null, Map.of("HTTPS_PROXY", url));
			assertThat(cluster.proxy())
				.isEqualTo(new Cluster.Proxy(Cluster.Proxy.Scheme.SOCKS5, "127.0.0.1", proxy.port(), USER, PASSWORD));
			try (ApiServerClient client = client(cluster)) {
				assertThat(configMaps(client, "default").list(ListOptions.none()).resourceVersion()).isNotBlank();
			}
			assertThat(proxy.events())
				.contains("connect user=" + USER + " target=kubernetes.default.svc:" + port(server));
		}
	}

	@Test
	void closingAWatchEndsAReadParkedOnItThroughTheProxy(LocalApiServer server) throws Exception {
		String namespace = server.createNamespace("lw-proxy-close");
		try (TestProxy proxy = start(TestProxy.Kind.HTTPS, USER, PASSWORD);
				ApiServerClient client = client(load(server, proxy.url(USER + ":" + ENCODED_PASSWORD), Map.of()))) {
			ListerWatcher<KubernetesObject> configMaps = configMaps(client, namespace);
			String resourceVersion = configMaps.list(ListOptions.none()).resourceVersion();
			WatchStream<KubernetesObject> watch = configMaps
				.watch(ListOptions.none().withResourceVersion(resourceVersion).withTimeout(Duration.ofMinutes(10)));
			CompletableFuture<Boolean> reader = new CompletableFuture<>();
			Thread thread = new Thread(() -> reader.complete(watch.hasNext()));
			thread.start();
			// the namespace is quiet, so the reader parks: wait until it has
			await().atMost(Duration.ofSeconds(10))
				.until(() -> thread.getState() == Thread.State.WAITING
						|| thread.getState() == Thread.State.TIMED_WAITING);
			assertThat(reader).isNotDone();
			watch.close();
			assertThat(reader.get(5, TimeUnit.SECONDS)).isFalse();
		}
	}

	@Test
	void listeningSocketsSeesAPortThisJvmListensOn() throws IOException {
		Set<String> before = listeningSockets();
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			assertThat(listeningSockets()).hasSize(before.size() + 1)
				.anyMatch((address) -> address.endsWith(":%04X".formatted(socket.getLocalPort())));
		}
	}

	private static WatchEvent<KubernetesObject> next(WatchStream<KubernetesObject> watch) throws Exception {
		CompletableFuture<WatchEvent<KubernetesObject>> event = CompletableFuture
			.supplyAsync(() -> watch.hasNext() ? watch.next() : null);
		WatchEvent<KubernetesObject> arrived = event.get(30, TimeUnit.SECONDS);
		assertThat(arrived).as("an event before the watch ended").isNotNull();
		return arrived;
	}

	private static TestProxy start(TestProxy.Kind kind, String user, String password) {
		boolean tls = kind == TestProxy.Kind.HTTPS;
		return TestProxy.start(kind, user, password, tls ? proxyCertificate : null, tls ? proxyKey : null, "127.0.0.1");
	}

	/**
	 * The kubeconfig of the local server, naming it {@code kubernetes.default.svc}, with
	 * its CA and (unless told not to) the proxy's: a kubeconfig's CA may hold several
	 * certificates, and an {@code https://} proxy is trusted by the cluster's CA or the
	 * JVM's trust store.
	 */
	private Cluster load(LocalApiServer server, @Nullable String proxyUrl, Map<String, String> environment)
			throws IOException {
		return load(server, proxyUrl, environment, true);
	}

	private Cluster load(LocalApiServer server, @Nullable String proxyUrl, Map<String, String> environment,
			boolean trustProxy) throws IOException {
		String ca = server.caCertificatePem() + (trustProxy ? "\n" + proxyCa.certificatePem() : "");
		String caData = Base64.getEncoder().encodeToString(ca.getBytes(StandardCharsets.UTF_8));
		String kubeconfig = Files.readString(server.kubeconfig())
			.replaceAll("(?m)^(\\s*)server:(\\s*)https://127\\.0\\.0\\.1:(\\d+)",
					"$1server:$2https://kubernetes.default.svc:$3"
							+ ((proxyUrl != null) ? "\n$1proxy-url: \"" + proxyUrl + "\"" : ""))
			.replaceAll("(?m)^(\\s*)certificate-authority(-data)?:.*$", "$1certificate-authority-data: " + caData);
		Path file = Files.writeString(this.dir.resolve("kubeconfig"), kubeconfig);
		return Cluster.load(ConnectionOptions.builder()
			.kubeconfig(file.toString())
			.environment(environment)
			.homeDirectory(this.dir)
			.serviceAccountDirectory(this.dir)
			.build());
	}

	private static int port(LocalApiServer server) {
		return Integer.parseInt(server.serverUrl().substring(server.serverUrl().lastIndexOf(':') + 1));
	}

	private static ApiServerClient client(Cluster cluster) {
		return ApiServerClient.create(cluster, RestClient.builder(), JsonMapper.shared(), Clock.systemUTC());
	}

	private static ListerWatcher<KubernetesObject> configMaps(ApiServerClient client, String namespace) {
		return client.listerWatcher(new ApiServerClient.Target("v1", "ConfigMap", null, namespace),
				KubernetesObject.class, ApiServerClient.Decoding.DEFAULTS);
	}

	private static String messages(Throwable ex) {
		StringBuilder text = new StringBuilder();
		for (Throwable t = ex; t != null; t = t.getCause()) {
			text.append(t).append('\n');
		}
		return text.toString();
	}

	/**
	 * The TCP sockets this JVM listens on: the sockets in LISTEN state
	 * ({@code /proc/self/net/tcp}, {@code tcp6}) whose inodes are among this process's
	 * open files.
	 */
	static Set<String> listeningSockets() throws IOException {
		Set<String> inodes = new HashSet<>();
		try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
			for (Path fd : (Iterable<Path>) fds::iterator) {
				try {
					String link = Files.readSymbolicLink(fd).toString();
					if (link.startsWith("socket:[")) {
						inodes.add(link.substring(8, link.length() - 1));
					}
				}
				catch (IOException ex) {
					// closed meanwhile
				}
			}
		}
		Set<String> listening = new HashSet<>();
		for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
			List<String> lines = Files.readAllLines(Path.of(table));
			for (String line : lines.subList(1, lines.size())) {
				String[] columns = line.strip().split("\\s+");
				if (columns[3].equals("0A") && inodes.contains(columns[9])) {
					listening.add(columns[1]);
				}
			}
		}
		return listening;
	}

}
