package dev.listwatch.etcd;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import dev.listwatch.WatchEvent;
import dev.listwatch.WatchIndex;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.LocalEtcd;
import dev.listwatch.testsupport.fault.FaultProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The failure paths of etcd watches on a real etcd 3.6 with its DEFAULT progress
 * notification interval (10 minutes): a watch resumed against an etcd that is behind
 * relists instead of stalling; the events of one revision all reach the cache when a stop
 * falls between them; a quiet prefix's watch is not replaced before etcd can tell it
 * (answering its progress requests) that the revision moved, so a compaction costs it no
 * relist; and a watch behind a frozen (half-open) connection is given up once its
 * progress requests go unanswered for the watch timeout
 * ({@code listwatch.defaults.idle-timeout}), and resumed without a relist.
 */
@ExtendWith(OutputCaptureExtension.class)
class EtcdFailurePathsIT {

	private static final Duration WAIT = Duration.ofSeconds(30);

	/** How long a watch may stay silent, progress requests unanswered. */
	private static final Duration WATCH_TIMEOUT = Duration.ofSeconds(3);

	private static LocalEtcd etcd;

	@BeforeAll
	static void start() {
		EtcdWatchIT.protocol = "gateway";
		etcd = new LocalEtcd(LocalEtcd.Options.defaults()).start();
	}

	@AfterAll
	static void stop() {
		if (etcd != null) {
			etcd.close();
		}
	}

	@Test
	void aWatchResumedAgainstAnEtcdThatIsBehindRelistsInsteadOfStalling() {
		try (LocalEtcd own = new LocalEtcd(LocalEtcd.Options.defaults()).start()) {
			for (int i = 0; i < 20; i++) {
				own.put("/behind/a", "{\"v\":" + i + "}");
			}
			EtcdWatchIT.runner(own.endpoint(), "/behind/").run((context) -> {
				assertThat(context.getBean(EtcdClient.class).protocol().name())
					.isEqualToIgnoringCase(EtcdWatchIT.protocol);
				Informer<?> informer = EtcdWatchIT.informer(context);
				await().atMost(WAIT).until(() -> informer.status().synced());
				assertThat(Long.parseLong(informer.status().lastResourceVersion())).isGreaterThan(20);
				// etcd comes back from an empty data dir: revision 1, behind the watch's
				// 21
				own.stopProcess();
				own.wipeData();
				own.start();
				own.put("/behind/x", "{}");
				await().atMost(WAIT).until(() -> EtcdWatchIT.lister(context).get(null, "x").isPresent());
				assertThat(EtcdWatchIT.lister(context).get(null, "a")).as("gone from the fresh etcd").isEmpty();
				assertThat(informer.status().relists()).isPositive();
				// the status follows the cache: the fresh etcd's revision, once it is
				// read
				await().atMost(WAIT).until(() -> Long.parseLong(informer.status().lastResourceVersion()) < 20);
			});
		}
	}

	@Test
	void theEventsOfOneRevisionAllReachTheCacheWhenAStopFallsBetweenThem() {
		AtomicReference<Informer<?>> informer = new AtomicReference<>();
		AtomicBoolean stopped = new AtomicBoolean();
		// stops the watch, on its own thread, right after it applied x, the first event
		// of the txn
		WatchIndex<?> stopOnX = WatchIndex.of("cfg", "stopper", (object, meta) -> {
			if (meta.name().equals("x") && stopped.compareAndSet(false, true)) {
				informer.get().stop(() -> {
				});
			}
			return List.of();
		});
		etcd.put("/txn/a", "{}");
		EtcdWatchIT.runner(etcd.endpoint(), "/txn/")
			.withBean("stopOnX", WatchIndex.class, () -> stopOnX)
			.run((context) -> {
				informer.set(EtcdWatchIT.informer(context));
				await().atMost(WAIT).until(() -> informer.get().status().synced());
				long revision = txnPut("/txn/x", "/txn/y", "/txn/z");
				await().atMost(WAIT).until(() -> stopped.get() && !informer.get().isRunning());
				assertThat(EtcdWatchIT.lister(context).get(null, "x")).isPresent();
				assertThat(EtcdWatchIT.lister(context).get(null, "y")).as("stopped before y").isEmpty();
				informer.get().start();
				await().atMost(WAIT).until(() -> EtcdWatchIT.lister(context).get(null, "z").isPresent());
				assertThat(EtcdWatchIT.lister(context).get(null, "y")).isPresent();
				assertThat(informer.get().status().relists()).isZero();
				assertThat(informer.get().status().lastResourceVersion()).isEqualTo(Long.toString(revision));
				EtcdWatchIT.Recorder recorder = context.getBean(EtcdWatchIT.Recorder.class);
				await().atMost(WAIT).until(() -> informer.get().status().backlog() == 0);
				assertThat(recorder.changes()).as("each change published once, the replay of x not again")
					.extracting(ResourceEvent::key)
					.containsExactlyInAnyOrder("x", "y", "z");
			});
	}

