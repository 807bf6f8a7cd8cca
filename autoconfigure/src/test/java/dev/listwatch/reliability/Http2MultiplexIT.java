package dev.listwatch.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import dev.listwatch.WatchStatus;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.fault.FaultProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.HttpMethod;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A namespace set of 50 namespaces on a real kube-apiserver (TLS, so HTTP/2 by ALPN),
 * through a TCP proxy that counts the connections it accepts: on HTTP/2 (the default) the
 * 50 watches, their lists and discovery share at most 2 connections, every change
 * arrives, and a cut of the connection (with changes made while it is down) breaks every
 * watch at once, each resuming from its resourceVersion without a list and without losing
 * an event. On HTTP/1.1 the same watch holds a connection per namespace.
 */
class Http2MultiplexIT {

	private static final int NAMESPACES = 50;

	private static final int PER_NAMESPACE = 4;

	private static LocalApiServer server;

	@TempDir
	Path dir;

	@BeforeAll
	static void start() {
		server = new LocalApiServer().start();
		ApiWriter writer = server.writer();
		for (int i = 0; i < NAMESPACES; i++) {
			writer.create("/api/v1/namespaces",
					"{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"lw-h2-" + i + "\"}}");
			writer.create("/api/v1/namespaces/lw-h2-" + i + "/configmaps",
					ApiWriter.configMap("lw-h2-" + i, "seed", "a", "0"));
		}
	}

	@AfterAll
	static void stop() {
		if (server != null) {
			server.close();
		}
	}

	@Test
	void fiftyWatchesShareAtMostTwoConnectionsAndACutLosesNoEvent() {
		try (FaultProxy proxy = FaultProxy.startFor(server.serverUrl())) {
			runner(proxy, true).run((context) -> {
				assertThat(context).hasNotFailed();
				Informer<?> informer = context.getBean("cmsInformer", Informer.class);
				EventRecorder recorder = context.getBean(EventRecorder.class);
				await().atMost(Duration.ofSeconds(60)).until(() -> informer.status().synced());
				// every namespace's watch is open (a watch that failed to open counts a
				// failure; one that opened has its stream held)
				await().atMost(Duration.ofSeconds(30))
					.until(() -> informer.status().namespaces().size() == NAMESPACES && informer.status()
						.namespaces()
						.values()
						.stream()
						.allMatch((status) -> status.consecutiveFailures() == 0));
				assertThat(proxy.connectionsAccepted()).as("connections for %d watches", NAMESPACES).isBetween(1, 2);

				Set<String> before = write("before");
				await().atMost(Duration.ofSeconds(60)).until(() -> added(recorder).containsAll(before));
				assertThat(proxy.connectionsAccepted()).isLessThanOrEqualTo(2);

				// the cut: every watch on the connection breaks; changes made meanwhile
				// arrive when they resume
				int accepted = proxy.connectionsAccepted();
				long cuts = informer.status().restarts(WatchStatus.RestartReason.DISCONNECTED);
				proxy.refuse();
				assertThat(proxy.cutAll()).isPositive();
				Set<String> during = write("during");
				proxy.resume();
				Set<String> after = write("after");
				await().atMost(Duration.ofSeconds(90))
					.until(() -> added(recorder).containsAll(during) && added(recorder).containsAll(after));
				assertThat(informer.status().restarts(WatchStatus.RestartReason.DISCONNECTED))
					.as("watches broken by the cut")
					.isGreaterThanOrEqualTo(cuts + NAMESPACES);
				assertThat(informer.status().relists()).as("relists: every watch resumed").isZero();
				assertThat(proxy.connectionsAccepted() - accepted).as("connections after the cut").isBetween(1, 2);
				List<String> duplicates = added(recorder).stream()
					.collect(Collectors.groupingBy((key) -> key, Collectors.counting()))
					.entrySet()
					.stream()
					.filter((entry) -> entry.getValue() > 1)
					.map(java.util.Map.Entry::getKey)
					.toList();
				assertThat(duplicates).as("objects added twice").isEmpty();
			});
		}
	}

