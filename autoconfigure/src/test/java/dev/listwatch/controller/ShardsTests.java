package dev.listwatch.controller;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import dev.listwatch.leader.ManualMembership;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a sharded controller interrupts the reconciles of the shards its membership gave
 * up after a self-fence: half the smaller of the margin and the renew deadline after that
 * deadline (2.5 s for lease 15 s, renew deadline 10 s), at once when a freeze has taken
 * it past, on a membership whose time the test moves.
 */
class ShardsTests {

	private final ManualMembership group = new ManualMembership();

	private final Keys keys = new Keys();

	private final Shards shards = new Shards(this.keys, this, this.group.factory("me", 1), System::nanoTime);

	@AfterEach
	void stop() {
		this.shards.stop();
	}

	@Test
	void afterAFreezePastTheMarginTheReconcilesOfTheFencedShardsAreInterruptedAtOnce() throws Exception {
		runAllShards();
		this.group.cutOff();
		this.group.advance(Duration.ofSeconds(20));
		long noticed = System.nanoTime();
		this.group.step();
		assertThat(this.keys.interrupted.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(Duration.ofNanos(this.keys.interruptedAt.get() - noticed).toMillis()).isLessThan(1000);
	}

	@Test
	void aFenceNoticedOnTimeLeavesThemTheRestOfTheirTime() throws Exception {
		runAllShards();
		this.group.cutOff();
		// noticed 1 s after the deadline: 1.5 s of the 2.5 s are left
		this.group.advance(Duration.ofSeconds(11));
		long noticed = System.nanoTime();
		this.group.step();
		assertThat(this.keys.interrupted.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(Duration.ofNanos(this.keys.interruptedAt.get() - noticed).toMillis()).isBetween(1400L, 2400L);
	}

	private void runAllShards() {
		this.shards.start();
		for (int i = 0; i < 20 && !this.shards.owns("default/a"); i++) {
			this.group.step();
			this.group.advance(Duration.ofSeconds(2));
		}
		assertThat(this.shards.owns("default/a")).isTrue();
		this.group.step();
	}

	/** A controller's keys with one reconcile of {@code default/a} in flight. */
	static final class Keys implements ShardedKeys {

		final CountDownLatch interrupted = new CountDownLatch(1);

		final AtomicLong interruptedAt = new AtomicLong();

		@Override
		public String name() {
			return "copy";
		}

		@Override
		public boolean awaitSynced(Duration timeout) throws InterruptedException {
			// never synced: the membership is stepped by the test, not by its thread
			return new CountDownLatch(1).await(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}

		@Override
		public boolean cached(String key) {
			return true;
		}

		@Override
		public void enqueue(String key) {
		}

		@Override
		public void enqueueCached(Predicate<String> which) {
		}

		@Override
		public boolean busyWith(Predicate<String> which) {
			return which.test("default/a") && this.interrupted.getCount() > 0;
		}

		@Override
		public int interrupt(Predicate<String> which) {
			if (which.test("default/a") && this.interrupted.getCount() > 0) {
				this.interruptedAt.set(System.nanoTime());
				this.interrupted.countDown();
				return 1;
			}
			return 0;
		}

		@Override
		public Set<String> queued() {
			return Set.of();
		}

		@Override
		public boolean showsExceptionMessages() {
			return false;
		}

	}

}