	@Test
	void aQuietPrefixIsNotReplacedBeforeEtcdCanTellItTheRevisionMovedSoACompactionCostsNoRelist() {
		etcd.put("/quiet6/a", "{}");
		// an idle timeout of 1 s: the client asks etcd for progress every third of it,
		// the informer's idle timeout is a backstop a third longer
		EtcdWatchIT.runner(etcd.endpoint(), "/quiet6/", "listwatch.defaults.idle-timeout=1s").run((context) -> {
			Informer<?> informer = EtcdWatchIT.informer(context);
			await().atMost(WAIT).until(() -> informer.status().synced());
			assertThat(context.getBean(EtcdClient.class).watchTimeout()).isEqualTo(Duration.ofSeconds(1));
			assertThat(informer.status().watched().idleTimeout())
				.isEqualTo(Duration.ofSeconds(1).plus(Duration.ofSeconds(1).dividedBy(3)));
			long moved = 0;
			for (int i = 0; i < 5; i++) {
				moved = etcd.put("/elsewhere6/k", "{\"v\":" + i + "}");
			}
			// etcd tells the quiet watch its revision moved within the idle timeout,
			// long before its progress notification (10 minutes here)
			long elsewhere = moved;
			await().atMost(Duration.ofSeconds(2))
				.until(() -> Long.parseLong(informer.status().lastResourceVersion()) >= elsewhere);
			etcd.compact(etcd.revision());
			// several idle timeouts: the watch stays, the compaction does not touch it
			await().during(Duration.ofSeconds(4))
				.atMost(Duration.ofSeconds(10))
				.until(() -> informer.status().relists() == 0 && informer.status().restarts().isEmpty());
			etcd.put("/quiet6/b", "{}");
			await().atMost(WAIT).until(() -> EtcdWatchIT.lister(context).get(null, "b").isPresent());
			assertThat(informer.status().relists()).isZero();
			assertThat(informer.status().restarts()).doesNotContainKey(RestartReason.IDLE)
				.doesNotContainKey(RestartReason.EXPIRED);
		});
	}

	@Test
	void aWatchBehindAFrozenConnectionIsReplacedWithinTheTimeoutWithoutARelist(CapturedOutput output) {
		try (FaultProxy proxy = FaultProxy.start(etcd.port())) {
			String endpoint = "http://127.0.0.1:" + proxy.port();
			frozen(proxy, "/frozen/", EtcdWatchIT.runner(endpoint, "/frozen/")
				.withBean(EtcdClient.class, () -> client(endpoint, WATCH_TIMEOUT)), output);
		}
	}

	@Test
	void theIdleTimeoutOfThePropertiesIsHowLongAFrozenEtcdWatchLasts(CapturedOutput output) {
		try (FaultProxy proxy = FaultProxy.start(etcd.port())) {
			String endpoint = "http://127.0.0.1:" + proxy.port();
			frozen(proxy, "/frozen-idle/", EtcdWatchIT.runner(endpoint, "/frozen-idle/",
					"listwatch.defaults.idle-timeout=" + WATCH_TIMEOUT.toSeconds() + "s"), output);
		}
	}

	/**
	 * A watch of the prefix, alive and quiet for several timeouts, then frozen: given up
	 * by the client's progress requests within the timeout, resumed without a relist.
	 */
	private void frozen(FaultProxy proxy, String prefix, ApplicationContextRunner runner, CapturedOutput output) {
		etcd.put(prefix + "a", "{}");
		runner.run((context) -> {
			Informer<?> informer = EtcdWatchIT.informer(context);
			await().atMost(WAIT).until(() -> informer.status().synced());
			// alive and quiet, etcd too: several timeouts pass, etcd answers each
			// progress request, the watch stays
			await().during(WATCH_TIMEOUT.multipliedBy(2))
				.atMost(WATCH_TIMEOUT.multipliedBy(3))
				.until(() -> informer.status().restarts().isEmpty());
			assertThat(informer.status().events(WatchEvent.Type.BOOKMARK)).isPositive();
			// etcd moves on elsewhere: the quiet prefix's revision moves with it, long
			// before etcd's progress notification (10 minutes here)
			long elsewhere = etcd.put("/elsewhere" + prefix + "x", "{}");
			await().atMost(WATCH_TIMEOUT)
				.until(() -> Long.parseLong(informer.status().lastResourceVersion()) >= elsewhere);
			// packets dropped both ways, no FIN, no RST: a dead load balancer
			assertThat(proxy.stallAll()).isPositive();
			long frozen = System.nanoTime();
			for (int i = 0; i < 10; i++) {
				etcd.put(prefix + "k" + i, "{}");
			}
			await().atMost(WATCH_TIMEOUT.plusSeconds(5)).until(() -> EtcdWatchIT.lister(context).list().size() == 11);
			System.out.println("etcd " + EtcdWatchIT.protocol + " watch behind a frozen connection caught up in "
					+ Duration.ofNanos(System.nanoTime() - frozen).toMillis() + " ms (timeout " + WATCH_TIMEOUT + ")");
			assertThat(informer.status().relists()).isZero();
			assertThat(informer.status().lists().count()).isEqualTo(1);
			// the client's check gave it up, not the informer's backstop
			assertThat(informer.status().restarts(RestartReason.DISCONNECTED)).isPositive();
			assertThat(informer.status().restarts()).doesNotContainKey(RestartReason.IDLE);
			assertThat(output).contains("no answer from etcd for");
		});
	}

	/** A client whose watches are given up after a short silence. */
	static EtcdClient client(String endpoint, Duration watchTimeout) {
		return EtcdClient.create(
				new EtcdConnection(List.of(URI.create(endpoint)), null, null, null, Duration.ofSeconds(2)),
				JsonMapper.shared(), EtcdClient.Protocol.valueOf(EtcdWatchIT.protocol.toUpperCase(Locale.ROOT)),
				watchTimeout);
	}

	/** Puts several keys in one txn: one revision, several events. */
	private static long txnPut(String... keys) {
		StringBuilder success = new StringBuilder();
		for (String key : keys) {
			if (success.length() > 0) {
				success.append(',');
			}
			success.append("{\"request_put\":{\"key\":\"")
				.append(base64(key))
				.append("\",\"value\":\"")
				.append(base64("{}"))
				.append("\"}}");
		}
		etcd.call("/v3/kv/txn", "{\"success\":[" + success + "]}");
		return etcd.revision();
	}

	private static String base64(String text) {
		return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
	}

}
