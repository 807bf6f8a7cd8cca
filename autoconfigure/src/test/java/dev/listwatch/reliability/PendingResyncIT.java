package dev.listwatch.reliability;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.Resource;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStream;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.ConnectionOptions;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A watch stopped with a resync pending (after an {@link Error} on its thread) and
 * started again, on the real API server: the resync lists at no older than the cache's
 * resourceVersion ({@code resourceVersionMatch=NotOlderThan}, as client-go), never at
 * {@code resourceVersion=0} (any state, which an API server that lags would answer from
 * the past), and the cache ends exact. With a paged list and with a streaming list.
 */
class PendingResyncIT {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@TempDir
	Path dir;

	@ParameterizedTest(name = "streaming list: {0}")
	@ValueSource(booleans = { false, true })
	void aResyncLeftPendingAtAStopListsNotOlderThanTheCacheAndCatchesUp(boolean streaming) throws InterruptedException {
		LocalApiServer server = LocalApiServer.shared();
		String ns = server.createNamespace(streaming ? "lw-pending-resync-stream" : "lw-pending-resync-list");
		String path = "/api/v1/namespaces/" + ns + "/configmaps";
		ApiWriter writer = server.writer();
		writer.create(path, ApiWriter.configMap(ns, "a", "v", "0"));
		List<ResourceEvent<?>> events = new CopyOnWriteArrayList<>();
		try (ApiServerClient client = client(server.kubeconfig());
				InformerFactory factory = new InformerFactory(Clock.systemUTC(), (event) -> {
					if (event instanceof ResourceEvent<?> resourceEvent) {
						events.add(resourceEvent);
					}
				}, 1, Duration.ofSeconds(1))) {
			Failing configMaps = new Failing(
					client.listerWatcher(new ApiServerClient.Target("v1", "ConfigMap", null, ns),
							KubernetesObject.class, ApiServerClient.Decoding.DEFAULTS));
			InformerOptions options = new InformerOptions(null, null, 500L, streaming, Duration.ofMinutes(5),
					Duration.ofMinutes(10), Duration.ofSeconds(90),
					new InformerOptions.BackoffPolicy(Duration.ofMillis(50), Duration.ofMillis(200), 2.0, 0.0,
							Duration.ofMinutes(2)),
					null, true);
			Informer<KubernetesObject> informer = factory.informer("pending", KubernetesObject.class, configMaps,
					options, List.of());
			try {
				informer.start();
				assertThat(informer.awaitSynced(WAIT)).isTrue();
				writer.patch(path + "/a", "{\"data\":{\"v\":\"1\"}}");
				await().atMost(WAIT)
					.until(() -> informer.lister()
						.get(ns, "a")
						.map((cm) -> cm.at("/data/v").asString())
						.filter("1"::equals)
						.isPresent());
				// an Error on the watch's thread: it must resync, and every sync fails
				// until the stop
				configMaps.refuseSyncs = true;
				configMaps.throwOnNextEvent = true;
				String cached = informer.status().lastResourceVersion();
				writer.patch(path + "/a", "{\"data\":{\"v\":\"2\"}}");
				await().atMost(WAIT)
					.until(() -> informer.status().state() == WatchStatus.State.FAILED && configMaps.refused > 0);
				informer.stop();
				assertThat(informer.status().lastResourceVersion()).isEqualTo(cached);
				writer.create(path, ApiWriter.configMap(ns, "b", "v", "0"));
				configMaps.refuseSyncs = false;
				int before = configMaps.syncs.size();
				informer.start();
				await().atMost(WAIT)
					.until(() -> informer.lister().get(ns, "b").isPresent()
							&& informer.status().state() == WatchStatus.State.WATCHING);
				ListOptions relist = configMaps.syncs.get(before);
				assertThat(relist.sendInitialEvents()).isEqualTo(streaming ? true : null);
				assertThat(relist.resourceVersion()).as("the cache's: none older than it").isEqualTo(cached);
				assertThat(relist.resourceVersionMatch()).isEqualTo(ListOptions.NOT_OLDER_THAN);
				assertThat(informer.lister().get(ns, "a").map((cm) -> cm.at("/data/v").asString())).contains("2");
				assertThat(events.stream().filter((e) -> !e.initialList()).map((e) -> e.type() + " " + e.key()))
					.containsExactlyInAnyOrder("MODIFIED " + ns + "/a", "MODIFIED " + ns + "/a", "ADDED " + ns + "/b");
				assertThat(informer.status().streamingList()).isEqualTo(streaming);
				assertThat(informer.status().relists()).as("not a 410").isZero();
			}
			finally {
				informer.stop();
			}
		}
	}

	private ApiServerClient client(Path kubeconfig) {
		return ApiServerClient.create(Cluster.load(ConnectionOptions.builder()
			.kubeconfig(kubeconfig.toString())
			.environment(Map.of())
			.homeDirectory(this.dir)
			.serviceAccountDirectory(this.dir)
			.build()), RestClient.builder(), JsonMapper.shared(), Clock.systemUTC());
	}

	/**
	 * The real lister-watcher, recording the options of each sync (a list, or a streaming
	 * list); on demand the next event read throws an {@link Error} (as user code on the
	 * watch's thread may), and syncs fail before they reach the server.
	 */
	private static final class Failing implements ListerWatcher<KubernetesObject> {

		private final ListerWatcher<KubernetesObject> delegate;

		final List<ListOptions> syncs = new CopyOnWriteArrayList<>();

		volatile boolean throwOnNextEvent;

		volatile boolean refuseSyncs;

		volatile int refused;

		Failing(ListerWatcher<KubernetesObject> delegate) {
			this.delegate = delegate;
		}

		@Override
		public ObjectList<KubernetesObject> list(ListOptions options) {
			if (options.continueToken() == null) {
				sync(options);
			}
			return this.delegate.list(options);
		}

		@Override
		public WatchStream<KubernetesObject> watch(ListOptions options) {
			if (Boolean.TRUE.equals(options.sendInitialEvents())) {
				sync(options);
			}
			WatchStream<KubernetesObject> stream = this.delegate.watch(options);
			return new WatchStream<>() {

				@Override
				public boolean hasNext() {
					return stream.hasNext();
				}

				@Override
				public WatchEvent<KubernetesObject> next() {
					WatchEvent<KubernetesObject> event = stream.next();
					if (event.type() != WatchEvent.Type.BOOKMARK && Failing.this.throwOnNextEvent) {
						Failing.this.throwOnNextEvent = false;
						throw new NoClassDefFoundError("scripted");
					}
					return event;
				}

				@Override
				public boolean hasBuffered() {
					return stream.hasBuffered();
				}

				@Override
				public void close() {
					stream.close();
				}

			};
		}

		private void sync(ListOptions options) {
			if (this.refuseSyncs) {
				this.refused++;
				throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION, "refused (scripted)", null);
			}
			this.syncs.add(options);
		}

		@Override
		public Resource resource() {
			return this.delegate.resource();
		}

	}

}
