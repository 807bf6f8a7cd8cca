package dev.listwatch.controller;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesObject;
import dev.listwatch.Status;
import dev.listwatch.WatchStatus;
import dev.listwatch.autoconfigure.health.FakeListerWatcher;
import dev.listwatch.health.ControllersHealthContributor;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A controller on an informer over a scripted lister-watcher: keys reconciled once the
 * cache has synced, level-triggered, retried after failures until they succeed, one
 * worker per key, and a stop that lets the reconcile under way finish.
 */
@ExtendWith(OutputCaptureExtension.class)
class ControllerTests {

	private final InformerFactory factory = new InformerFactory(Clock.systemUTC(), (event) -> {
	}, 1, Duration.ofSeconds(1));

	private final FakeListerWatcher server = FakeListerWatcher.held();

	private final Informer<KubernetesObject> informer = this.factory.informer("configmaps", KubernetesObject.class,
			this.server, InformerOptions.defaults(), List.of());

	private Controller<KubernetesObject> controller;

	@AfterEach
	void stop() {
		if (this.controller != null) {
			this.controller.stop(Duration.ofSeconds(5));
		}
		this.informer.stop();
		this.factory.close();
	}

	@Test
	void keysAreReconciledOnceTheCacheHasSyncedWithTheObjectAsCached() throws Exception {
		Map<String, String> seen = new ConcurrentHashMap<>();
		AtomicInteger sizeAtFirstReconcile = new AtomicInteger(-1);
		this.server.add("a");
		this.server.add("b");
		this.server.add("c");
		start(2, (request) -> {
			sizeAtFirstReconcile.compareAndSet(-1, this.informer.lister().size());
			seen.put(request.key(), request.object().orElseThrow().metadata().resourceVersion());
			return Result.done();
		});
		this.informer.start();
		// the list is held: nothing to reconcile against yet
		assertThat(this.controller.status().reconciles()).isZero();
		this.server.releaseList();
		await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 3);
		// never against a partial cache
		assertThat(sizeAtFirstReconcile).hasValue(3);
		assertThat(seen).containsOnlyKeys("default/a", "default/b", "default/c");
		String before = version("default/b");
		this.server.add("b");
		String latest = await().atMost(Duration.ofSeconds(10))
			.until(() -> version("default/b"), (version) -> !version.equals(before));
		// level-triggered: the change is reconciled against the object as cached now
		await().atMost(Duration.ofSeconds(10)).until(() -> latest.equals(seen.get("default/b")));
	}

	@Test
	void aKeyThatFailsIsTriedAgainAfterItsBackoffUntilItSucceeds() throws Exception {
		List<Integer> failuresSeen = new CopyOnWriteArrayList<>();
		List<Long> attempts = new CopyOnWriteArrayList<>();
		CountDownLatch succeeded = new CountDownLatch(1);
		this.server.add("a");
		this.server.releaseList();
		start(1, (request) -> {
			failuresSeen.add(request.failures());
			attempts.add(System.nanoTime());
			if (request.failures() < 5) {
				throw new IllegalStateException("the database is down");
			}
			succeeded.countDown();
			return Result.done();
		});
		this.informer.start();
		assertThat(succeeded.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(failuresSeen).containsExactly(0, 1, 2, 3, 4, 5);
		// waited 4 + 8 + 16 + 32 + 64 ms at least between the six attempts
		assertThat(attempts.get(5) - attempts.get(0)).isGreaterThanOrEqualTo(Duration.ofMillis(124).toNanos());
		// the failure is forgotten once the reconcile has returned
		await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.status().failing().isEmpty());
		assertThat(this.controller.status().failures()).isEqualTo(5);
		assertThat(this.controller.status().waiting()).isZero();
	}

	@Test
	void aKeyThatKeepsFailingShowsItsLastFailureWithoutTheObject() throws Exception {
		this.server.add("a");
		this.server.releaseList();
		start(1, (request) -> {
			throw new IllegalStateException("quota exhausted");
		});
		this.informer.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.status().failures() >= 3);
		ControllerStatus.Failure failure = this.controller.status().failing().get("default/a");
		assertThat(failure.exception()).isEqualTo(IllegalStateException.class.getName());
		assertThat(failure.at()).startsWith("dev.listwatch.controller.ControllerTests.lambda$");
		// the message only when the application opts in (see ExceptionMessagesTests)
		assertThat(failure.message()).isNull();
		assertThat(failure.inARow()).isGreaterThanOrEqualTo(3);
	}

	@Test
	void aKeyChangedManyTimesWhileItIsReconciledIsReconciledAFewTimesAndNeverTwiceAtOnce() throws Exception {
		CountDownLatch firstStarted = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger running = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		List<String> versions = new CopyOnWriteArrayList<>();
		this.server.add("a");
		this.server.releaseList();
		start(4, (request) -> {
			if (running.incrementAndGet() > 1) {
				overlaps.incrementAndGet();
			}
			try {
				versions.add(request.object().orElseThrow().metadata().resourceVersion());
				firstStarted.countDown();
				release.await(10, TimeUnit.SECONDS);
				return Result.done();
			}
			finally {
				running.decrementAndGet();
			}
		});
		this.informer.start();
		assertThat(firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
		long first = Long.parseLong(versions.get(0));
		// the scripted server sends changes to an open watch only
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.informer.status().state() == WatchStatus.State.WATCHING);
		for (int i = 0; i < 100; i++) {
			this.server.add("a");
		}
		// each add takes the next resourceVersion
		String last = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.informer.lister().get("default/a").orElseThrow().metadata().resourceVersion(),
					(version) -> Long.parseLong(version) >= first + 100);
		release.countDown();
		// the last change is reconciled, in a handful of reconciles rather than a hundred
		await().atMost(Duration.ofSeconds(10)).until(() -> versions.contains(last));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.status().processing() == 0);
		assertThat(versions).hasSizeBetween(2, 5);
		assertThat(overlaps).hasValue(0);
	}

	@Test
	void aStopLetsTheReconcileUnderWayFinishAndStartsNoOther() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger finished = new AtomicInteger();
		this.server.add("a");
		this.server.add("b");
		this.server.releaseList();
		start(1, (request) -> {
			started.countDown();
			release.await(10, TimeUnit.SECONDS);
			finished.incrementAndGet();
			return Result.done();
		});
		this.informer.start();
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Boolean> stopped = CompletableFuture
			.supplyAsync(() -> this.controller.stop(Duration.ofSeconds(10)));
		// the stop waits for the reconcile under way: let it finish once the queue takes
		// no more keys
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.controller.isRunning());
		assertThat(stopped).isNotDone();
		release.countDown();
		assertThat(stopped.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(finished).hasValue(1);
		this.server.add("c");
		assertThat(this.controller.status().reconciles()).isEqualTo(1);
	}

	@Test
	void aStartAfterAStopReconcilesEveryCachedKeyAndTheKeysLeftQueuedIncludingDeletedOnes() throws Exception {
		Map<String, Boolean> seen = new ConcurrentHashMap<>();
		this.server.add("a");
		this.server.add("b");
		this.server.releaseList();
		CountDownLatch first = new CountDownLatch(2);
		start(1, (request) -> {
			seen.put(request.key(), request.object().isPresent());
			first.countDown();
			return Result.done();
		});
		this.informer.start();
		assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.controller.stop(Duration.ofSeconds(5))).isTrue();
		seen.clear();
		// queued while stopped, its object never cached: a deletion seen by the last run
		this.controller.enqueue("default/gone");
		assertThat(this.controller.isRunning()).isFalse();
		this.controller.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 3);
		assertThat(seen).containsEntry("default/a", true)
			.containsEntry("default/b", true)
			.containsEntry("default/gone", false);
		this.controller.stop(Duration.ofSeconds(5));
		seen.clear();
		// a key the last run still had queued when it stopped comes back
		CountDownLatch holding = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		this.controller = new Controller<>("test", this.informer, (request) -> {
			seen.put(request.key(), request.object().isPresent());
			if (request.key().equals("default/a")) {
				holding.countDown();
				release.await(10, TimeUnit.SECONDS);
			}
			return Result.done();
		}, ControllerOptions.DEFAULTS, ObservationRegistry.NOOP);
		this.controller.start();
		assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
		this.controller.enqueue("default/deleted");
		CompletableFuture<Boolean> stopped = CompletableFuture
			.supplyAsync(() -> this.controller.stop(Duration.ofSeconds(10)));
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.controller.isRunning());
		release.countDown();
		assertThat(stopped.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(seen).doesNotContainKey("default/deleted");
		this.controller.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> seen.containsKey("default/deleted"));
		assertThat(seen).containsEntry("default/deleted", false);
	}

	@Test
	void aResyncQueuesEveryCachedKeyEachPeriod() throws Exception {
		Map<String, AtomicInteger> reconciles = new ConcurrentHashMap<>();
		this.server.add("a");
		this.server.add("b");
		this.server.releaseList();
		this.controller = new Controller<>("test", this.informer, (request) -> {
			reconciles.computeIfAbsent(request.key(), (key) -> new AtomicInteger()).incrementAndGet();
			return Result.done();
		}, ControllerOptions.DEFAULTS.withResyncPeriod(Duration.ofMillis(50)), ObservationRegistry.NOOP);
		this.controller.start();
		this.informer.start();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> reconciles.size() == 2 && reconciles.values().stream().allMatch((n) -> n.get() >= 3));
		assertThat(this.controller.status().failures()).isZero();
	}

	@Test
	void aConflictIsRetriedAndCountedAsOneAndEachReconcileIsObserved() throws Exception {
		List<String> observed = new CopyOnWriteArrayList<>();
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStop(Observation.Context context) {
				observed.add(context.getName() + " " + context.getLowCardinalityKeyValue("outcome").getValue() + " "
						+ context.getHighCardinalityKeyValue("key").getValue());
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		AtomicInteger attempts = new AtomicInteger();
		this.server.add("a");
		this.server.releaseList();
		this.controller = new Controller<>("test", this.informer, (request) -> {
			if (attempts.incrementAndGet() == 1) {
				throw new IllegalStateException("update failed",
						new KubernetesApiException(KubernetesApiException.Kind.OTHER, "PUT configmaps default/a",
								new Status(409, "Conflict", "the object has been modified"), null, null));
			}
			return Result.done();
		}, ControllerOptions.DEFAULTS.withBackoff(Duration.ofMillis(1), Duration.ofSeconds(1)), observations);
		this.controller.start();
		this.informer.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> observed.size() == 2);
		assertThat(observed).containsExactly("listwatch.reconcile conflict default/a",
				"listwatch.reconcile success default/a");
		ControllerStatus status = this.controller.status();
		assertThat(status.conflicts()).isEqualTo(1);
		assertThat(status.failures()).isEqualTo(1);
		assertThat(status.retries()).isEqualTo(1);
		assertThat(status.failing()).isEmpty();
		assertThat(status.work()).isPositive();
	}

	@Test
	void keysOutsideTheGateAreDroppedUntilTheirShardComesBackAndABusyKeyIsSeen() throws Exception {
		Map<String, AtomicInteger> reconciles = new ConcurrentHashMap<>();
		List<String> dropped = new CopyOnWriteArrayList<>();
		List<Boolean> owned = new CopyOnWriteArrayList<>();
		CountDownLatch holding = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		this.server.add("a");
		this.server.add("b");
		this.server.releaseList();
		this.controller = new Controller<>("test", this.informer, (request) -> {
			reconciles.computeIfAbsent(request.key(), (key) -> new AtomicInteger()).incrementAndGet();
			if (request.key().equals("default/a")) {
				owned.add(request.stillOwned());
				holding.countDown();
				release.await(10, TimeUnit.SECONDS);
				owned.add(request.stillOwned());
			}
			return Result.done();
		}, ControllerOptions.DEFAULTS.withWorkers(2), ObservationRegistry.NOOP);
		this.controller.onlyKeys((key) -> key.equals("default/a"), dropped::add);
		this.controller.start();
		this.informer.start();
		assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
		// b taken and dropped by the other worker, and told
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.controller.status().ready() == 0 && this.controller.status().processing() == 1
					&& this.controller.status().adds() == 2 && dropped.contains("default/b"));
		// a key given up while its reconcile runs is still seen busy, and no longer owned
		this.controller.onlyKeys((key) -> key.equals("default/b"), dropped::add);
		assertThat(this.controller.busyWith((key) -> key.equals("default/a"))).isTrue();
		release.countDown();
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.controller.busyWith((key) -> key.equals("default/a")));
		assertThat(owned).containsExactly(true, false);
		// b was dropped while the gate was closed to it; it comes back with its shard
		assertThat(reconciles).doesNotContainKey("default/b");
		this.controller.enqueueCached((key) -> key.equals("default/b"));
		await().atMost(Duration.ofSeconds(10)).until(() -> reconciles.containsKey("default/b"));
		assertThat(reconciles.get("default/a")).hasValue(1);
	}

	@Test
	void aReconcileOfAKeyGivenUpIsInterruptedAndNeitherRetriedNorKeptFailing() throws Exception {
		CountDownLatch holding = new CountDownLatch(1);
		AtomicInteger reconciles = new AtomicInteger();
		this.server.add("a");
		this.server.releaseList();
		this.controller = new Controller<>("test", this.informer, (request) -> {
			reconciles.incrementAndGet();
			holding.countDown();
			Thread.sleep(Duration.ofSeconds(30).toMillis());
			return Result.done();
		}, ControllerOptions.DEFAULTS.withBackoff(Duration.ofMillis(4), Duration.ofSeconds(1)),
				ObservationRegistry.NOOP);
		AtomicBoolean gate = new AtomicBoolean(true);
		this.controller.onlyKeys((key) -> gate.get(), (key) -> {
		});
		this.controller.start();
		this.informer.start();
		assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.controller.interrupt((key) -> key.equals("default/other"))).isZero();
		gate.set(false);
		assertThat(this.controller.interrupt((key) -> key.equals("default/a"))).isOne();
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.controller.busyWith((key) -> true));
		ControllerStatus status = this.controller.status();
		assertThat(status.failing()).isEmpty();
		assertThat(status.waiting()).isZero();
		assertThat(status.failures()).isOne();
		assertThat(reconciles).hasValue(1);
		// the worker's interrupt was for that reconcile only: it takes keys again
		gate.set(true);
		this.controller.enqueue("default/a");
		await().atMost(Duration.ofSeconds(10)).until(() -> reconciles.get() == 2);
	}

	@Test
	void anErrorInAReconcileIsRetriedAfterItsBackoffByAWorkerThatLivesOnAndIsLoggedCountedAndReportedDown(
			CapturedOutput output) throws Exception {
		CountDownLatch retried = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Map<String, Integer> done = new ConcurrentHashMap<>();
		this.server.add("a");
		this.server.add("b");
		this.server.releaseList();
		// the default: one worker
		start(1, (request) -> {
			if (request.key().equals("default/a")) {
				if (request.failures() == 0) {
					// walks a cyclic object: a StackOverflowError
					List<Object> cyclic = new ArrayList<>();
					cyclic.add(cyclic);
					depth(cyclic);
				}
				retried.countDown();
				release.await(10, TimeUnit.SECONDS);
			}
			done.merge(request.key(), 1, Integer::sum);
			return Result.done();
		});
		this.informer.start();
		assertThat(retried.await(10, TimeUnit.SECONDS)).isTrue();
		ControllerStatus status = this.controller.status();
		assertThat(status.failures()).isOne();
		assertThat(status.failing().get("default/a").exception()).isEqualTo(StackOverflowError.class.getName());
		// while the key's last reconcile is one that threw an Error, the controller is
		// down
		Health health = health();
		assertThat(health.getStatus()).isEqualTo(org.springframework.boot.health.contributor.Status.DOWN);
		assertThat(health.getDetails().get("reason").toString()).contains("java.lang.StackOverflowError");
		// through the logger, not the thread's end on stderr
		assertThat(output).contains("ERROR")
			.contains("Controller test failed to reconcile default/a")
			.contains("java.lang.StackOverflowError")
			.doesNotContain("Exception in thread");
		release.countDown();
		await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 2);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.status().failing().isEmpty());
		assertThat(health().getStatus()).isEqualTo(org.springframework.boot.health.contributor.Status.UP);
		// LIVE
	}

	@Test
	void anObservationHandlerThatThrowsOnStartFailsTheAttemptAndTheKeyIsRetried() throws Exception {
		AtomicInteger starts = new AtomicInteger();
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStart(Observation.Context context) {
				if (starts.incrementAndGet() == 1) {
					throw new IllegalStateException("the tracer is down");
				}
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		CountDownLatch reconciled = new CountDownLatch(1);
		this.server.add("a");
		this.server.releaseList();
		this.controller = new Controller<>("test", this.informer, (request) -> {
			reconciled.countDown();
			return Result.done();
		}, ControllerOptions.DEFAULTS.withBackoff(Duration.ofMillis(4), Duration.ofSeconds(1)), observations);
		this.controller.start();
		this.informer.start();
		assertThat(reconciled.await(10, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.status().processing() == 0);
		ControllerStatus status = this.controller.status();
		assertThat(status.failures()).isOne();
		assertThat(status.failing()).isEmpty();
		assertThat(starts).hasValue(2);
	}

	@Test
	void aResyncThatThrowsIsReportedDownAndTheNextResyncsRun() throws Exception {
		AtomicInteger resyncs = new AtomicInteger();
		CountDownLatch secondResync = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Map<String, AtomicInteger> reconciles = new ConcurrentHashMap<>();
		this.server.add("a");
		this.server.releaseList();
		this.controller = new Controller<>("test", this.informer, (request) -> {
			reconciles.computeIfAbsent(request.key(), (key) -> new AtomicInteger()).incrementAndGet();
			return Result.done();
		}, ControllerOptions.DEFAULTS.withResyncPeriod(Duration.ofMillis(20)), ObservationRegistry.NOOP);
		this.controller.cachedKeysFrom(() -> {
			int resync = resyncs.incrementAndGet();
			if (resync == 1) {
				throw new OutOfMemoryError("Java heap space");
			}
			if (resync == 2) {
				secondResync.countDown();
				try {
					release.await(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return this.informer.lister().keys();
		});
		this.controller.start();
		this.informer.start();
		assertThat(secondResync.await(10, TimeUnit.SECONDS)).isTrue();
		Health health = health();
		assertThat(health.getStatus()).isEqualTo(org.springframework.boot.health.contributor.Status.DOWN);
		assertThat(health.getDetails().get("reason").toString()).contains("resync")
			.contains("java.lang.OutOfMemoryError");
		release.countDown();
		// the initial list, then the resyncs after the failed one
		await().atMost(Duration.ofSeconds(10)).until(() -> reconciles.get("default/a").get() >= 3);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> health().getStatus().equals(org.springframework.boot.health.contributor.Status.UP));
	}

	private Health health() {
		return health(Duration.ofMinutes(10));
	}

	private Health health(Duration stuckAfter) {
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerSingleton("test", this.controller);
		@SuppressWarnings({ "unchecked", "rawtypes" })
		ObjectProvider<Controller<?>> controllers = (ObjectProvider) beans.getBeanProvider(Controller.class);
		HealthIndicator indicator = (HealthIndicator) new ControllersHealthContributor(controllers, stuckAfter,
				Duration.ofMinutes(10), org.springframework.boot.health.contributor.Status.DOWN)
			.getContributor("test");
		return indicator.health(true);
	}

	private static int depth(List<?> list) {
		return list.isEmpty() ? 0 : 1 + depth((List<?>) list.get(0));
	}

	private String version(String key) {
		return this.informer.lister().get(key).orElseThrow().metadata().resourceVersion();
	}

	/**
	 * A stop whose timeout passes while a reconcile ignores its interrupt, and a start at
	 * once (a leadership lost and won back, a context stop/start): the new run treats the
	 * old worker's key as being processed, so the key is never reconciled on two threads;
	 * the old reconcile's requeue goes to the new run; and the old reconcile counts as
	 * running in the status, which health reads for stuck workers.
	 */
	@Test
	void aNewRunWaitsForTheKeyOfAReconcileOfTheLastRunThatIgnoresItsInterruptAndTakesItsRequeue() throws Exception {
		AtomicInteger running = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger calls = new AtomicInteger();
		CountDownLatch holding = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch interrupted = new CountDownLatch(1);
		List<Long> startedAfterRelease = new CopyOnWriteArrayList<>();
		CountDownLatch requeueRun = new CountDownLatch(2);
		AtomicLong returnedAt = new AtomicLong();
		this.server.add("a");
		this.server.releaseList();
		start(2, (request) -> {
			if (running.incrementAndGet() > 1) {
				overlaps.incrementAndGet();
			}
			try {
				if (calls.incrementAndGet() == 1) {
					holding.countDown();
					// ignores its interrupt
					while (true) {
						try {
							if (release.await(10, TimeUnit.SECONDS)) {
								break;
							}
						}
						catch (InterruptedException ex) {
							interrupted.countDown();
						}
					}
					returnedAt.set(System.nanoTime());
					return Result.requeueAfter(Duration.ofMillis(300));
				}
				if (release.getCount() == 0) {
					startedAfterRelease.add(System.nanoTime());
					requeueRun.countDown();
				}
				return Result.done();
			}
			finally {
				running.decrementAndGet();
			}
		});
		this.informer.start();
		assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.controller.stop(Duration.ofMillis(100))).as("drained").isFalse();
		assertThat(interrupted.await(10, TimeUnit.SECONDS)).as("interrupted").isTrue();
		this.controller.start();
		String before = version("default/a");
		this.server.add("a");
		await().atMost(Duration.ofSeconds(10)).until(() -> !version("default/a").equals(before));
		ControllerStatus status = this.controller.status();
		SoftAssertions softly = new SoftAssertions();
		// the old reconcile has run for the 100 ms of the stop at least
		softly.assertThat(status.longestRunning()).as("longestRunning").isGreaterThanOrEqualTo(Duration.ofMillis(100));
		softly.assertThat(status.processing()).as("processing").isEqualTo(1);
		softly.assertThat(health(Duration.ofMillis(50)).getStatus())
			.as("health with stuck-after 50 ms")
			.isEqualTo(org.springframework.boot.health.contributor.Status.DOWN);
		// an interrupt of the reconciles under way (a shard given up) reaches it too
		softly.assertThat(this.controller.interruptReconciles()).as("reconciles interrupted").isEqualTo(1);
		release.countDown();
		// the change made meanwhile at once, and the requeue 300 ms after the old
		// reconcile returned
		boolean again = requeueRun.await(10, TimeUnit.SECONDS);
		softly.assertThat(again).as("reconciled twice after the release").isTrue();
		if (again) {
			softly.assertThat(startedAfterRelease.get(1) - returnedAt.get())
				.as("the requeue's delay")
				.isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());
		}
		softly.assertThat(overlaps).as("reconciles of one key at once").hasValue(0);
		softly.assertAll();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.status().processing() == 0);
		assertThat(this.controller.status().longestRunning()).isZero();
	}

	/**
	 * A leader-only controller on a follower: its watch sees deletions that the old
	 * leader did not reach before it stopped; this replica, leader next, reconciles them
	 * with every cached key.
	 */
	@Test
	void aNewTermReconcilesTheDeletionsItsWatchSawWhileItDidNotRun() throws Exception {
		Map<String, Boolean> seen = new ConcurrentHashMap<>();
		AtomicBoolean leader = new AtomicBoolean();
		this.server.add("kept");
		this.server.add("gone");
		this.server.releaseList();
		this.controller = new Controller<>("test", this.informer, (request) -> {
			seen.put(request.key(), request.object().isPresent());
			return Result.done();
		}, ControllerOptions.DEFAULTS, ObservationRegistry.NOOP);
		this.controller.runOnlyWhen(leader::get);
		this.informer.start();
		this.controller.start();
		assertThat(this.controller.isRunning()).as("a follower").isFalse();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.informer.lister().size() == 2);
		this.server.delete("gone");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.informer.lister().size() == 1);
		leader.set(true);
		this.controller.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 2);
		assertThat(seen).containsEntry("default/kept", true).containsEntry("default/gone", false);
	}

	private void start(int workers, Reconciler<KubernetesObject> reconciler) {
		this.controller = new Controller<>("test", this.informer, reconciler,
				ControllerOptions.DEFAULTS.withWorkers(workers)
					.withBackoff(Duration.ofMillis(4), Duration.ofSeconds(1)),
				ObservationRegistry.NOOP);
		this.controller.start();
	}

}
