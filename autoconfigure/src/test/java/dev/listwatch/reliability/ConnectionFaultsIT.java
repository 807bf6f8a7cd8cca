package dev.listwatch.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Lister;
import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import dev.listwatch.testsupport.fault.FaultProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A declared watch against a real kube-apiserver through a {@link FaultProxy} that cuts
 * its connections at random points and stalls them, while a writer (straight to the
 * server) creates, changes and deletes ConfigMaps. In the end every listener's view, and
 * the cache, equal the server's list; every delete was delivered; and no fault caused a
 * new LIST.
 */
@ExtendWith(LocalApiServerExtension.class)
class ConnectionFaultsIT {

	private static final Logger logger = LoggerFactory.getLogger(ConnectionFaultsIT.class);

	private static LocalApiServer server;

	@TempDir
	Path dir;

	private FaultProxy proxy;

	@BeforeAll
	static void start(LocalApiServer localApiServer) {
		server = localApiServer;
	}

	@AfterEach
	void closeProxy() {
		if (this.proxy != null) {
			this.proxy.close();
		}
	}

	@ParameterizedTest(name = "streaming list: {0}")
	@ValueSource(booleans = { true, false })
	@Timeout(180)
	void randomCutsAndAStallLoseNoChangeAndCauseNoList(boolean streamingList) throws Exception {
		String namespace = server.createNamespace("lw-faults-" + streamingList);
		String path = "/api/v1/namespaces/" + namespace + "/configmaps";
		ApiWriter writer = server.writer();
		writer.createAll(path,
				IntStream.range(0, 50).mapToObj((i) -> ApiWriter.configMap(namespace, "pre-" + i, "v", "0")).toList(),
				8);
		this.proxy = FaultProxy.startFor(server.serverUrl());
		RequestCounter counter = new RequestCounter(path);
		Recorder recorder = new Recorder();
		runner(namespace, counter, recorder)
			.withPropertyValues("listwatch.defaults.streaming-list=" + streamingList, "listwatch.defaults.page-size=20")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Informer<?> informer = context.getBean("configmapsInformer", Informer.class);
				@SuppressWarnings("unchecked")
				Lister<KubernetesObject> lister = context.getBean("configmapsLister", Lister.class);
				assertThat(informer.awaitSynced(Duration.ofSeconds(30))).isTrue();
				long syncsBefore = counter.fullSyncs();
				// a streaming list, or a list with resourceVersion=0, which the watch
				// cache
				// answers in one page
				assertThat(syncsBefore).isEqualTo(1);
				assertThat(cacheView(lister, namespace)).hasSize(50);

				// faults, at random points, while the writer writes
				AtomicBoolean writing = new AtomicBoolean(true);
				AtomicInteger faults = new AtomicInteger();
				List<String> faultLog = new CopyOnWriteArrayList<>();
				Random random = new Random(20260101L);
				Thread faulter = new Thread(() -> {
					int round = 0;
					while (writing.get()) {
						// reconnecting: a fault now would hit nothing
						await().atMost(Duration.ofSeconds(30))
							.until(() -> this.proxy.openConnections() > 0 || !writing.get());
						if (!writing.get()) {
							break;
						}
						round++;
						int kind = random.nextInt(3);
						int hit;
						if (round == 6) {
							hit = this.proxy.stallAll();
							faultLog.add("stall:" + hit);
						}
						else if (kind == 0) {
							hit = this.proxy.cutAll();
							faultLog.add("cutAll:" + hit);
						}
						else if (kind == 1) {
							hit = this.proxy.cutRandom(random, 0.5);
							faultLog.add("cutRandom:" + hit);
						}
						else {
							hit = this.proxy.cutAfterBytes(random, 4096);
							faultLog.add("cutAfterBytes:" + hit);
						}
						faults.incrementAndGet();
						try {
							Thread.sleep(150 + random.nextInt(350));
						}
						catch (InterruptedException ex) {
							return;
						}
					}
				}, "faulter");
				faulter.start();

				int writes = 0;
				List<String> deleted = new ArrayList<>();
				for (int round = 0; round < 20 && (round < 8 || this.proxy.cuts() < 20); round++) {
					int base = round * 25;
					writer.createAll(path,
							IntStream.range(base, base + 25)
								.mapToObj((i) -> ApiWriter.configMap(namespace, "cm-" + i, "v", "0"))
								.toList(),
							8);
					writes += 25;
					for (int i = base; i < base + 25; i += 2) {
						writer.patch(path + "/cm-" + i, "{\"data\":{\"v\":\"1\"}}");
						writes++;
					}
					for (int i = base; i < base + 25; i += 3) {
						writer.patch(path + "/cm-" + i, "{\"data\":{\"v\":\"2\"}}");
						writes++;
					}
					for (int i = base; i < base + 25; i += 5) {
						writer.delete(path + "/cm-" + i);
						deleted.add(namespace + "/cm-" + i);
						writes++;
					}
					for (int i = round * 5; i < round * 5 + 5 && i < 50; i += 2) {
						writer.delete(path + "/pre-" + i);
						deleted.add(namespace + "/pre-" + i);
						writes++;
					}
					Thread.sleep(400);
				}
				writing.set(false);
				faulter.join();
				// the stalled connection (if the watch was on it) waits for the idle
				// timeout;
				// the rest resume at once

				Map<String, String> expected = serverState(writer, path);
				await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
					assertThat(recorder.liveView()).isEqualTo(expected);
					assertThat(cacheView(lister, namespace)).isEqualTo(expected);
				});
				for (String key : deleted) {
					assertThat(recorder.last.get(key)).as("last event of deleted %s", key)
						.satisfies((event) -> assertThat(event.type()).isEqualTo(ResourceEvent.Type.DELETED));
				}
				assertThat(recorder.outOfOrder).as("events that went back in resourceVersion").isEmpty();
				WatchStatus status = informer.status();
				long syncsDuringFaults = counter.fullSyncs() - syncsBefore;
				long mismatches = mismatches(recorder.liveView(), expected);
				logger
					.info("Faults: {} injected ({} connections cut, {} stalled, {} accepted by the proxy; {}); writes: {} "
							+ "({} objects at the end, {} deleted); events: {}; watch restarts: {}; relists: {}; "
							+ "requests: {} LIST, {} streaming LIST, {} WATCH; LIST/streaming LIST during faults: {}; "
							+ "mismatches: {}", faults.get(), this.proxy.cuts(), this.proxy.stalls(),
							this.proxy.connectionsAccepted(), faultLog, writes, expected.size(), deleted.size(),
							recorder.count.get(), status.restarts(), status.relists(),
							counter.count(RequestCounter.Kind.LIST), counter.count(RequestCounter.Kind.STREAMING_LIST),
							counter.count(RequestCounter.Kind.WATCH), syncsDuringFaults, mismatches);
				assertThat(this.proxy.cuts()).isGreaterThan(5);
				assertThat(status.relists()).isZero();
				assertThat(syncsDuringFaults).as("LISTs caused by disconnects").isZero();
				assertThat(counter.count(RequestCounter.Kind.WATCH)).isGreaterThan(3);
			});
	}

	@Test
	@Timeout(120)
	void aStalledWatchIsDetectedAndReplacedWithinTheIdleTimeout() throws Exception {
		String namespace = server.createNamespace("lw-stall");
		String path = "/api/v1/namespaces/" + namespace + "/configmaps";
		ApiWriter writer = server.writer();
		this.proxy = FaultProxy.startFor(server.serverUrl());
		RequestCounter counter = new RequestCounter(path);
		Recorder recorder = new Recorder();
		runner(namespace, counter, recorder).run((context) -> {
			assertThat(context).hasNotFailed();
			Informer<?> informer = context.getBean("configmapsInformer", Informer.class);
			assertThat(informer.awaitSynced(Duration.ofSeconds(30))).isTrue();
			writer.create(path, ApiWriter.configMap(namespace, "before", "v", "0"));
			await().atMost(Duration.ofSeconds(10)).until(() -> recorder.last.containsKey(namespace + "/before"));
			long syncs = counter.fullSyncs();
			long idleBefore = informer.status().restarts(RestartReason.IDLE);
			int stalled = this.proxy.stallAll();
			assertThat(stalled).isGreaterThanOrEqualTo(1);
			long stalledAt = System.nanoTime();
			writer.create(path, ApiWriter.configMap(namespace, "during", "v", "0"));
			await().atMost(Duration.ofSeconds(20)).until(() -> recorder.last.containsKey(namespace + "/during"));
			Duration recovered = Duration.ofNanos(System.nanoTime() - stalledAt);
			long idleAfter = informer.status().restarts(RestartReason.IDLE);
			logger.info(
					"Stalled {} connection(s); the change made during the stall arrived after {} ms; idle restarts "
							+ "{} -> {}; full syncs during the stall: {}",
					stalled, recovered.toMillis(), idleBefore, idleAfter, counter.fullSyncs() - syncs);
			assertThat(idleAfter).isGreaterThan(idleBefore);
			// idle timeout 3 s, the watchdog looks every 750 ms, then a backoff of at
			// most 1 s
			assertThat(recovered).isLessThan(Duration.ofSeconds(10));
			assertThat(counter.fullSyncs()).as("no LIST to replace a stalled watch").isEqualTo(syncs);
		});
	}

	@Test
	@Timeout(120)
	void aRequestIntoABlackHoleIsAbandonedAndRetried() throws Exception {
		String namespace = server.createNamespace("lw-blackhole");
		String path = "/api/v1/namespaces/" + namespace + "/configmaps";
		ApiWriter writer = server.writer();
		this.proxy = FaultProxy.startFor(server.serverUrl());
		RequestCounter counter = new RequestCounter(path);
		Recorder recorder = new Recorder();
		runner(namespace, counter, recorder).run((context) -> {
			assertThat(context).hasNotFailed();
			Informer<?> informer = context.getBean("configmapsInformer", Informer.class);
			assertThat(informer.awaitSynced(Duration.ofSeconds(30))).isTrue();
			long syncs = counter.fullSyncs();
			// the watch's connection is cut, and the next ones go nowhere
			this.proxy.stallNewConnections(true);
			this.proxy.cutAll();
			await().atMost(Duration.ofSeconds(10)).until(() -> this.proxy.stalls() >= 1);
			// before the path heals, the watch must have given up on the black hole at
			// least once: a second failure in a row after the cut's
			await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().consecutiveFailures() >= 2);
			this.proxy.stallNewConnections(false);
			long healedAt = System.nanoTime();
			writer.create(path, ApiWriter.configMap(namespace, "after", "v", "0"));
			await().atMost(Duration.ofSeconds(45)).until(() -> recorder.last.containsKey(namespace + "/after"));
			Duration recovered = Duration.ofNanos(System.nanoTime() - healedAt);
			logger.info(
					"Black hole: {} connection(s) stalled from the start; the change arrived {} ms after the path "
							+ "healed; restarts {}; full syncs: {}",
					this.proxy.stalls(), recovered.toMillis(), informer.status().restarts(),
					counter.fullSyncs() - syncs);
			assertThat(recovered).isLessThan(Duration.ofSeconds(15));
			assertThat(counter.fullSyncs()).isEqualTo(syncs);
		});
	}

	// ---------------------------------------------------------------- helpers

	private ApplicationContextRunner runner(String namespace, RequestCounter counter, Recorder recorder) {
		Path kubeconfig = this.proxy.kubeconfigFor(server.kubeconfig(), this.dir.resolve("via-proxy.yaml"));
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class))
			.withBean(RequestCounter.class, () -> counter)
			.withBean(Recorder.class, () -> recorder)
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.watches.configmaps.api-version=v1",
					"listwatch.watches.configmaps.kind=ConfigMap",
					"listwatch.watches.configmaps.namespace=" + namespace, "listwatch.defaults.idle-timeout=3s",
					"listwatch.defaults.initial-backoff=100ms", "listwatch.defaults.max-backoff=500ms");
	}

	private static Map<String, String> serverState(ApiWriter writer, String path) {
		JsonNode list = JsonMapper.shared().readTree(writer.get(path));
		Map<String, String> state = new TreeMap<>();
		for (JsonNode item : list.path("items")) {
			JsonNode metadata = item.path("metadata");
			state.put(metadata.path("namespace").asString() + "/" + metadata.path("name").asString(),
					metadata.path("resourceVersion").asString());
		}
		return state;
	}

	private static Map<String, String> cacheView(Lister<KubernetesObject> lister, String namespace) {
		return lister.list(namespace)
			.stream()
			.collect(Collectors.toMap(KubernetesObject::key, KubernetesObject::resourceVersion, (a, b) -> a,
					TreeMap::new));
	}

	private static long mismatches(Map<String, String> actual, Map<String, String> expected) {
		long n = expected.entrySet().stream().filter((e) -> !e.getValue().equals(actual.get(e.getKey()))).count();
		return n + actual.keySet().stream().filter((k) -> !expected.containsKey(k)).count();
	}

	/** Each listener's view: the last event per key, in arrival order. */
	static final class Recorder {

		final Map<String, ResourceEvent<KubernetesObject>> last = new ConcurrentHashMap<>();

		final List<String> outOfOrder = new CopyOnWriteArrayList<>();

		final AtomicInteger count = new AtomicInteger();

		@EventListener
		void on(ResourceEvent<KubernetesObject> event) {
			this.count.incrementAndGet();
			ResourceEvent<KubernetesObject> previous = this.last.put(event.key(), event);
			if (previous != null && Long.parseLong(event.meta().resourceVersion()) < Long
				.parseLong(previous.meta().resourceVersion())) {
				this.outOfOrder.add(previous.type() + " " + previous.meta().resourceVersion() + " then " + event.type()
						+ " " + event.meta().resourceVersion() + " of " + event.key());
			}
		}

		/**
		 * The keys whose last event is not a DELETED, with the resourceVersion of that
		 * event.
		 */
		Map<String, String> liveView() {
			Map<String, String> view = new TreeMap<>();
			this.last.forEach((key, event) -> {
				if (event.type() != ResourceEvent.Type.DELETED) {
					view.put(key, event.meta().resourceVersion());
				}
			});
			return view;
		}

	}

}
