package dev.listwatch.informer;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.listwatch.ObjectMeta;
import dev.listwatch.WatchStatus;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.event.ResourceEvent.Type;
import org.junit.jupiter.api.Test;

import org.springframework.context.ApplicationEvent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@link Dispatcher}: order per object, folding of MODIFIED, deletes always
 * delivered, a visible backlog, and listeners that throw.
 */
class DispatcherTests {

	/** Runs what is submitted only when the test says so. */
	private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

	private final List<String> published = new CopyOnWriteArrayList<>();

	private final Dispatcher dispatcher = new Dispatcher("things", this.tasks::add, this::record);

	@Test
	void keepsOrderPerObjectAndFoldsModifiedIntoTheWaitingEvent() {
		this.dispatcher.enqueue(event(Type.ADDED, "a", "1", null));
		this.dispatcher.enqueue(event(Type.ADDED, "b", "1", null));
		this.dispatcher.enqueue(event(Type.MODIFIED, "a", "2", "1"));
		this.dispatcher.enqueue(event(Type.MODIFIED, "a", "3", "2"));
		this.dispatcher.enqueue(event(Type.MODIFIED, "b", "2", "1"));
		assertThat(this.dispatcher.backlog()).isEqualTo(2);
		runAll();
		assertThat(this.published).containsExactly("ADDED a 3 old=null", "ADDED b 2 old=null");
		assertThat(this.dispatcher.backlog()).isZero();
		assertThat(this.dispatcher.published()).isEqualTo(2);
	}

	@Test
	void foldedModifiedKeepsTheFirstOldStateAndTheLatestNewState() {
		this.dispatcher.enqueue(event(Type.MODIFIED, "a", "2", "1"));
		this.dispatcher.enqueue(event(Type.MODIFIED, "a", "3", "2"));
		this.dispatcher.enqueue(event(Type.MODIFIED, "a", "4", "3"));
		assertThat(this.dispatcher.backlog()).isEqualTo(1);
		runAll();
		assertThat(this.published).containsExactly("MODIFIED a 4 old=1");
	}

	@Test
	void aResyncFoldedWithARealChangeIsARealChangeAndTwoResyncsStayAResync() {
		List<ResourceEvent<?>> events = new ArrayList<>();
		List<Runnable> later = new ArrayList<>();
		Dispatcher dispatcher = new Dispatcher("things", later::add, (event) -> events.add((ResourceEvent<?>) event));
		dispatcher.enqueue(resync("a", "2"));
		dispatcher.enqueue(event(Type.MODIFIED, "a", "3", "2"));
		dispatcher.enqueue(event(Type.MODIFIED, "b", "5", "4"));
		dispatcher.enqueue(resync("b", "5"));
		dispatcher.enqueue(resync("c", "7"));
		dispatcher.enqueue(resync("c", "7"));
		assertThat(dispatcher.backlog()).isEqualTo(3);
		later.forEach(Runnable::run);
		assertThat(events).extracting((e) -> e.key() + " " + e.object() + " old=" + e.oldObject() + " " + e.resync())
			.containsExactly("ns/a 3 old=2 false", "ns/b 5 old=4 false", "ns/c 7 old=7 true");
	}

	@Test
	void aResyncBehindAWaitingInitialAddedLeavesItAsItIs() {
		List<ResourceEvent<?>> events = new ArrayList<>();
		List<Runnable> later = new ArrayList<>();
		Dispatcher dispatcher = new Dispatcher("things", later::add, (event) -> events.add((ResourceEvent<?>) event));
		dispatcher.enqueue(new ResourceEvent<>("test", "things", Type.ADDED, "1", null,
				new ObjectMeta("ns", "a", "uid-a", "1", Map.of()), true, false, String.class));
		dispatcher.enqueue(resync("a", "1"));
		assertThat(dispatcher.backlog()).isEqualTo(1);
		later.forEach(Runnable::run);
		assertThat(events).extracting((e) -> e.type() + " " + e.initialList() + " " + e.resync())
			.containsExactly("ADDED true false");
	}

	@Test
	void deletesAreAlwaysDeliveredAndWhatFollowsThemStaysInOrder() {
		this.dispatcher.enqueue(event(Type.MODIFIED, "a", "2", "1"));
		this.dispatcher.enqueue(event(Type.DELETED, "a", "2", null));
		// cannot fold into a delete
		this.dispatcher.enqueue(event(Type.MODIFIED, "a", "9", "2"));
		this.dispatcher.enqueue(event(Type.ADDED, "a", "3", null));
		this.dispatcher.enqueue(event(Type.MODIFIED, "a", "4", "3"));
		this.dispatcher.enqueue(event(Type.DELETED, "a", "4", null));
		this.dispatcher.enqueue(event(Type.DELETED, "b", "7", null));
		assertThat(this.dispatcher.backlog()).isEqualTo(6);
		runAll();
		assertThat(this.published).containsExactly("MODIFIED a 2 old=1", "DELETED a 2 old=null", "MODIFIED a 9 old=2",
				"ADDED a 4 old=null", "DELETED a 4 old=null", "DELETED b 7 old=null");
		assertThat(this.dispatcher.backlog()).isZero();
	}

