package dev.listwatch.informer;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

import dev.listwatch.Items;
import dev.listwatch.KubernetesApiException;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.Resource;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.WatchStream;
import dev.listwatch.informer.FakeListerWatcher.FakeStream;
import dev.listwatch.informer.FakeListerWatcher.Request;
import dev.listwatch.testsupport.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.listwatch.informer.FakeListerWatcher.apiError;
import static dev.listwatch.informer.FakeListerWatcher.bookmark;
import static dev.listwatch.informer.FakeListerWatcher.error;
import static dev.listwatch.informer.FakeListerWatcher.event;
import static dev.listwatch.informer.FakeListerWatcher.initialEventsEnd;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@link Reflector}'s list-watch semantics against a scripted, in-memory
 * {@link FakeListerWatcher}: which requests it makes, with which options, in which order,
 * and what it hands its handler. No network; backoffs are a few milliseconds.
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
	void releasesWhatTheHandlerHeldWhenNoEventWaitsAndWhenTheWatchEnds() throws InterruptedException {
		FakeStream stream = new FakeStream().events(event(WatchEvent.Type.ADDED, "d@11"),
				event(WatchEvent.Type.MODIFIED, "d@12"), event(WatchEvent.Type.MODIFIED, "d@13"));
		this.listerWatcher.page("10", null, "a@5").stream(stream);
		start(options(false));
		assertThat(nextCalls(4)).containsExactly("replace initial=true [a@5]", "ADDED d@11", "MODIFIED d@12",
				"MODIFIED d@13");
		// the three events arrived together: one release, after the last (none after the
		// list)
		assertThat(this.handler.releases.poll(10, TimeUnit.SECONDS)).isEqualTo(4);
		assertThat(this.handler.releases).isEmpty();
		this.reflector.stop();
		assertThat(this.handler.releases.poll(10, TimeUnit.SECONDS)).as("when the watch ends").isEqualTo(4);
	}

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
			WatchStatus status = snapshot(this.reflector);
			assertThat(status.lastResourceVersion()).isEqualTo("14");
			assertThat(status.state()).isEqualTo(WatchStatus.State.WATCHING);
			assertThat(status.synced()).isTrue();
			assertThat(status.streamingList()).isFalse();
			assertThat(status.relists()).isZero();
		});
	}

	@Test
	void watchTimeoutsSpreadOverMinToMax() {
		for (double draw : new double[] { 0.0, 0.5, 0.999999 }) {
			FakeListerWatcher listerWatcher = new FakeListerWatcher().page("1", null);
			Reflector<String> reflector = new Reflector<>("things", listerWatcher, new RecordingHandler(),
					options(false), Ticker.of(this.clock), fixed(draw),
					new ReflectorStatus(this.clock, Ticker.of(this.clock)));
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
			WatchStatus status = snapshot(this.reflector);
			assertThat(status.relists()).isZero();
			assertThat(status.restarts()).containsEntry(RestartReason.DISCONNECTED, 1L)
				.containsEntry(RestartReason.ENDED, 1L);
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
		assertThat(snapshot(this.reflector).events()).containsEntry(WatchEvent.Type.BOOKMARK, 2L);
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
		assertThat(snapshot(this.reflector).relists()).isEqualTo(1);
		assertThat(snapshot(this.reflector).restarts()).containsEntry(RestartReason.EXPIRED, 1L);
	}

	@Test
	void goneAtWatchOpenRelists() {
		this.listerWatcher.page("10", null, "a@5").watchFails(apiError(410, "Gone", null)).page("40", null, "b@39");
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
		assertThat(snapshot(this.reflector).relists()).isZero();
	}

	// ---------------------------------------------------------------- streaming lists

	@Test
	void aStreamingListFillsTheHandlerOnceAtTheInitialEventsEndBookmark() {
		this.listerWatcher.stream(
				new FakeStream()
					.events(event(WatchEvent.Type.ADDED, "a@5"), event(WatchEvent.Type.ADDED, "b@6"),
							event(WatchEvent.Type.MODIFIED, "a@7"), bookmark("7"), initialEventsEnd("8"),
							event(WatchEvent.Type.MODIFIED, "b@9"))
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
		assertThat(snapshot(this.reflector).streamingList()).isTrue();
	}

	@Test
	void aStreamingListCutBeforeItsEndFallsBackToAListWithoutPartialState() {
		// client-go: making progress beats retrying the same streaming list
		this.listerWatcher.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "a@5")).breaks())
			.page("8", null, "a@5", "b@6")
			.stream(new FakeStream().events(error(410, "Expired", "too old")))
			.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "c@9"), initialEventsEnd("10")));
		start(options(true));
		assertThat(this.listerWatcher.nextRequest().options().sendInitialEvents()).isTrue();
		Request list = this.listerWatcher.nextRequest();
		assertThat(list.watch()).as("the same sync lists instead").isFalse();
		Request watch = this.listerWatcher.nextRequest();
		assertThat(watch.options().sendInitialEvents()).isNull();
		assertThat(watch.options().resourceVersion()).isEqualTo("8");
		Request relist = this.listerWatcher.nextRequest();
		assertThat(relist.options().sendInitialEvents()).as("one failure does not give streaming up").isTrue();
		assertThat(nextCalls(2)).containsExactly("replace initial=true [a@5, b@6]", "replace initial=false [c@9]");
		// the status is written just after the handler
		await().until(() -> Boolean.TRUE.equals(snapshot(this.reflector).streamingList()));
	}

	@Test
	void aServerThatIgnoresSendInitialEventsIsListedInsteadAndGivenUpOnAfterThreeTries() {
		// it sends the objects as ADDED, then only plain bookmarks: the initial events
		// never end
		int tries = StreamingLists.FAILURES_TO_GIVE_UP;
		for (int i = 0; i < tries; i++) {
			this.listerWatcher.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "a@5"), bookmark("7")))
				.page("7", null, "a@5")
				.stream(new FakeStream().events(error(410, "Expired", "too old")));
		}
		this.listerWatcher.page("9", null, "a@5");
		start(options(true));
		for (int i = 0; i < tries; i++) {
			assertThat(this.listerWatcher.nextRequest().options().sendInitialEvents()).isTrue();
			int opened = i + 1;
			await().until(() -> this.listerWatcher.opened.size() == 2 * opened - 1
					&& snapshot(this.reflector).events().get(WatchEvent.Type.BOOKMARK) == opened);
			// bookmarks arrive, but no object for the idle timeout: the watchdog ends the
			// wait
			this.clock.advance(IDLE.plusSeconds(1));
			assertThat(this.reflector.checkIdle()).isTrue();
			assertThat(this.listerWatcher.nextRequest().watch()).isFalse();
			assertThat(this.listerWatcher.nextRequest().options().sendInitialEvents()).isNull();
		}
		Request relist = this.listerWatcher.nextRequest();
		assertThat(relist.watch()).as("streaming lists given up for this watch").isFalse();
		assertThat(this.listerWatcher.nextRequest().options().resourceVersion()).isEqualTo("9");
		assertThat(nextCalls(4)).containsExactly("replace initial=true [a@5]", "replace initial=false [a@5]",
				"replace initial=false [a@5]", "replace initial=false [a@5]");
		assertThat(this.listerWatcher.requests.stream().filter((r) -> r.options().sendInitialEvents() != null))
			.hasSize(tries);
	}

	@Test
	void aStreamingListThatGoesSilentBeforeItsEndIsListedInstead() {
		this.listerWatcher.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "a@5"))).page("7", null, "a@5");
		start(options(true));
		this.listerWatcher.nextRequest();
		await().until(() -> this.listerWatcher.opened.size() == 1);
		await().until(() -> snapshot(this.reflector).events().get(WatchEvent.Type.ADDED) == 1);
		this.clock.advance(IDLE.plusSeconds(1));
		assertThat(this.reflector.checkIdle()).isTrue();
		assertThat(this.listerWatcher.nextRequest().watch()).isFalse();
		assertThat(this.handler.next()).isEqualTo("replace initial=true [a@5]");
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
		this.listerWatcher
			.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "a@5"), initialEventsEnd("8"),
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
		start(withBackoff(options(false), new InformerOptions.BackoffPolicy(Duration.ofMillis(1), Duration.ofSeconds(1),
				2.0, 0.0, Duration.ofMinutes(2))));
		Request throttled = this.listerWatcher.nextRequest();
		Request retried = this.listerWatcher.nextRequest();
		assertThat(Duration.ofNanos(retried.nanos() - throttled.nanos())).isGreaterThanOrEqualTo(retryAfter);
		assertThat(this.handler.next()).isEqualTo("replace initial=true [a@5]");
		assertThat(snapshot(this.reflector).restarts()).containsEntry(RestartReason.THROTTLED, 1L);
	}

	@Test
	void failuresBackOffExponentially() {
		// no scripted pages: every list fails as a refused connection
		InformerOptions options = withBackoff(options(false), new InformerOptions.BackoffPolicy(Duration.ofMillis(40),
				Duration.ofSeconds(30), 2.0, 0.0, Duration.ofMinutes(2)));
		start(options);
		Request previous = this.listerWatcher.nextRequest();
		long expected = 40;
		for (int i = 0; i < 3; i++) {
			Request next = this.listerWatcher.nextRequest();
			assertThat(Duration.ofNanos(next.nanos() - previous.nanos()))
				.isGreaterThanOrEqualTo(Duration.ofMillis(expected));
			previous = next;
			expected *= 2;
		}
		WatchStatus status = snapshot(this.reflector);
		assertThat(status.consecutiveFailures()).isGreaterThanOrEqualTo(3);
		assertThat(status.lastError().reason()).isEqualTo("CONNECTION");
		assertThat(status.synced()).isFalse();
	}

	@Test
	void aWatchThatDeliveredBeforeItsConnectionBrokeStartsTheBackoffOver() {
		// without starting over the waits would be 20 ms, 2 s, 30 s
		InformerOptions options = withBackoff(options(false), new InformerOptions.BackoffPolicy(Duration.ofMillis(20),
				Duration.ofSeconds(30), 100.0, 0.0, Duration.ofMinutes(2)));
		this.listerWatcher.page("10", null, "a@5");
		for (int i = 0; i < 4; i++) {
			this.listerWatcher
				.stream(new FakeStream().events(event(WatchEvent.Type.MODIFIED, "a@" + (11 + i))).breaks());
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
		InformerOptions options = withBackoff(options(false), new InformerOptions.BackoffPolicy(Duration.ofMillis(50),
				Duration.ofSeconds(30), 2.0, 0.0, Duration.ofMinutes(2)));
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
		this.clock.advance(IDLE);
		assertThat(this.reflector.checkIdle()).isFalse();
		this.clock.advance(Duration.ofSeconds(1));
		await().until(() -> this.reflector.checkIdle());
		assertThat(silent.isClosed()).isTrue();
		Request resumed = this.listerWatcher.nextRequest();
		assertThat(resumed.watch()).isTrue();
		assertThat(resumed.options().resourceVersion()).isEqualTo("10");
		assertThat(this.listerWatcher.listCount()).isEqualTo(1);
		await()
			.untilAsserted(() -> assertThat(snapshot(this.reflector).restarts()).containsEntry(RestartReason.IDLE, 1L));
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
		await().until(() -> "11".equals(snapshot(this.reflector).lastResourceVersion()));
		this.clock.advance(IDLE.minusMinutes(1));
		assertThat(this.reflector.checkIdle()).isFalse();
		assertThat(stream.isClosed()).isFalse();
		this.clock.advance(Duration.ofMinutes(1).plusSeconds(1));
		assertThat(this.reflector.checkIdle()).isTrue();
		Request resumed = this.listerWatcher.nextRequest();
		assertThat(resumed.options().resourceVersion()).isEqualTo("11");
	}

	// ---------------------------------------------------------------- handler failures,
	// stop

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
		InformerOptions options = withBackoff(options(false), new InformerOptions.BackoffPolicy(Duration.ofMinutes(10),
				Duration.ofMinutes(10), 2.0, 0.0, Duration.ofMinutes(2)));
		start(options);
		this.listerWatcher.nextRequest();
		await().until(() -> snapshot(this.reflector).state() == WatchStatus.State.BACKOFF);
		long start = System.nanoTime();
		this.reflector.stop();
		this.thread.join(2000);
		assertThat(this.thread.isAlive()).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
		assertThat(snapshot(this.reflector).state()).isEqualTo(WatchStatus.State.STOPPED);
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
		assertThat(snapshot(this.reflector).state()).isEqualTo(WatchStatus.State.STOPPED);
		assertThat(this.listerWatcher.requests).hasSize(2);
	}

	// ---------------------------------------------------------------- failure paths

	@Test
	void unbindableObjectsReachTheHandlerFromListsStreamsAndWatches() {
		UnbindableObject listed = unbindable("u", "5");
		this.listerWatcher
			.page(new ObjectList<>(Items.zip(List.of(FakeListerWatcher.meta("a", "5")), List.of("a@5")), "10", null,
					null, List.of(listed)))
			.stream(new FakeStream().events(WatchEvent.unbindable(WatchEvent.Type.MODIFIED, unbindable("a", "11")),
					event(WatchEvent.Type.MODIFIED, "b@12")));
		start(options(false));
		assertThat(nextCalls(3)).containsExactly("replace initial=true [a@5] unbindable [ns/u]",
				"MODIFIED unbindable ns/a", "MODIFIED b@12");
		await().until(() -> "12".equals(snapshot(this.reflector).lastResourceVersion()));
		assertThat(snapshot(this.reflector).consecutiveFailures()).as("not a failure of the watch").isZero();
	}

	@Test
	void aStreamingListCollectsUnbindableObjectsByKey() {
		this.listerWatcher.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "a@5"),
				WatchEvent.unbindable(WatchEvent.Type.ADDED, unbindable("u", "6")),
				WatchEvent.unbindable(WatchEvent.Type.MODIFIED, unbindable("a", "7")),
				event(WatchEvent.Type.ADDED, "b@8"), initialEventsEnd("9")));
		start(options(true));
		assertThat(this.handler.next()).isEqualTo("replace initial=true [b@8] unbindable [ns/u, ns/a]");
	}

	@Test
	void anEventThatCannotBeDecodedTwiceAtTheSameResourceVersionRelists() {
		KubernetesApiException undecodable = new KubernetesApiException(KubernetesApiException.Kind.DECODE,
				"a watch event is not valid JSON (scripted)", null);
		this.listerWatcher.page("10", null, "a@5")
			.stream(new FakeStream().events(event(WatchEvent.Type.MODIFIED, "a@11")).fails(undecodable))
			.stream(new FakeStream().fails(undecodable))
			.page("13", null, "a@12");
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		Request resumed = this.listerWatcher.nextRequest();
		assertThat(resumed.watch()).as("once: resume").isTrue();
		assertThat(resumed.options().resourceVersion()).isEqualTo("11");
		Request relist = this.listerWatcher.nextRequest();
		assertThat(relist.watch()).as("twice at the same resourceVersion: relist").isFalse();
		assertThat(relist.options().resourceVersion()).as("a fresh list").isNull();
		assertThat(this.listerWatcher.nextRequest().options().resourceVersion()).isEqualTo("13");
		assertThat(nextCalls(3)).containsExactly("replace initial=true [a@5]", "MODIFIED a@11",
				"replace initial=false [a@12]");
		assertThat(snapshot(this.reflector).restarts()).containsEntry(RestartReason.BAD_DATA, 2L);
	}

	@Test
	void undecodableEventsKeepTheWatchFailingThoughItReconnects() {
		KubernetesApiException undecodable = new KubernetesApiException(KubernetesApiException.Kind.DECODE,
				"a watch event is not valid JSON (scripted)", null);
		this.listerWatcher.page("10", null, "a@5").stream(new FakeStream().fails(undecodable));
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		await().until(() -> this.listerWatcher.opened.size() == 2);
		// the watch reopened, but nothing since the failure was progress
		assertThat(snapshot(this.reflector).failingSince()).isNotNull();
		this.listerWatcher.opened.get(1).events(bookmark("11"));
		await().until(() -> snapshot(this.reflector).failingSince() == null);
	}

	@Test
	void aLostConnectionEndsTheFailingPeriodOnceTheServerAnswersAgain() {
		this.listerWatcher.page("10", null, "a@5").watchFails(FakeListerWatcher.disconnected());
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		await().until(() -> this.listerWatcher.opened.size() == 1);
		assertThat(snapshot(this.reflector).failingSince()).isNull();
	}

	@Test
	void anErrorOnTheLoopsThreadMarksTheWatchFailedUntilAResyncSucceeds() {
		InformerOptions options = withBackoff(options(false), new InformerOptions.BackoffPolicy(Duration.ofMillis(300),
				Duration.ofMillis(300), 1.0, 0.0, Duration.ofMinutes(2)));
		this.listerWatcher.page("10", null, "a@5")
			.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "b@11")))
			.page("12", null, "a@5", "b@11");
		this.handler.failNextApply = new NoClassDefFoundError("com/example/Gone");
		start(options);
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		await().until(() -> snapshot(this.reflector).state() == WatchStatus.State.FAILED);
		assertThat(snapshot(this.reflector).lastError().message()).contains("NoClassDefFoundError")
			.doesNotContain("com/example/Gone");
		Request relist = this.listerWatcher.nextRequest();
		assertThat(relist.watch()).isFalse();
		assertThat(this.handler.next()).isEqualTo("replace initial=true [a@5]");
		assertThat(this.handler.next()).isEqualTo("replace initial=false [a@5, b@11]");
		await().until(() -> snapshot(this.reflector).state() == WatchStatus.State.WATCHING);
		assertThat(snapshot(this.reflector).restarts()).containsEntry(RestartReason.FATAL, 1L);
		assertThat(this.thread.isAlive()).isTrue();
	}

	@Test
	void aListerWatcherThatThrowsSomethingElseIsARequestFailureNotAReasonToRelist() {
		this.listerWatcher.page("10", null, "a@5")
			.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "b@11"))
				.fails(new IllegalStateException("x")));
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		Request resumed = this.listerWatcher.nextRequest();
		assertThat(resumed.watch()).isTrue();
		assertThat(resumed.options().resourceVersion()).isEqualTo("11");
		assertThat(this.listerWatcher.listCount()).isEqualTo(1);
		assertThat(snapshot(this.reflector).restarts()).containsEntry(RestartReason.ERROR, 1L)
			.doesNotContainKey(RestartReason.HANDLER);
	}

	@Test
	void credentialsThatCannotBeHadBackOffAndResumeWithoutAList() {
		KubernetesApiException noCredentials = new KubernetesApiException(KubernetesApiException.Kind.CREDENTIALS,
				"GET /api/v1/namespaces/ns/things failed: could not obtain credentials: exec plugin exited with 1",
				null);
		this.listerWatcher.page("10", null, "a@5")
			.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "b@11")).breaks())
			.watchFails(noCredentials)
			.watchFails(noCredentials);
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		for (int i = 0; i < 3; i++) {
			Request retried = this.listerWatcher.nextRequest();
			assertThat(retried.watch()).isTrue();
			assertThat(retried.options().resourceVersion()).isEqualTo("11");
		}
		assertThat(this.listerWatcher.listCount()).as("no relist on recovery").isEqualTo(1);
		assertThat(snapshot(this.reflector).restarts()).containsEntry(RestartReason.CREDENTIALS, 2L)
			.doesNotContainKey(RestartReason.HANDLER);
	}

	@Test
	void aStreamThatHeldUntilItWentSilentEndsTheFailingPeriod() {
		// a cut, then a quiet resource: the watch cache sends no bookmark, yet nothing is
		// failing
		this.listerWatcher.page("10", null, "a@5").stream(new FakeStream().breaks());
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		await().until(() -> this.listerWatcher.opened.size() == 2);
		assertThat(snapshot(this.reflector).failingSince()).as("cut after it connected").isNotNull();
		this.clock.advance(IDLE.plusSeconds(1));
		assertThat(this.reflector.checkIdle()).isTrue();
		this.listerWatcher.nextRequest();
		await().until(() -> snapshot(this.reflector).failingSince() == null);
	}

	@Test
	void aStreamCutAfterItWasHeldIsNotAFailureAndResumesAtOnce() {
		// a proxy that closes idle connections cuts the watch of a quiet resource: the
		// server answered, nothing was lost; a failure would back off (10 minutes here)
		// and count towards DOWN
		InformerOptions options = withBackoff(options(false), new InformerOptions.BackoffPolicy(Duration.ofMinutes(10),
				Duration.ofMinutes(10), 2.0, 0.0, Duration.ofMinutes(2)));
		this.listerWatcher.page("10", null, "a@5");
		start(options);
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		await().until(() -> this.listerWatcher.opened.size() == 1);
		this.clock.advance(Duration.ofSeconds(30));
		this.listerWatcher.opened.get(0).breaks();
		Request resumed = this.listerWatcher.nextRequest();
		assertThat(resumed.watch()).isTrue();
		assertThat(resumed.options().resourceVersion()).isEqualTo("10");
		WatchStatus status = snapshot(this.reflector);
		assertThat(status.failingSince()).isNull();
		assertThat(status.consecutiveFailures()).isZero();
		assertThat(status.restarts()).containsEntry(RestartReason.DISCONNECTED, 1L);
		assertThat(this.listerWatcher.listCount()).isEqualTo(1);
	}

	@Test
	void aStreamHeldOpenAfterACutEndsTheFailingPeriodWhileStillOpen() {
		// the first watch is cut at once (not held): failing; the next one opens and
		// stays open, quiet
		this.listerWatcher.page("10", null, "a@5").stream(new FakeStream().breaks());
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		await().until(() -> this.listerWatcher.opened.size() == 2);
		assertThat(snapshot(this.reflector).failingSince()).as("open, not held yet").isNotNull();
		assertThat(snapshot(this.reflector).consecutiveFailures()).isEqualTo(1);
		this.clock.advance(ReflectorStatus.HELD);
		assertThat(snapshot(this.reflector).failingSince()).as("held: progress").isNull();
		assertThat(snapshot(this.reflector).failingFor()).isNull();
		assertThat(snapshot(this.reflector).consecutiveFailures()).isZero();
	}

	@Test
	void aStreamCutAgainAndAgainBeforeItHeldKeepsFailing() {
		this.listerWatcher.page("10", null, "a@5");
		for (int i = 0; i < 3; i++) {
			this.listerWatcher.stream(new FakeStream().breaks());
		}
		start(withBackoff(options(false), new InformerOptions.BackoffPolicy(Duration.ofMillis(1), Duration.ofMillis(5),
				2.0, 0.0, Duration.ofMinutes(2))));
		for (int i = 0; i < 5; i++) {
			this.listerWatcher.nextRequest();
		}
		await().until(() -> snapshot(this.reflector).consecutiveFailures() == 3);
		// nearly held each time, never quite: still failing
		this.clock.advance(ReflectorStatus.HELD.minusMillis(1));
		assertThat(snapshot(this.reflector).failingSince()).isNotNull();
		assertThat(snapshot(this.reflector).restarts()).containsEntry(RestartReason.DISCONNECTED, 3L);
	}

	@Test
	void aStopBetweenTwoEventsOfOneRevisionResumesFromTheRevisionBefore() {
		// an etcd txn: a@11 and b@11 come together; the watch is stopped right after a@11
		this.listerWatcher.page("10", null, "a@5", "b@5")
			.stream(new FakeStream().events(event(WatchEvent.Type.MODIFIED, "a@11"),
					event(WatchEvent.Type.MODIFIED, "b@11"), event(WatchEvent.Type.MODIFIED, "c@12")));
		this.handler.afterApply = () -> {
			if (this.handler.calls.toString().contains("a@11")) {
				this.reflector.stop();
			}
		};
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		await().until(() -> snapshot(this.reflector).state() == WatchStatus.State.STOPPED);
		assertThat(snapshot(this.reflector).lastResourceVersion())
			.as("revision 11 is not complete: b@11 is not applied")
			.isEqualTo("10");
	}

	@Test
	void theResumePointMovesToARevisionOnceNothingMoreIsBuffered() {
		this.listerWatcher.page("10", null, "a@5", "b@5")
			.stream(new FakeStream()
				.events(event(WatchEvent.Type.MODIFIED, "a@11"), event(WatchEvent.Type.MODIFIED, "b@11"),
						event(WatchEvent.Type.MODIFIED, "a@12"))
				.breaks());
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		assertThat(this.listerWatcher.nextRequest().options().resourceVersion()).isEqualTo("12");
	}

	@Test
	void failuresToReachTheServerBetweenCutsDoNotHideThatNothingProgresses() {
		// 503 at open, then a watch that connects and is cut before it delivers anything,
		// again and again
		this.listerWatcher.page("10", null, "a@5")
			.stream(new FakeStream().breaks())
			.watchFails(apiError(503, "ServiceUnavailable", null))
			.stream(new FakeStream().breaks())
			.watchFails(apiError(503, "ServiceUnavailable", null));
		start(options(false));
		for (int i = 0; i < 6; i++) {
			this.listerWatcher.nextRequest();
		}
		// the last watch connected and stays open: the server answers, but nothing has
		// progressed
		await().until(() -> this.listerWatcher.opened.size() == 3);
		assertThat(snapshot(this.reflector).consecutiveFailures()).isEqualTo(4);
		assertThat(snapshot(this.reflector).failingSince()).isNotNull();
	}

	@Test
	void anErrorEventOtherThanGoneTwiceAtTheSameResourceVersionRelists() {
		this.listerWatcher.page("10", null, "a@5")
			.stream(new FakeStream().events(error(500, "InternalError", "etcd is unhappy")))
			.stream(new FakeStream().events(error(500, "InternalError", "etcd is unhappy")))
			.page("12", null, "a@6");
		start(options(false));
		this.listerWatcher.nextRequest();
		assertThat(this.listerWatcher.nextRequest().options().resourceVersion()).isEqualTo("10");
		assertThat(this.listerWatcher.nextRequest().options().resourceVersion()).isEqualTo("10");
		Request relist = this.listerWatcher.nextRequest();
		assertThat(relist.watch()).isFalse();
		assertThat(relist.options().resourceVersion()).isNull();
		assertThat(nextCalls(2)).containsExactly("replace initial=true [a@5]", "replace initial=false [a@6]");
	}

	@Test
	void aTooLargeResourceVersionRelistsFromScratch() {
		this.listerWatcher.page("10", null, "a@5")
			.watchFails(apiError(504, "Timeout", null, "Too large resource version: 99, current: 10"))
			.page("11", null, "a@5");
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		Request relist = this.listerWatcher.nextRequest();
		assertThat(relist.watch()).isFalse();
		assertThat(relist.options().resourceVersion()).isNull();
	}

	@Test
	void aWatchThatEndsAtOnceWithNothingIsFailing() {
		this.listerWatcher.page("10", null, "a@5").stream(new FakeStream().ends()).stream(new FakeStream().ends());
		start(options(false));
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		await().until(() -> snapshot(this.reflector).failingSince() != null);
	}

	@Test
	void aStreamingListThatCannotReachTheServerBacksOffInsteadOfListingAtOnce() {
		Duration retryAfter = Duration.ofMillis(200);
		this.listerWatcher.watchFails(apiError(429, "TooManyRequests", retryAfter))
			.stream(new FakeStream().events(event(WatchEvent.Type.ADDED, "a@5"), initialEventsEnd("8")));
		start(withBackoff(options(true), new InformerOptions.BackoffPolicy(Duration.ofMillis(1), Duration.ofSeconds(1),
				2.0, 0.0, Duration.ofMinutes(2))));
		Request throttled = this.listerWatcher.nextRequest();
		Request retried = this.listerWatcher.nextRequest();
		assertThat(retried.options().sendInitialEvents()).as("no list thrown at a throttled server").isTrue();
		assertThat(Duration.ofNanos(retried.nanos() - throttled.nanos())).isGreaterThanOrEqualTo(retryAfter);
		assertThat(this.handler.next()).isEqualTo("replace initial=true [a@5]");
		assertThat(this.listerWatcher.listCount()).isZero();
	}

	@Test
	void aWallClockStepDoesNotCloseWatches() {
		long[] nanos = { 0 };
		this.listerWatcher.page("10", null, "a@5");
		this.reflector = new Reflector<>("things", this.listerWatcher, this.handler, options(false), () -> nanos[0],
				RandomGenerator.of("L64X128MixRandom"), new ReflectorStatus(this.clock, () -> nanos[0]));
		this.thread = new Thread(this.reflector, "reflector-test");
		this.thread.setDaemon(true);
		this.thread.start();
		this.listerWatcher.nextRequest();
		this.listerWatcher.nextRequest();
		await().until(() -> this.listerWatcher.opened.size() == 1);
		// NTP steps the wall clock by ten minutes; monotonic time moved by a second
		this.clock.advance(Duration.ofMinutes(10));
		nanos[0] += Duration.ofSeconds(1).toNanos();
		assertThat(this.reflector.checkIdle()).isFalse();
		nanos[0] += IDLE.toNanos();
		assertThat(this.reflector.checkIdle()).isTrue();
	}

	@Test
	void aReflectorStoppedDuringAListNeverHandsOnPartOfIt() throws InterruptedException {
		CountDownLatch inSecondPage = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		ListerWatcher<String> slow = new ListerWatcher<>() {

			@Override
			public ObjectList<String> list(ListOptions options) {
				if (options.continueToken() == null) {
					return FakeListerWatcher.objectList("10", "c1", "a@5");
				}
				inSecondPage.countDown();
				// a request that ignores interrupts, as a slow server's may
				while (true) {
					try {
						release.await();
						return FakeListerWatcher.objectList("10", null, "b@6");
					}
					catch (InterruptedException ex) {
						// keep waiting
					}
				}
			}

			@Override
			public WatchStream<String> watch(ListOptions options) {
				throw new AssertionError("no watch after a stop");
			}

			@Override
			public dev.listwatch.Resource resource() {
				return FakeListerWatcher.RESOURCE;
			}

		};
		this.reflector = new Reflector<>("things", slow, this.handler, options(false), Ticker.of(this.clock),
				RandomGenerator.of("L64X128MixRandom"), new ReflectorStatus(this.clock, Ticker.of(this.clock)));
		this.thread = new Thread(this.reflector, "reflector-test");
		this.thread.setDaemon(true);
		this.thread.start();
		assertThat(inSecondPage.await(10, TimeUnit.SECONDS)).isTrue();
		this.reflector.stop();
		release.countDown();
		this.thread.join(5000);
		assertThat(this.thread.isAlive()).isFalse();
		assertThat(this.handler.calls).isEmpty();
		assertThat(snapshot(this.reflector).state()).isEqualTo(WatchStatus.State.STOPPED);
	}

	private static UnbindableObject unbindable(String name, String resourceVersion) {
		return new UnbindableObject(FakeListerWatcher.meta(name, resourceVersion), "/spec/mode", "com.example.Thing",
				"not a valid value of Mode");
	}

	// ---------------------------------------------------------------- helpers

	private void start(InformerOptions options) {
		this.reflector = new Reflector<>("things", this.listerWatcher, this.handler, options, Ticker.of(this.clock),
				RandomGenerator.of("L64X128MixRandom"), new ReflectorStatus(this.clock, Ticker.of(this.clock)));
		this.thread = new Thread(this.reflector, "reflector-test");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	private List<String> nextCalls(int count) {
		return java.util.stream.IntStream.range(0, count).mapToObj((i) -> this.handler.next()).toList();
	}

	static InformerOptions options(boolean streaming) {
		return new InformerOptions(null, null, 2L, streaming, Duration.ofMinutes(5), Duration.ofMinutes(10), IDLE,
				new InformerOptions.BackoffPolicy(Duration.ofMillis(1), Duration.ofMillis(5), 2.0, 0.0,
						Duration.ofMinutes(2)),
				null, true);
	}

	private static InformerOptions withBackoff(InformerOptions o, InformerOptions.BackoffPolicy backoff) {
		return new InformerOptions(o.labelSelector(), o.fieldSelector(), o.pageSize(), o.streamingList(),
				o.minWatchTimeout(), o.maxWatchTimeout(), o.idleTimeout(), backoff, null, true);
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

	/** The reflector's part of its status: no declaration, no cache. */
	private static WatchStatus snapshot(Reflector<?> reflector) {
		return reflector.status()
			.snapshot("reflector",
					new WatchStatus.Watched(new Resource("", "v1", "things", null, true, null), null, null,
							String.class.getName(), List.of(), Duration.ZERO, null, true, List.of()),
					true, 0, 0, 0, 0, null, List.of());
	}

}
