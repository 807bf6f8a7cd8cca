package dev.listwatch.controller;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.listwatch.KubernetesObject;
import dev.listwatch.autoconfigure.health.FakeListerWatcher;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A controller on an informer over a scripted lister-watcher: keys reconciled once the
 * cache has synced, level-triggered, retried after failures until they succeed, one
 * worker per key, and a stop that lets the reconcile under way finish.
 */
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
		assertThat(this.controller.stats().reconciles()).isZero();
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
		Controller.Stats stats = this.controller.stats();
		assertThat(stats.failures()).isEqualTo(5);
		assertThat(stats.failing()).isEmpty();
		assertThat(this.controller.stats().queue().waiting()).isZero();
	}

	@Test
	void aKeyThatKeepsFailingShowsItsLastFailureWithoutTheObject() throws Exception {
		this.server.add("a");
		this.server.releaseList();
		start(1, (request) -> {
			throw new IllegalStateException("quota exhausted");
		});
		this.informer.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.stats().failures() >= 3);
		Controller.Failure failure = this.controller.stats().failing().get("default/a");
		assertThat(failure.exception()).isEqualTo(IllegalStateException.class.getName());
		assertThat(failure.message()).isEqualTo("quota exhausted");
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
		for (int i = 0; i < 100; i++) {
			this.server.add("a");
		}
		String last = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.informer.lister().get("default/a").orElseThrow().metadata().resourceVersion(),
					(version) -> Long.parseLong(version) >= 201);
		release.countDown();
		// the last change is reconciled, in a handful of reconciles rather than a hundred
		await().atMost(Duration.ofSeconds(10)).until(() -> versions.contains(last));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.stats().queue().processing() == 0);
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
		await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.stats().queue().shutDown());
		assertThat(stopped).isNotDone();
		release.countDown();
		assertThat(stopped.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(finished).hasValue(1);
		this.server.add("c");
		assertThat(this.controller.stats().reconciles()).isEqualTo(1);
	}

	private String version(String key) {
		return this.informer.lister().get(key).orElseThrow().metadata().resourceVersion();
	}

	private void start(int workers, Reconciler<KubernetesObject> reconciler) {
		this.controller = new Controller<>("test", this.informer, reconciler, workers,
				RateLimiter.exponential(Duration.ofMillis(4), Duration.ofSeconds(1)), Duration.ofMinutes(1),
				System::nanoTime);
		this.controller.start();
	}

}