	@Test
	void aSyncMarkerFollowsEverythingQueuedBeforeIt() {
		this.dispatcher.enqueue(event(Type.ADDED, "a", "1", null));
		this.dispatcher.enqueueAfterAll(new ApplicationEvent("synced") {
		});
		this.dispatcher.enqueue(event(Type.MODIFIED, "a", "2", "1"));
		this.dispatcher.enqueue(event(Type.ADDED, "b", "1", null));
		assertThat(this.dispatcher.backlog()).isEqualTo(3);
		runAll();
		assertThat(this.published).containsExactly("ADDED a 2 old=null", "marker", "ADDED b 1 old=null");
	}

	@Test
	void aThrowingListenerIsCountedAndDispatchGoesOn() {
		Dispatcher dispatcher = new Dispatcher("things", this.tasks::add, (event) -> {
			if (event instanceof ResourceEvent<?> resource && resource.key().endsWith("/bad")) {
				throw new IllegalStateException("listener bug");
			}
			record(event);
		});
		dispatcher.enqueue(event(Type.ADDED, "a", "1", null));
		dispatcher.enqueue(event(Type.ADDED, "bad", "1", null));
		dispatcher.enqueue(event(Type.DELETED, "bad", "1", null));
		dispatcher.enqueue(event(Type.ADDED, "c", "1", null));
		runAll();
		assertThat(this.published).containsExactly("ADDED a 1 old=null", "ADDED c 1 old=null");
		assertThat(dispatcher.failures()).isEqualTo(2);
		assertThat(dispatcher.published()).isEqualTo(2);
		assertThat(dispatcher.backlog()).isZero();
		dispatcher.enqueue(event(Type.MODIFIED, "a", "2", "1"));
		runAll();
		assertThat(this.published).endsWith("MODIFIED a 2 old=1");
	}

	@Test
	void pauseKeepsTheBacklogUntilResume() {
		this.dispatcher.enqueue(event(Type.ADDED, "a", "1", null));
		this.dispatcher.pause();
		this.dispatcher.enqueue(event(Type.ADDED, "b", "1", null));
		runAll();
		assertThat(this.published).isEmpty();
		assertThat(this.dispatcher.backlog()).isEqualTo(2);
		this.dispatcher.resume();
		runAll();
		assertThat(this.published).containsExactly("ADDED a 1 old=null", "ADDED b 1 old=null");
		assertThat(this.dispatcher.backlog()).isZero();
	}

	@Test
	void aPauseWhilePublishingATakenBatchPutsTheRestBackAheadOfNewerEventsOfTheSameObjects() {
		List<String> seen = new ArrayList<>();
		Dispatcher[] self = new Dispatcher[1];
		Dispatcher dispatcher = new Dispatcher("things", this.tasks::add, (event) -> {
			ResourceEvent<?> resource = (ResourceEvent<?>) event;
			seen.add(resource.type() + " " + resource.meta().name() + " " + resource.object());
			if (resource.meta().name().equals("a")) {
				// while the first event of the batch is published, more are queued, then
				// the watch stops
				self[0].enqueue(event(Type.ADDED, "b", "2", null));
				self[0].enqueue(event(Type.MODIFIED, "c", "2", "1"));
				self[0].enqueue(event(Type.ADDED, "d", "1", null));
				self[0].pause();
			}
		});
		self[0] = dispatcher;
		dispatcher.enqueue(event(Type.ADDED, "a", "1", null));
		dispatcher.enqueue(event(Type.ADDED, "b", "1", null));
		dispatcher.enqueue(event(Type.DELETED, "b", "1", null));
		dispatcher.enqueue(event(Type.ADDED, "c", "1", null));
		runAll();
		// b's two events and c's one were taken and not published: 3, and the 3 queued
		// meanwhile
		assertThat(seen).containsExactly("ADDED a 1");
		assertThat(dispatcher.backlog()).isEqualTo(6);
		dispatcher.resume();
		runAll();
		assertThat(seen).containsExactly("ADDED a 1", "ADDED b 1", "DELETED b 1", "ADDED b 2", "ADDED c 1",
				"MODIFIED c 2", "ADDED d 1");
		assertThat(dispatcher.backlog()).isZero();
		assertThat(dispatcher.published()).isEqualTo(7);
	}

