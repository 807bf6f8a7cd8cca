package dev.listwatch.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The work queue's promises, on a ticker the test moves: a key is processed once however
 * often it was added while it waited, never by two workers at once, and again when it was
 * added while processed; delays and backoff are honoured; a shutdown lets the keys in
 * flight finish.
 */
class WorkQueueTests {

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final WorkQueue<String> queue = new WorkQueue<>(
			RateLimiter.exponential(Duration.ofMillis(5), Duration.ofSeconds(1000)), Duration.ofMinutes(10),
			this.nanos::get);

	private final ExecutorService workers = Executors.newFixedThreadPool(4);

	@AfterEach
	void stop() {
		this.queue.shutDown();
		this.workers.shutdownNow();
	}

	@Test
	void aKeyAddedTwiceBeforeAWorkerTakesItIsProcessedOnce() {
		this.queue.add("a");
		this.queue.add("b");
		this.queue.add("a");
		assertThat(this.queue.poll()).isEqualTo("a");
		assertThat(this.queue.poll()).isEqualTo("b");
		assertThat(this.queue.poll()).isNull();
		assertThat(this.queue.depth().adds()).isEqualTo(2);
	}

	@Test
	void aKeyAddedWhileProcessedIsNotGivenToAnotherWorkerButQueuedAgainWhenDone() {
		this.queue.add("a");
		assertThat(this.queue.poll()).isEqualTo("a");
		this.queue.add("a");
		this.queue.add("a");
		// the first worker still has it
		assertThat(this.queue.poll()).isNull();
		assertThat(this.queue.depth().processing()).isEqualTo(1);
		this.queue.done("a");
		assertThat(this.queue.poll()).isEqualTo("a");
		this.queue.done("a");
		assertThat(this.queue.poll()).isNull();
	}

	@Test
	void aKeyDoneWithoutBeingAddedMeanwhileIsNotQueuedAgain() {
		this.queue.add("a");
		this.queue.done(this.queue.poll());
		assertThat(this.queue.poll()).isNull();
		assertThat(this.queue.depth()).isEqualTo(new WorkQueue.Depth(0, 0, 0, 1, 1, false, 0, 0, 0, 0, 0, 1, 0));
	}

	@Test
	void whatAQueueShutDownStillHeldOrWasGivenAfterwardsRemainsForTheNext() {
		this.queue.add("queued");
		this.queue.add("processed");
		this.queue.addAfter("delayed", Duration.ofSeconds(5));
		assertThat(this.queue.poll()).isEqualTo("queued");
		assertThat(this.queue.poll()).isEqualTo("processed");
		this.queue.done("queued");
		this.queue.shutDown();
		this.queue.add("late");
		this.queue.addRateLimited("processed");
		this.queue.done("processed");
		assertThat(this.queue.poll()).isNull();
		assertThat(this.queue.remaining()).containsExactlyInAnyOrder("delayed", "late", "processed");
	}

	@Test
	void theQueueTimesHowLongKeysWaitForAWorkerAndHowLongWorkersSpendOnThem() {
		this.queue.add("a");
		this.queue.add("b");
		this.nanos.addAndGet(3_000);
		assertThat(this.queue.depth().oldestReadyNanos()).isEqualTo(3_000);
		assertThat(this.queue.poll()).isEqualTo("a");
		this.nanos.addAndGet(2_000);
		assertThat(this.queue.poll()).isEqualTo("b");
		this.nanos.addAndGet(1_000);
		WorkQueue.Depth working = this.queue.depth();
		assertThat(working.oldestReadyNanos()).isZero();
		assertThat(working.longestRunningNanos()).isEqualTo(3_000);
		assertThat(working.unfinishedNanos()).isEqualTo(3_000 + 1_000);
		assertThat(working.waitedNanos()).isEqualTo(3_000 + 5_000);
		this.queue.done("a");
		this.queue.addRateLimited("b");
		this.queue.done("b");
		WorkQueue.Depth done = this.queue.depth();
		assertThat(done.worked()).isEqualTo(2);
		assertThat(done.workedNanos()).isEqualTo(3_000 + 1_000);
		assertThat(done.retries()).isEqualTo(1);
		assertThat(done.waiting()).isEqualTo(1);
		assertThat(done.longestRunningNanos()).isZero();
	}

	@Test
	void aDelayedKeyIsQueuedOnceItIsDueAndTheEarliestDelayWins() {
		this.queue.addAfter("a", Duration.ofSeconds(10));
		this.queue.addAfter("a", Duration.ofSeconds(3));
		this.queue.addAfter("a", Duration.ofSeconds(20));
		assertThat(this.queue.poll()).isNull();
		assertThat(this.queue.depth().waiting()).isEqualTo(1);
		advance(Duration.ofMillis(2999));
		assertThat(this.queue.poll()).isNull();
		advance(Duration.ofMillis(1));
		assertThat(this.queue.poll()).isEqualTo("a");
		this.queue.done("a");
		// the later delays were superseded, not kept
		advance(Duration.ofSeconds(30));
		assertThat(this.queue.poll()).isNull();
	}

	@Test
	void delaysAreCutToTheLongestDelay() {
		this.queue.addAfter("a", Duration.ofDays(365));
		advance(this.queue.maxDelay());
		assertThat(this.queue.poll()).isEqualTo("a");
	}

