package dev.listwatch.reflector;

import dev.listwatch.testsupport.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.random.RandomGenerator;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.ListOptions;
import dev.listwatch.WatchEvent;
import dev.listwatch.reflector.FakeListerWatcher.FakeStream;
import dev.listwatch.reflector.FakeListerWatcher.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.listwatch.reflector.FakeListerWatcher.apiError;
import static dev.listwatch.reflector.FakeListerWatcher.bookmark;
import static dev.listwatch.reflector.FakeListerWatcher.error;
import static dev.listwatch.reflector.FakeListerWatcher.event;
import static dev.listwatch.reflector.FakeListerWatcher.initialEventsEnd;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@link Reflector}'s list-watch semantics against a scripted, in-memory
 * {@link FakeListerWatcher}: which requests it makes, with which options, in which order, and
 * what it hands its handler. No network; backoffs are a few milliseconds.
 */
class ReflectorTests {

	private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

	private static final Duration IDLE = Duration.ofMinutes(3);

	private final FakeListerWatcher listerWatcher = new FakeListerWatcher();

	private final RecordingHandler handler = new RecordingHandler();

	private final MutableClock clock = new MutableClock(T0);

	private Reflector<String> reflector;

	private Thread thread;

	@AfterEach
	void stop() throws InterruptedException {
		if (this.reflector != null) {
			this.reflector.stop();
			this.thread.join(5000);
			assertThat(this.thread.isAlive()).as("the reflector thread ended").isFalse();
		}
	}

	// ---------------------------------------------------------------- list, then watch