	@Test
	void heldEventsWakeNoThreadUntilReleasedOrUntilTooManyAreHeld() {
		this.dispatcher.enqueue(event(Type.ADDED, "a", "1", null), true);
		this.dispatcher.enqueue(event(Type.ADDED, "b", "1", null), true);
		assertThat(this.tasks).isEmpty();
		assertThat(this.dispatcher.backlog()).isEqualTo(2);
		this.dispatcher.release();
		assertThat(this.tasks).hasSize(1);
		this.dispatcher.release();
		assertThat(this.tasks).as("released once").hasSize(1);
		runAll();
		assertThat(this.published).containsExactly("ADDED a 1 old=null", "ADDED b 1 old=null");
		// at most HOLD events wait for a release
		for (int i = 1; i < Dispatcher.HOLD; i++) {
			this.dispatcher.enqueue(event(Type.ADDED, "o" + i, "1", null), true);
		}
		assertThat(this.tasks).isEmpty();
		this.dispatcher.enqueue(event(Type.ADDED, "last", "1", null), true);
		assertThat(this.tasks).hasSize(1);
		runAll();
		assertThat(this.published).hasSize(2 + Dispatcher.HOLD);
		// an event not held wakes a thread for those held before it
		this.dispatcher.enqueue(event(Type.ADDED, "c", "1", null), true);
		this.dispatcher.enqueue(event(Type.ADDED, "d", "1", null));
		assertThat(this.tasks).hasSize(1);
		runAll();
		assertThat(this.published).endsWith("ADDED c 1 old=null", "ADDED d 1 old=null");
	}

	@Test
	void aSlowListenerNeverBlocksTheWriterAndTheBacklogStaysBoundedPerObject() throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(2);
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		List<String> seen = new CopyOnWriteArrayList<>();
		Dispatcher dispatcher = new Dispatcher("things", executor, (event) -> {
			ResourceEvent<?> resource = (ResourceEvent<?>) event;
			seen.add(resource.type() + " " + resource.key() + " " + resource.meta().resourceVersion());
			entered.countDown();
			try {
				release.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		try {
			dispatcher.enqueue(event(Type.ADDED, "a", "1", null));
			assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
			long start = System.nanoTime();
			for (int i = 2; i <= 1000; i++) {
				dispatcher.enqueue(event(Type.MODIFIED, "a", Integer.toString(i), Integer.toString(i - 1)));
				dispatcher.enqueue(event(Type.MODIFIED, "o" + (i % 10), Integer.toString(i), null));
			}
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
			// "a" is being published; one folded MODIFIED of "a" and one per other object
			// wait
			assertThat(dispatcher.backlog()).isEqualTo(11);
			release.countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> dispatcher.backlog() == 0 && seen.size() == 12);
			assertThat(seen.get(0)).isEqualTo("ADDED ns/a 1");
			assertThat(seen.get(1)).isEqualTo("MODIFIED ns/a 1000");
		}
		finally {
			release.countDown();
			executor.shutdownNow();
		}
	}

	@Test
	void anExecutorThatThrowsAnErrorLosesNoEventAndIsTriedAgain() {
		// no thread to be had: the Error must not reach the reading thread, nor the
		// events be lost
		int[] refusals = { 1 };
		long[] nanos = { 0 };
		Dispatcher dispatcher = new Dispatcher("things", (task) -> {
			if (refusals[0]-- > 0) {
				throw new OutOfMemoryError("unable to create native thread: possibly out of memory (test)");
			}
			this.tasks.add(task);
		}, this::record, () -> nanos[0]);
		nanos[0] = 5;
		dispatcher.enqueue(event(Type.ADDED, "a", "1", null));
		assertThat(dispatcher.stall()).isNotNull();
		assertThat(dispatcher.stall().sinceNanos()).isEqualTo(5);
		assertThat(dispatcher.stall().error()).isEqualTo("java.lang.OutOfMemoryError");
		assertThat(dispatcher.backlog()).isEqualTo(1);
		assertThat(this.tasks).isEmpty();
		// nothing more arrives: the periodic retry schedules what waits
		dispatcher.retry();
		runAll();
		assertThat(this.published).containsExactly("ADDED a 1 old=null");
		assertThat(dispatcher.stall()).as("a drain ran").isNull();
		assertThat(dispatcher.backlog()).isZero();
	}

	@Test
	void theNextEventAfterAFailureToScheduleTakesTheWaitingOnesAlongInOrder() {
		int[] refusals = { 1 };
		Dispatcher dispatcher = new Dispatcher("things", (task) -> {
			if (refusals[0]-- > 0) {
				throw new OutOfMemoryError("test");
			}
			this.tasks.add(task);
		}, this::record);
		dispatcher.enqueue(event(Type.ADDED, "a", "1", null));
		dispatcher.enqueue(event(Type.MODIFIED, "a", "2", "1"));
		dispatcher.enqueue(event(Type.ADDED, "b", "1", null));
		runAll();
		assertThat(this.published).containsExactly("ADDED a 2 old=null", "ADDED b 1 old=null");
		assertThat(dispatcher.stall()).isNull();
	}

	@Test
	void aDrainTheExecutorRunsLateWhileAnotherRunsPublishesNothingTwice() throws InterruptedException {
		// an executor that took the task and then threw: the task runs later, beside the
		// next one
		List<Runnable> taken = new ArrayList<>();
		boolean[] throwOnce = { true };
		CountDownLatch inListener = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		List<String> seen = new CopyOnWriteArrayList<>();
		Dispatcher dispatcher = new Dispatcher("things", (task) -> {
			taken.add(task);
			if (throwOnce[0]) {
				throwOnce[0] = false;
				throw new OutOfMemoryError("test");
			}
		}, (event) -> {
			seen.add(((ResourceEvent<?>) event).meta().name());
			inListener.countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> release.getCount() == 0);
		});
		dispatcher.enqueue(event(Type.ADDED, "a", "1", null));
		Thread first = new Thread(taken.get(0));
		first.start();
		assertThat(inListener.await(10, TimeUnit.SECONDS)).isTrue();
		// b arrives while the late first task is in a listener with a: the executor is
		// asked again
		dispatcher.enqueue(event(Type.ADDED, "b", "1", null));
		assertThat(taken).hasSize(2);
		taken.get(1).run();
		assertThat(seen).as("no second drain beside the running one").containsExactly("a");
		release.countDown();
		first.join(10_000);
		runAllOf(taken, 2);
		assertThat(seen).containsExactly("a", "b");
	}