	@Test
	void stoppingOneWatchLeavesTheOthersOnTheConnectionAlone() {
		// a stopped watch's response closes early, and its connection is pinged (with
		// the client's credentials, on a server that refuses anonymous requests but for
		// its health endpoints, as hardened clusters do): the ping is answered, the
		// connection kept, the other watch on it neither broken nor moved
		Path authentication = this.dir.resolve("authentication.yaml");
		try {
			// anonymous requests only for the health endpoints (the test server's
			// readiness check asks /readyz without credentials)
			java.nio.file.Files.writeString(authentication, """
					apiVersion: apiserver.config.k8s.io/v1beta1
					kind: AuthenticationConfiguration
					anonymous:
					  enabled: true
					  conditions:
					  - path: /livez
					  - path: /readyz
					  - path: /healthz
					""");
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
		try (LocalApiServer hardened = new LocalApiServer(
				LocalApiServer.Options.defaults().withFlags("--authentication-config=" + authentication))
			.start(); FaultProxy proxy = FaultProxy.startFor(hardened.serverUrl())) {
			hardened.createNamespace("lw-h2-hardened");
			Path kubeconfig = proxy.kubeconfigFor(hardened.kubeconfig(), this.dir.resolve("kubeconfig-hardened"));
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
						RestClientAutoConfiguration.class, ListwatchAutoConfiguration.class))
				.withBean(EventRecorder.class)
				.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.connection.http2=true",
						"listwatch.defaults.initial-backoff=100ms", "listwatch.defaults.max-backoff=500ms",
						"listwatch.watches.cms.api-version=v1", "listwatch.watches.cms.kind=ConfigMap",
						"listwatch.watches.cms.namespace=lw-h2-hardened", "listwatch.watches.secrets.api-version=v1",
						"listwatch.watches.secrets.kind=Secret", "listwatch.watches.secrets.namespace=lw-h2-hardened")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					Informer<?> informer = context.getBean("cmsInformer", Informer.class);
					Informer<?> secrets = context.getBean("secretsInformer", Informer.class);
					EventRecorder recorder = context.getBean(EventRecorder.class);
					await().atMost(Duration.ofSeconds(60))
						.until(() -> informer.status().synced() && secrets.status().synced());
					int accepted = proxy.connectionsAccepted();
					long cuts = informer.status().restarts(WatchStatus.RestartReason.DISCONNECTED);
					secrets.stop();
					ApiWriter writer = hardened.writer();
					for (int i = 0; i < 20; i++) {
						writer.create("/api/v1/namespaces/lw-h2-hardened/configmaps",
								ApiWriter.configMap("lw-h2-hardened", "after-stop-" + i, "k", "v"));
					}
					await().atMost(Duration.ofSeconds(60))
						.until(() -> added(recorder).stream()
							.filter((key) -> key.contains("after-stop-"))
							.count() == 20);
					// a new request still finds the connection open (after a GOAWAY it
					// would go to a new one)
					context.getBean(ApiServerClient.class)
						.exchangeJson(HttpMethod.GET, "/api/v1/namespaces/lw-h2-hardened/configmaps?limit=1", null);
					assertThat(informer.status().restarts(WatchStatus.RestartReason.DISCONNECTED))
						.as("watches broken after another watch stopped")
						.isEqualTo(cuts);
					assertThat(proxy.connectionsAccepted()).as("connections after the stop").isEqualTo(accepted);
				});
		}
	}

	@Test
	void aHalfOpenConnectionIsPingedAndReplaced() {
		try (FaultProxy proxy = FaultProxy.startFor(server.serverUrl())) {
			runner(proxy, true).withPropertyValues("listwatch.defaults.idle-timeout=3s").run((context) -> {
				assertThat(context).hasNotFailed();
				Informer<?> informer = context.getBean("cmsInformer", Informer.class);
				EventRecorder recorder = context.getBean(EventRecorder.class);
				await().atMost(Duration.ofSeconds(60)).until(() -> informer.status().synced());
				int accepted = proxy.connectionsAccepted();
				// the connection stays open but carries nothing either way: the restarted
				// watches would hang on it too, until the ping finds it dead
				assertThat(proxy.stallAll()).isPositive();
				Set<String> during = write("stalled");
				await().atMost(Duration.ofSeconds(90)).until(() -> added(recorder).containsAll(during));
				assertThat(informer.status().restarts(WatchStatus.RestartReason.IDLE)).isPositive();
				assertThat(informer.status().relists()).isZero();
				assertThat(proxy.connectionsAccepted() - accepted).as("connections after the stall").isBetween(1, 2);
			});
		}
	}

	@Test
	void watchesPastTheServersStreamLimitGoOnHttp1() {
		int limit = 20;
		try (LocalApiServer limited = new LocalApiServer(
				LocalApiServer.Options.defaults().withFlags("--http2-max-streams-per-connection=" + limit))
			.start(); FaultProxy proxy = FaultProxy.startFor(limited.serverUrl())) {
			ApiWriter writer = limited.writer();
			for (int i = 0; i < NAMESPACES; i++) {
				limited.createNamespace("lw-h2-" + i);
			}
			Path kubeconfig = proxy.kubeconfigFor(limited.kubeconfig(), this.dir.resolve("kubeconfig-limited"));
			// HTTP/2 asked for: before Java 24 it is off by default
			List<String> properties = new ArrayList<>(
					List.of("listwatch.kubeconfig=" + kubeconfig, "listwatch.connection.http2=true",
							"listwatch.defaults.initial-backoff=100ms", "listwatch.defaults.max-backoff=500ms",
							"listwatch.watches.cms.api-version=v1", "listwatch.watches.cms.kind=ConfigMap"));
			for (int i = 0; i < NAMESPACES; i++) {
				properties.add("listwatch.watches.cms.namespaces[" + i + "]=lw-h2-" + i);
			}
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
						RestClientAutoConfiguration.class, ListwatchAutoConfiguration.class))
				.withBean(EventRecorder.class)
				.withPropertyValues(properties.toArray(String[]::new))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					Informer<?> informer = context.getBean("cmsInformer", Informer.class);
					EventRecorder recorder = context.getBean(EventRecorder.class);
					await().atMost(Duration.ofSeconds(60)).until(() -> informer.status().synced());
					Set<String> keys = new HashSet<>();
					for (int i = 0; i < NAMESPACES; i++) {
						writer.create("/api/v1/namespaces/lw-h2-" + i + "/configmaps",
								ApiWriter.configMap("lw-h2-" + i, "limited", "k", "v"));
						keys.add("lw-h2-" + i + "/limited");
					}
					await().atMost(Duration.ofSeconds(60)).until(() -> added(recorder).containsAll(keys));
					// the first connection carries as many streams as the server allows,
					// and
					// each watch past them a connection of its own (HTTP/1.1)
					assertThat(proxy.openConnections()).isBetween(1 + NAMESPACES - limit, 2 + NAMESPACES - limit + 2);
					assertThat(informer.status().relists()).isZero();
				});
		}
	}

	@Test
	void onHttp1EachWatchHoldsAConnection() {
		try (FaultProxy proxy = FaultProxy.startFor(server.serverUrl())) {
			runner(proxy, false).run((context) -> {
				assertThat(context).hasNotFailed();
				Informer<?> informer = context.getBean("cmsInformer", Informer.class);
				await().atMost(Duration.ofSeconds(60)).until(() -> informer.status().synced());
				await().atMost(Duration.ofSeconds(30)).until(() -> proxy.openConnections() >= NAMESPACES);
			});
		}
	}

	private ApplicationContextRunner runner(FaultProxy proxy, boolean http2) {
		Path kubeconfig = proxy.kubeconfigFor(server.kubeconfig(), this.dir.resolve("kubeconfig-" + http2));
		List<String> properties = new ArrayList<>(
				List.of("listwatch.kubeconfig=" + kubeconfig, "listwatch.connection.http2=" + http2,
						"listwatch.defaults.initial-backoff=100ms", "listwatch.defaults.max-backoff=500ms",
						"listwatch.watches.cms.api-version=v1", "listwatch.watches.cms.kind=ConfigMap"));
		for (int i = 0; i < NAMESPACES; i++) {
			properties.add("listwatch.watches.cms.namespaces[" + i + "]=lw-h2-" + i);
		}
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class))
			.withBean(EventRecorder.class)
			.withPropertyValues(properties.toArray(String[]::new));
	}

	/** Creates {@value #PER_NAMESPACE} ConfigMaps in each namespace, directly. */
	private static Set<String> write(String prefix) {
		ApiWriter writer = server.writer();
		Set<String> keys = new HashSet<>();
		for (int j = 0; j < PER_NAMESPACE; j++) {
			for (int i = 0; i < NAMESPACES; i++) {
				String namespace = "lw-h2-" + i;
				String name = prefix + "-" + j;
				writer.create("/api/v1/namespaces/" + namespace + "/configmaps",
						ApiWriter.configMap(namespace, name, "k", "v"));
				keys.add(namespace + "/" + name);
			}
		}
		return keys;
	}

	/** The keys of the objects added after the initial list, once per event. */
	private static List<String> added(EventRecorder recorder) {
		return recorder.changes()
			.stream()
			.filter((event) -> event.type() == ResourceEvent.Type.ADDED)
			.map(ResourceEvent::key)
			.toList();
	}

}