	@Test
	void pagedFirstListFromTheWatchCacheThenWatchFromTheListsResourceVersion() {
		this.listerWatcher.page("10", "c1", "a@5", "b@6")
			.page("10", null, "c@7")
			.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "d@11"), bookmark("12"),
					event(WatchEvent.Type.MODIFIED, "a@13"), event(WatchEvent.Type.DELETED, "b@14")));
		start(options(false));
		Request first = this.listerWatcher.nextRequest();
		assertThat(first.watch()).isFalse();
		assertThat(first.options().resourceVersion()).isEqualTo("0");
		assertThat(first.options().limit()).isEqualTo(2L);
		assertThat(first.options().continueToken()).isNull();
		Request second = this.listerWatcher.nextRequest();
		assertThat(second.watch()).isFalse();
		assertThat(second.options().continueToken()).isEqualTo("c1");
		assertThat(second.options().limit()).isEqualTo(2L);
		assertThat(second.options().resourceVersion()).as("the token carries it").isNull();
		Request watch = this.listerWatcher.nextRequest();
		assertThat(watch.watch()).isTrue();
		assertThat(watch.options().resourceVersion()).isEqualTo("10");
		assertThat(watch.options().allowWatchBookmarks()).isTrue();
		assertThat(watch.options().sendInitialEvents()).isNull();
		assertThat(watch.options().resourceVersionMatch()).isNull();
		assertThat(watch.options().timeout()).isBetween(Duration.ofMinutes(5), Duration.ofMinutes(10));
		assertThat(nextCalls(4)).containsExactly("replace initial=true [a@5, b@6, c@7]", "ADDED d@11", "MODIFIED a@13",
				"DELETED b@14");
		await().untilAsserted(() -> {
			ReflectorStatus.Snapshot status = this.reflector.status().snapshot();
			assertThat(status.lastResourceVersion()).isEqualTo("14");
			assertThat(status.state()).isEqualTo(WatchState.WATCHING);
			assertThat(status.synced()).isTrue();
			assertThat(status.streaming()).isFalse();
			assertThat(status.relists()).isZero();
		});
	}

	@Test
	void watchTimeoutsSpreadOverMinToMax() {
		for (double draw : new double[] { 0.0, 0.5, 0.999999 }) {
			FakeListerWatcher listerWatcher = new FakeListerWatcher().page("1", null);
			Reflector<String> reflector = new Reflector<>("things", listerWatcher, new RecordingHandler(),
					options(false), this.clock, fixed(draw), new ReflectorStatus(T0));
			Thread thread = new Thread(reflector);
			thread.start();
			try {
				listerWatcher.nextRequest();
				Duration timeout = listerWatcher.nextRequest().options().timeout();
				assertThat(timeout).isBetween(Duration.ofMinutes(5), Duration.ofMinutes(10));
				assertThat(timeout.toMillis()).isEqualTo(300_000L + (long) (draw * 300_000));
			}
			finally {
				reflector.stop();
			}
		}
	}

	// ---------------------------------------------------------------- resume, bookmarks

	@Test
	void aDroppedConnectionResumesFromTheLastResourceVersionWithoutAList() {
		this.listerWatcher.page("10", null, "a@5")
			.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "b@11")).breaks())
			.stream(new FakeStream().events(event(WatchEvent.Type.MODIFIED, "b@12")).ends());
		start(options(false));
		assertThat(this.listerWatcher.nextRequest().watch()).isFalse();
		assertThat(this.listerWatcher.nextRequest().options().resourceVersion()).isEqualTo("10");
		Request resumed = this.listerWatcher.nextRequest();
		assertThat(resumed.watch()).isTrue();
		assertThat(resumed.options().resourceVersion()).isEqualTo("11");
		Request afterServerTimeout = this.listerWatcher.nextRequest();
		assertThat(afterServerTimeout.watch()).isTrue();
		assertThat(afterServerTimeout.options().resourceVersion()).isEqualTo("12");
		assertThat(nextCalls(3)).containsExactly("replace initial=true [a@5]", "ADDED b@11", "MODIFIED b@12");
		assertThat(this.listerWatcher.listCount()).isEqualTo(1);
		await().untilAsserted(() -> {
			ReflectorStatus.Snapshot status = this.reflector.status().snapshot();
			assertThat(status.relists()).isZero();
			assertThat(status.restarts()).containsEntry("disconnected", 1L).containsEntry("ended", 1L);
		});
	}

	@Test
	void aFailedWatchOpenRetriesTheWatchWithoutAList() {
		this.listerWatcher.page("10", null, "a@5")
			.watchFails(apiError(500, "InternalError", null))
			.watchFails(FakeListerWatcher.disconnected());
		start(options(false));
		this.listerWatcher.nextRequest();
		for (int i = 0; i < 3; i++) {
			Request watch = this.listerWatcher.nextRequest();
			assertThat(watch.watch()).isTrue();
			assertThat(watch.options().resourceVersion()).isEqualTo("10");
		}
		assertThat(this.listerWatcher.listCount()).isEqualTo(1);
		assertThat(this.handler.calls).containsExactly("replace initial=true [a@5]");
	}

	@Test
	void aBookmarkOnlyAdvancesTheResourceVersion() {
		this.listerWatcher.page("10", null, "a@5")
			.stream(new FakeStream().events(bookmark("20"), bookmark("25")).ends());
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		Request next = this.listerWatcher.nextRequest();
		assertThat(next.watch()).isTrue();
		assertThat(next.options().resourceVersion()).isEqualTo("25");
		assertThat(this.handler.calls).containsExactly("replace initial=true [a@5]");
		assertThat(this.reflector.status().snapshot().events()).containsEntry(WatchEvent.Type.BOOKMARK, 2L);
	}

	// ---------------------------------------------------------------- 410 Gone

	@Test
	void anExpiredErrorEventRelistsFreshAndReplacesAsNotInitial() {
		this.listerWatcher.page("10", null, "a@5", "b@6")
			.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "c@11"),
					error(410, "Expired", "too old resource version: 10 (30)")))
			.page("30", null, "a@5", "c@29");
		start(options(false));
		assertThat(this.listerWatcher.nextRequest().options().resourceVersion()).isEqualTo("0");
		this.listerWatcher.nextRequest();
		Request relist = this.listerWatcher.nextRequest();
		assertThat(relist.watch()).isFalse();
		assertThat(relist.options().resourceVersion()).as("a relist after 410 is consistent, not from the cache")
			.isNull();
		assertThat(relist.options().limit()).isEqualTo(2L);
		Request watch = this.listerWatcher.nextRequest();
		assertThat(watch.watch()).isTrue();
		assertThat(watch.options().resourceVersion()).isEqualTo("30");
		assertThat(nextCalls(3)).containsExactly("replace initial=true [a@5, b@6]", "ADDED c@11",
				"replace initial=false [a@5, c@29]");
		assertThat(this.reflector.status().snapshot().relists()).isEqualTo(1);
		assertThat(this.reflector.status().snapshot().restarts()).containsEntry("expired", 1L);
	}

	@Test
	void goneAtWatchOpenRelists() {
		this.listerWatcher.page("10", null, "a@5")
			.watchFails(apiError(410, "Gone", null))
			.page("40", null, "b@39");
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		Request relist = this.listerWatcher.nextRequest();
		assertThat(relist.watch()).isFalse();
		assertThat(relist.options().resourceVersion()).isNull();
		assertThat(this.listerWatcher.nextRequest().options().resourceVersion()).isEqualTo("40");
		assertThat(nextCalls(2)).containsExactly("replace initial=true [a@5]", "replace initial=false [b@39]");
	}

	@Test
	void anExpiredContinueTokenFallsBackToOneFullList() {
		this.listerWatcher.page("10", "c1", "a@5", "b@6")
			.listFails(apiError(410, "Expired", null))
			.page("12", null, "a@5", "b@6", "c@12");
		start(options(false));
		this.listerWatcher.nextRequest();
		assertThat(this.listerWatcher.nextRequest().options().continueToken()).isEqualTo("c1");
		Request full = this.listerWatcher.nextRequest();
		assertThat(full.watch()).isFalse();
		assertThat(full.options().continueToken()).isNull();
		assertThat(full.options().limit()).isNull();
		assertThat(full.options().resourceVersion()).isNull();
		Request watch = this.listerWatcher.nextRequest();
		assertThat(watch.watch()).isTrue();
		assertThat(watch.options().resourceVersion()).isEqualTo("12");
		assertThat(this.handler.next()).isEqualTo("replace initial=true [a@5, b@6, c@12]");
		assertThat(this.reflector.status().snapshot().relists()).isZero();
	}

	// ---------------------------------------------------------------- streaming lists

	@Test
	void aStreamingListFillsTheHandlerOnceAtTheInitialEventsEndBookmark() {
		this.listerWatcher.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "a@5"),
				event(WatchEvent.Type.ADDED, "b@6"), event(WatchEvent.Type.MODIFIED, "a@7"), bookmark("7"),
				initialEventsEnd("8"), event(WatchEvent.Type.MODIFIED, "b@9"))
			.breaks());
		start(options(true));
		Request streaming = this.listerWatcher.nextRequest();
		assertThat(streaming.watch()).isTrue();
		assertThat(streaming.options().sendInitialEvents()).isTrue();
		assertThat(streaming.options().resourceVersionMatch()).isEqualTo(ListOptions.NOT_OLDER_THAN);
		assertThat(streaming.options().allowWatchBookmarks()).isTrue();
		assertThat(streaming.options().resourceVersion()).isNull();
		Request resumed = this.listerWatcher.nextRequest();
		assertThat(resumed.watch()).isTrue();
		assertThat(resumed.options().sendInitialEvents()).isNull();
		assertThat(resumed.options().resourceVersionMatch()).isNull();
		assertThat(resumed.options().resourceVersion()).isEqualTo("9");
		assertThat(nextCalls(2)).containsExactly("replace initial=true [a@7, b@6]", "MODIFIED b@9");
		assertThat(this.listerWatcher.listCount()).isZero();
		assertThat(this.reflector.status().snapshot().streaming()).isTrue();
	}

	@Test
	void aStreamingListCutBeforeItsEndIsRetriedWithoutPartialState() {
		this.listerWatcher.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "a@5")).breaks())
			.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "a@5"), event(WatchEvent.Type.ADDED, "b@6"),
					initialEventsEnd("8")));
		start(options(true));
		this.listerWatcher.nextRequest();
		Request retried = this.listerWatcher.nextRequest();
		assertThat(retried.options().sendInitialEvents()).isTrue();
		assertThat(this.handler.next()).isEqualTo("replace initial=true [a@5, b@6]");
	}

	@ParameterizedTest
	@CsvSource({ "422, Invalid", "400, BadRequest" })
	void streamingListsRefusedFallBackToListAndWatchForGood(int code, String reason) {
		this.listerWatcher.watchFails(apiError(code, reason, null))
			.page("10", null, "a@5")
			.stream(new FakeStream().events(error(410, "Expired", "too old")))
			.page("20", null, "a@5");
		start(options(true));
		assertThat(this.listerWatcher.nextRequest().options().sendInitialEvents()).isTrue();
		Request list = this.listerWatcher.nextRequest();
		assertThat(list.watch()).isFalse();
		assertThat(list.options().resourceVersion()).isEqualTo("0");
		Request watch = this.listerWatcher.nextRequest();
		assertThat(watch.watch()).isTrue();
		assertThat(watch.options().sendInitialEvents()).isNull();
		assertThat(watch.options().resourceVersion()).isEqualTo("10");
		Request relist = this.listerWatcher.nextRequest();
		assertThat(relist.watch()).as("the relist after 410 does not try streaming again").isFalse();
		Request watchAgain = this.listerWatcher.nextRequest();
		assertThat(watchAgain.options().sendInitialEvents()).isNull();
		assertThat(watchAgain.options().resourceVersion()).isEqualTo("20");
		assertThat(nextCalls(2)).containsExactly("replace initial=true [a@5]", "replace initial=false [a@5]");
		assertThat(this.listerWatcher.requests.stream().filter((r) -> r.options().sendInitialEvents() != null))
			.hasSize(1);
	}

	@Test
	void aStreamingRelistAfterGoneStartsFromTheNewestState() {
		this.listerWatcher.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "a@5"), initialEventsEnd("8"),
				error(410, "Expired", "too old")))
			.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "b@9"), initialEventsEnd("10")));
		start(options(true));
		this.listerWatcher.nextRequest();
		Request relist = this.listerWatcher.nextRequest();
		assertThat(relist.options().sendInitialEvents()).isTrue();
		assertThat(relist.options().resourceVersion()).isNull();
		assertThat(nextCalls(2)).containsExactly("replace initial=true [a@5]", "replace initial=false [b@9]");
	}

	// ---------------------------------------------------------------- backoff

	@Test
	void retryAfterIsHonouredBeforeTheNextAttempt() {
		Duration retryAfter = Duration.ofMillis(300);
		this.listerWatcher.listFails(apiError(429, "TooManyRequests", retryAfter)).page("10", null, "a@5");
		start(options(false));
		Request throttled = this.listerWatcher.nextRequest();
		Request retried = this.listerWatcher.nextRequest();
		assertThat(Duration.ofNanos(retried.nanos() - throttled.nanos())).isGreaterThanOrEqualTo(retryAfter);
		assertThat(this.handler.next()).isEqualTo("replace initial=true [a@5]");
		assertThat(this.reflector.status().snapshot().restarts()).containsEntry("throttled", 1L);
	}

	@Test
	void failuresBackOffExponentially() {
		// no scripted pages: every list fails as a refused connection
		ReflectorOptions options = withBackoff(options(false),
				new Backoff.Settings(Duration.ofMillis(40), Duration.ofSeconds(30), 2.0, 0.0, Duration.ofMinutes(2)));
		start(options);
		Request previous = this.listerWatcher.nextRequest();
		long expected = 40;
		for (int i = 0; i < 3; i++) {
			Request next = this.listerWatcher.nextRequest();
			assertThat(Duration.ofNanos(next.nanos() - previous.nanos())).isGreaterThanOrEqualTo(Duration.ofMillis(expected));
			previous = next;
			expected *= 2;
		}
		ReflectorStatus.Snapshot status = this.reflector.status().snapshot();
		assertThat(status.consecutiveFailures()).isGreaterThanOrEqualTo(3);
		assertThat(status.lastError().reason()).isEqualTo("CONNECTION");
		assertThat(status.synced()).isFalse();
	}

	@Test
	void aWatchThatDeliveredBeforeItsConnectionBrokeStartsTheBackoffOver() {
		// without starting over the waits would be 20 ms, 2 s, 30 s
		ReflectorOptions options = withBackoff(options(false),
				new Backoff.Settings(Duration.ofMillis(20), Duration.ofSeconds(30), 100.0, 0.0, Duration.ofMinutes(2)));
		this.listerWatcher.page("10", null, "a@5");
		for (int i = 0; i < 4; i++) {
			this.listerWatcher.stream(new FakeStream().events(event(WatchEvent.Type.MODIFIED, "a@" + (11 + i))).breaks());
		}
		start(options);
		this.listerWatcher.nextRequest();
		Request previous = this.listerWatcher.nextRequest();
		for (int i = 0; i < 3; i++) {
			Request next = this.listerWatcher.nextRequest();
			assertThat(next.options().resourceVersion()).isEqualTo(String.valueOf(11 + i));
			assertThat(Duration.ofNanos(next.nanos() - previous.nanos())).isGreaterThanOrEqualTo(Duration.ofMillis(20))
				.isLessThan(Duration.ofMillis(1500));
			previous = next;
		}
		assertThat(this.listerWatcher.listCount()).isEqualTo(1);
	}

	@Test
	void aWatchThatEndsAtOnceDoesNotBecomeATightLoop() {
		ReflectorOptions options = withBackoff(options(false),
				new Backoff.Settings(Duration.ofMillis(50), Duration.ofSeconds(30), 2.0, 0.0, Duration.ofMinutes(2)));
		this.listerWatcher.page("10", null, "a@5");
		for (int i = 0; i < 3; i++) {
			this.listerWatcher.stream(new FakeStream().ends());
		}
		start(options);
		this.listerWatcher.nextRequest();
		Request previous = this.listerWatcher.nextRequest();
		for (int i = 0; i < 3; i++) {
			Request next = this.listerWatcher.nextRequest();
			assertThat(Duration.ofNanos(next.nanos() - previous.nanos())).isGreaterThanOrEqualTo(Duration.ofMillis(50));
			previous = next;
		}
	}

	// ---------------------------------------------------------------- idle watches

	@Test
	void checkIdleClosesASilentWatchAndTheLoopResumesWithoutAList() {
		this.listerWatcher.page("10", null, "a@5");
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		await().until(() -> this.listerWatcher.opened.size() == 1);
		FakeStream silent = this.listerWatcher.opened.get(0);
		assertThat(this.reflector.checkIdle(T0.plus(IDLE))).isFalse();
		await().until(() -> this.reflector.checkIdle(T0.plus(IDLE).plusSeconds(1)));
		assertThat(silent.isClosed()).isTrue();
		Request resumed = this.listerWatcher.nextRequest();
		assertThat(resumed.watch()).isTrue();
		assertThat(resumed.options().resourceVersion()).isEqualTo("10");
		assertThat(this.listerWatcher.listCount()).isEqualTo(1);
		await().untilAsserted(
				() -> assertThat(this.reflector.status().snapshot().restarts()).containsEntry("idle", 1L));
	}

	@Test
	void anyEventEvenABookmarkKeepsAWatchAlive() {
		this.listerWatcher.page("10", null, "a@5");
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		await().until(() -> this.listerWatcher.opened.size() == 1);
		FakeStream stream = this.listerWatcher.opened.get(0);
		this.clock.advance(Duration.ofMinutes(2));
		stream.events(bookmark("11"));
		await().until(() -> "11".equals(this.reflector.status().snapshot().lastResourceVersion()));
		assertThat(this.reflector.checkIdle(T0.plus(IDLE).plusSeconds(1))).isFalse();
		assertThat(stream.isClosed()).isFalse();
		assertThat(this.reflector.checkIdle(T0.plus(Duration.ofMinutes(2)).plus(IDLE).plusSeconds(1))).isTrue();
		Request resumed = this.listerWatcher.nextRequest();
		assertThat(resumed.options().resourceVersion()).isEqualTo("11");
	}

	// ---------------------------------------------------------------- handler failures, stop

	@Test
	void aHandlerFailureResyncsWithAConsistentList() {
		this.listerWatcher.page("10", null, "a@5")
			.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "b@11")))
			.page("12", null, "a@5", "b@11");
		this.handler.failNextApply = new IllegalStateException("listener bug");
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		Request relist = this.listerWatcher.nextRequest();
		assertThat(relist.watch()).isFalse();
		assertThat(relist.options().resourceVersion()).isNull();
		assertThat(this.listerWatcher.nextRequest().options().resourceVersion()).isEqualTo("12");
		assertThat(nextCalls(2)).containsExactly("replace initial=true [a@5]", "replace initial=false [a@5, b@11]");
	}

	@Test
	void stopEndsTheLoopPromptlyDuringBackoff() throws InterruptedException {
		ReflectorOptions options = withBackoff(options(false),
				new Backoff.Settings(Duration.ofMinutes(10), Duration.ofMinutes(10), 2.0, 0.0, Duration.ofMinutes(2)));
		start(options);
		this.listerWatcher.nextRequest();
		await().until(() -> this.reflector.status().state() == WatchState.BACKOFF);
		long start = System.nanoTime();
		this.reflector.stop();
		this.thread.join(2000);
		assertThat(this.thread.isAlive()).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
		assertThat(this.reflector.status().state()).isEqualTo(WatchState.STOPPED);
		assertThat(this.listerWatcher.requests).hasSize(1);
	}

	@Test
	void stopClosesAnOpenWatchAndEndsTheLoop() throws InterruptedException {
		this.listerWatcher.page("10", null, "a@5");
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		await().until(() -> this.listerWatcher.opened.size() == 1);
		this.reflector.stop();
		this.thread.join(2000);
		assertThat(this.thread.isAlive()).isFalse();
		assertThat(this.listerWatcher.opened.get(0).isClosed()).isTrue();
		assertThat(this.reflector.status().state()).isEqualTo(WatchState.STOPPED);
		assertThat(this.listerWatcher.requests).hasSize(2);
	}

	// ---------------------------------------------------------------- helpers

	private void start(ReflectorOptions options) {
		this.reflector = new Reflector<>("things", this.listerWatcher, this.handler, options, this.clock,
				RandomGenerator.of("L64X128MixRandom"), new ReflectorStatus(T0));
		this.thread = new Thread(this.reflector, "reflector-test");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	private List<String> nextCalls(int count) {
		return java.util.stream.IntStream.range(0, count).mapToObj((i) -> this.handler.next()).toList();
	}

	static ReflectorOptions options(boolean streaming) {
		return new ReflectorOptions(null, null, 2L, streaming, Duration.ofMinutes(5), Duration.ofMinutes(10), IDLE,
				new Backoff.Settings(Duration.ofMillis(1), Duration.ofMillis(5), 2.0, 0.0, Duration.ofMinutes(2)));
	}

	private static ReflectorOptions withBackoff(ReflectorOptions o, Backoff.Settings backoff) {
		return new ReflectorOptions(o.labelSelector(), o.fieldSelector(), o.pageSize(), o.streamingList(),
				o.minWatchTimeout(), o.maxWatchTimeout(), o.idleTimeout(), backoff);
	}

	/** A random source that always draws the same double. */
	static RandomGenerator fixed(double draw) {
		return new RandomGenerator() {

			@Override
			public long nextLong() {
				return 0;
			}

			@Override
			public double nextDouble() {
				return draw;
			}

		};
	}

}