	@Test
	void failuresBackOffExponentiallyPerKeyAndASuccessForgetsThem() {
		assertThat(this.queue.addRateLimited("a")).isEqualTo(Duration.ofMillis(5));
		assertThat(this.queue.addRateLimited("a")).isEqualTo(Duration.ofMillis(10));
		assertThat(this.queue.addRateLimited("a")).isEqualTo(Duration.ofMillis(20));
		assertThat(this.queue.addRateLimited("b")).isEqualTo(Duration.ofMillis(5));
		assertThat(this.queue.failures("a")).isEqualTo(3);
		this.queue.forget("a");
		assertThat(this.queue.failures("a")).isZero();
		assertThat(this.queue.addRateLimited("a")).isEqualTo(Duration.ofMillis(5));
	}

	@Test
	void aWorkerWaitingForADelayedKeyTakesItWhenItIsDue() throws Exception {
		this.queue.addAfter("a", Duration.ofSeconds(1));
		CountDownLatch took = new CountDownLatch(1);
		this.workers.execute(() -> {
			try {
				if ("a".equals(this.queue.take())) {
					took.countDown();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		assertThat(took.await(100, TimeUnit.MILLISECONDS)).isFalse();
		advance(Duration.ofSeconds(1));
		this.queue.wakeUp();
		assertThat(took.await(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void manyWorkersNeverHoldOneKeyAtOnceAndTheLastAddIsProcessed() throws Exception {
		Set<String> held = ConcurrentHashMap.newKeySet();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger processed = new AtomicInteger();
		CountDownLatch stopped = new CountDownLatch(4);
		for (int i = 0; i < 4; i++) {
			this.workers.execute(() -> {
				try {
					String key;
					while ((key = this.queue.take()) != null) {
						if (!held.add(key)) {
							overlaps.incrementAndGet();
						}
						processed.incrementAndGet();
						Thread.onSpinWait();
						held.remove(key);
						this.queue.done(key);
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				finally {
					stopped.countDown();
				}
			});
		}
		List<String> keys = new ArrayList<>();
		for (int k = 0; k < 20; k++) {
			keys.add("key-" + k);
		}
		for (int round = 0; round < 500; round++) {
			for (String key : keys) {
				this.queue.add(key);
			}
		}
		// every key added last is processed after that add: the queue empties
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			WorkQueue.Depth depth = this.queue.depth();
			if (depth.ready() == 0 && depth.processing() == 0) {
				break;
			}
			Thread.onSpinWait();
		}
		WorkQueue.Depth depth = this.queue.depth();
		assertThat(depth.ready()).isZero();
		assertThat(depth.processing()).isZero();
		assertThat(overlaps).hasValue(0);
		// deduplicated: far fewer than the 10,000 adds, at least one per key
		assertThat(processed.get()).isBetween(20, 10_000);
		assertThat(depth.taken()).isEqualTo(processed.get());
		this.queue.shutDown();
		assertThat(stopped.await(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aShutdownGivesNoMoreKeysAndWaitsForTheKeysInFlight() throws Exception {
		this.queue.add("a");
		this.queue.add("b");
		String inFlight = this.queue.poll();
		this.queue.shutDown();
		this.queue.add("c");
		assertThat(this.queue.poll()).isNull();
		assertThat(this.queue.take()).isNull();
		assertThat(this.queue.awaitDrained(Duration.ofMillis(50))).isFalse();
		CountDownLatch drained = new CountDownLatch(1);
		this.workers.execute(() -> {
			try {
				if (this.queue.awaitDrained(Duration.ofSeconds(10))) {
					drained.countDown();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		this.queue.done(inFlight);
		assertThat(drained.await(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aQueueHandedOverKeepsTheKeysItsWorkersStillHaveFromTheNextAndSendsItTheirDoneAndRequeues() {
		this.queue.add("held");
		this.queue.add("queued");
		assertThat(this.queue.poll()).isEqualTo("held");
		advance(Duration.ofSeconds(3));
		this.queue.shutDown();
		WorkQueue<String> next = new WorkQueue<>(
				RateLimiter.exponential(Duration.ofMillis(5), Duration.ofSeconds(1000)), Duration.ofMinutes(10),
				this.nanos::get);
		this.queue.handOver(next);
		advance(Duration.ofSeconds(2));
		// the old worker still has it: the next queue gives it to none of its workers,
		// and counts the time since the old worker took it
		next.add("held");
		assertThat(next.depth().processing()).isEqualTo(1);
		assertThat(next.depth().longestRunningNanos()).isEqualTo(Duration.ofSeconds(5).toNanos());
		assertThat(next.poll()).isEqualTo("queued");
		assertThat(next.poll()).isNull();
		// the old worker's requeue and done go to the next queue
		this.queue.addAfter("held", Duration.ofSeconds(1));
		this.queue.done("held");
		assertThat(next.depth().waiting()).isEqualTo(1);
		assertThat(next.poll()).as("added while the old worker had it").isEqualTo("held");
		next.done("held");
		assertThat(next.poll()).isNull();
		advance(Duration.ofSeconds(1));
		assertThat(next.poll()).as("the requeue").isEqualTo("held");
		assertThat(this.queue.depth().processing()).isZero();
		next.shutDown();
	}

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

}
