package dev.listwatch.informer;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.Resource;
import dev.listwatch.Status;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.WatchStream;
import dev.listwatch.event.WatchStateChangedEvent;
import dev.listwatch.event.WatchStateChangedEvent.State;
import dev.listwatch.informer.InformerTests.Script;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@link WatchStateChangedEvent}s of an {@link Informer} over a scripted
 * lister-watcher that fails on demand: one per transition, never one per retry, and the
 * policy for refusals that retrying will not mend.
 */
class WatchStateEventsTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final List<WatchStateChangedEvent> events = new CopyOnWriteArrayList<>();

	private final InformerFactory factory = new InformerFactory(Clock.systemUTC(), (event) -> {
		if (event instanceof WatchStateChangedEvent state) {
			this.events.add(state);
		}
	}, 1, Duration.ofMillis(100));

	private final List<Informer<String>> informers = new ArrayList<>();

	@AfterEach
	void stop() {
		this.informers.forEach(Informer::stop);
		this.factory.close();
	}

	@Test
	void aWatchThatFailsAgainAndAgainPublishesFailingOnceThenRecoveredOnce() {
		Flaky flaky = new Flaky(new Script().list("10", "a@1"));
		for (int i = 0; i < 3; i++) {
			flaky.watchFailures.add(failure(503, "ServiceUnavailable"));
		}
		Informer<String> informer = informer("things", flaky, InformerTests.options());
		informer.start();
		await().atMost(WAIT).until(() -> states().contains(State.RECOVERED));
		flaky.script.watch();
		assertThat(flaky.watchCalls.get()).as("three refused, the fourth open").isEqualTo(4);
		assertThat(states()).containsExactly(State.SYNCED, State.FAILING, State.RECOVERED);
		WatchStateChangedEvent failing = this.events.get(1);
		assertThat(failing.previous()).isEqualTo(State.SYNCED);
		assertThat(failing.watch()).isEqualTo("things");
		assertThat(failing.reason()).isEqualTo(RestartReason.SERVER_ERROR);
		assertThat(failing.lastError().code()).isEqualTo(503);
		assertThat(failing.status().failingSince()).isNotNull();
		WatchStateChangedEvent recovered = this.events.get(2);
		assertThat(recovered.previous()).isEqualTo(State.FAILING);
		assertThat(recovered.lastError().code()).isEqualTo(503);
		assertThat(recovered.status().failingSince()).isNull();
		// a relist after 410 is a sync: SYNCED again, and no failure
		flaky.script.watch()
			.send(new WatchEvent<>(WatchEvent.Type.ERROR, null, null, new Status(410, "Expired", "too old"), false));
		await().atMost(WAIT).until(() -> this.events.size() == 4);
		assertThat(states()).containsExactly(State.SYNCED, State.FAILING, State.RECOVERED, State.SYNCED);
		assertThat(this.events.get(3).reason()).isNull();
		assertThat(this.events.get(3).lastError()).isNull();
	}

	@Test
	void stoppedIsPublishedBeforeTheStopCompletes() {
		Informer<String> informer = informer("things", new Flaky(new Script().list("10", "a@1")),
				InformerTests.options());
		informer.start();
		await().atMost(WAIT).until(() -> states().contains(State.SYNCED));
		informer.stop();
		assertThat(states()).containsExactly(State.SYNCED, State.STOPPED);
		WatchStateChangedEvent stopped = this.events.get(1);
		assertThat(stopped.previous()).isEqualTo(State.SYNCED);
		assertThat(stopped.status().state()).isEqualTo(WatchStatus.State.STOPPED);
		assertThat(stopped.status().running()).isFalse();
	}

	@Test
	void byDefaultARefusalIsRetriedAndTheSyncThatFollowsRecovers() {
		Flaky flaky = new Flaky(new Script().list("10", "a@1"));
		flaky.listFailures.add(failure(403, "Forbidden"));
		flaky.listFailures.add(failure(403, "Forbidden"));
		Informer<String> informer = informer("things", flaky, InformerTests.options());
		informer.start();
		await().atMost(WAIT).until(() -> states().contains(State.SYNCED));
		assertThat(states()).containsExactly(State.FAILING, State.RECOVERED, State.SYNCED);
		assertThat(this.events.get(0).previous()).isNull();
		assertThat(this.events.get(0).reason()).isEqualTo(RestartReason.FORBIDDEN);
		assertThat(flaky.listCalls.get()).isEqualTo(3);
		assertThat(informer.status().state()).isEqualTo(WatchStatus.State.WATCHING);
	}

	@Test
	void underOnRefusalFailARefusalPublishesFailedAndEndsTheWatch() {
		Flaky flaky = new Flaky(new Script().list("10", "a@1"));
		flaky.refuseAll = failure(403, "Forbidden");
		Informer<String> informer = informer("things", flaky,
				InformerTests.options().withOnRefusal(InformerOptions.OnRefusal.FAIL));
		informer.start();
		await().atMost(WAIT).until(() -> states().contains(State.FAILED));
		assertThat(states()).as("failing and failed at once: FAILED alone").containsExactly(State.FAILED);
		WatchStateChangedEvent failed = this.events.get(0);
		assertThat(failed.previous()).isNull();
		assertThat(failed.reason()).isEqualTo(RestartReason.FORBIDDEN);
		assertThat(failed.lastError().code()).isEqualTo(403);
		assertThat(failed.lastError().message()).contains("403 Forbidden");
		assertThat(failed.status().state()).isEqualTo(WatchStatus.State.FAILED);
		WatchStatus status = informer.status();
		assertThat(status.state()).isEqualTo(WatchStatus.State.FAILED);
		assertThat(status.running()).as("started and not stopped").isTrue();
		assertThat(status.lastError().code()).isEqualTo(403);
		informer.stop();
		assertThat(flaky.listCalls.get()).as("never retried").isEqualTo(1);
		assertThat(states()).containsExactly(State.FAILED, State.STOPPED);
		assertThat(informer.status().state()).isEqualTo(WatchStatus.State.STOPPED);
		// a start tries again: failing until it makes progress
		flaky.refuseAll = null;
		informer.start();
		await().atMost(WAIT).until(() -> states().contains(State.SYNCED));
		assertThat(states()).containsExactly(State.FAILED, State.STOPPED, State.RECOVERED, State.SYNCED);
		assertThat(informer.status().state()).isEqualTo(WatchStatus.State.WATCHING);
	}

	@Test
	void anotherWatchOfTheFactoryGoesOnWhenOneFails() {
		Flaky refused = new Flaky(new Script().list("10", "a@1"));
		refused.refuseAll = failure(404, "NotFound");
		Informer<String> failing = informer("missing", refused,
				InformerTests.options().withOnRefusal(InformerOptions.OnRefusal.FAIL));
		Informer<String> other = informer("things", new Flaky(new Script().list("10", "a@1")),
				InformerTests.options().withOnRefusal(InformerOptions.OnRefusal.FAIL));
		failing.start();
		other.start();
		await().atMost(WAIT)
			.until(() -> this.events.stream()
				.filter((event) -> event.state() == State.FAILED || event.state() == State.SYNCED)
				.count() == 2);
		assertThat(this.events).filteredOn((event) -> event.state() == State.FAILED)
			.extracting(WatchStateChangedEvent::watch)
			.containsExactly("missing");
		assertThat(other.status().state()).isEqualTo(WatchStatus.State.WATCHING);
	}

	private List<State> states() {
		return this.events.stream().map(WatchStateChangedEvent::state).toList();
	}

	private Informer<String> informer(String name, ListerWatcher<String> listerWatcher, InformerOptions options) {
		Map<String, ListerWatcher<String>> one = new java.util.HashMap<>();
		one.put(null, listerWatcher);
		Informer<String> informer = new Informer<>(name, String.class, one, new Store<>(), options,
				this.factory.runtime());
		this.informers.add(informer);
		return informer;
	}

	private static KubernetesApiException failure(int code, String reason) {
		return KubernetesApiException.of("GET /api/v1/namespaces/ns/things", new Status(code, reason, "scripted"),
				null);
	}

	/** A script whose requests fail as the test asks. */
	static final class Flaky implements ListerWatcher<String> {

		final Script script;

		final ConcurrentLinkedQueue<KubernetesApiException> listFailures = new ConcurrentLinkedQueue<>();

		final ConcurrentLinkedQueue<KubernetesApiException> watchFailures = new ConcurrentLinkedQueue<>();

		volatile KubernetesApiException refuseAll;

		final AtomicInteger listCalls = new AtomicInteger();

		final AtomicInteger watchCalls = new AtomicInteger();

		Flaky(Script script) {
			this.script = script;
		}

		@Override
		public ObjectList<String> list(ListOptions options) {
			this.listCalls.incrementAndGet();
			fail(this.listFailures.poll());
			return this.script.list(options);
		}

		@Override
		public WatchStream<String> watch(ListOptions options) {
			this.watchCalls.incrementAndGet();
			fail(this.watchFailures.poll());
			return this.script.watch(options);
		}

		private void fail(KubernetesApiException next) {
			if (next != null) {
				throw next;
			}
			KubernetesApiException all = this.refuseAll;
			if (all != null) {
				throw all;
			}
		}

		@Override
		public Resource resource() {
			return this.script.resource();
		}

	}

}