	@Test
	void aStalledDispatchIsFailingInTheWatchStatusForAsLongAsItLasts() {
		dev.listwatch.testsupport.MutableClock clock = new dev.listwatch.testsupport.MutableClock(
				java.time.Instant.parse("2026-01-01T00:00:00Z"));
		ReflectorStatus status = new ReflectorStatus(clock, Ticker.of(clock));
		WatchStatus.Watched watched = new WatchStatus.Watched(FakeListerWatcher.RESOURCE, null, null, "String",
				List.of("namespace"), Duration.ofSeconds(90), null, true, List.of());
		long since = Ticker.of(clock).nanoTime();
		clock.advance(Duration.ofSeconds(75));
		WatchStatus stalled = status.snapshot("things", watched, true, 3, 2, 0, 0, null, List.of(),
				new Dispatcher.Stall(since, "java.lang.OutOfMemoryError"));
		assertThat(stalled.failingFor()).isEqualTo(Duration.ofSeconds(75));
		assertThat(stalled.failingSince()).isEqualTo(java.time.Instant.parse("2026-01-01T00:00:00Z"));
		assertThat(stalled.consecutiveFailures()).isPositive();
		assertThat(stalled.lastError().reason()).isEqualTo("DISPATCH");
		assertThat(stalled.lastError().message()).contains("java.lang.OutOfMemoryError").contains("2 wait");
		assertThat(status.snapshot("things", watched, true, 3, 0, 0, 0, null, List.of()).failingFor())
			.as("once a drain ran")
			.isNull();
	}

	private static void runAllOf(List<Runnable> tasks, int from) {
		for (int i = from; i < tasks.size(); i++) {
			tasks.get(i).run();
		}
	}

	private void runAll() {
		while (!this.tasks.isEmpty()) {
			this.tasks.poll().run();
		}
	}

	private void record(ApplicationEvent event) {
		if (event instanceof ResourceEvent<?> resource) {
			this.published.add(resource.type() + " " + resource.meta().name() + " " + resource.object() + " old="
					+ resource.oldObject());
		}
		else {
			this.published.add("marker");
		}
	}

	/**
	 * An event whose object is its resourceVersion and whose old object is {@code old}.
	 */
	private static ResourceEvent<String> resync(String name, String resourceVersion) {
		return new ResourceEvent<>("test", "things", Type.MODIFIED, resourceVersion, resourceVersion,
				new ObjectMeta("ns", name, "uid-" + name, resourceVersion, Map.of()), false, false, true, String.class);
	}

	private static ResourceEvent<String> event(Type type, String name, String resourceVersion, String old) {
		return new ResourceEvent<>("test", "things", type, resourceVersion, old,
				new ObjectMeta("ns", name, "uid-" + name, resourceVersion, Map.of()), false, false, String.class);
	}

}
