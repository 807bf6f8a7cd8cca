package dev.listwatch.leader;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import dev.listwatch.leader.FakeLeases.Replica;
import dev.listwatch.leader.LeaderStatus.Role;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The elector's own thread on a Lease in memory, in real time (short durations: lease 2
 * s, renew deadline 1 s, retry period 0.1 s): stop, a crash, and requests that never
 * answer.
 */
class LeaderElectorLifecycleTests {

	private static final Duration LEASE = Duration.ofSeconds(2);

	private static final Duration RENEW = Duration.ofSeconds(1);

	private static final Duration RETRY = Duration.ofMillis(100);

	private final FakeLeases server = new FakeLeases();

	private final Replica a = this.server.realTimeReplica("a", LEASE, RENEW, RETRY);

	@AfterEach
	void close() {
		this.a.elector().close();
	}

	@Test
	void stopPublishesTheRevokeAndThenReleasesTheLease() {
		this.a.elector().start();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.server.log().contains("granted a"));
		assertThat(this.a.elector().status().role()).isEqualTo(Role.LEADER);
		this.a.elector().stop();
		List<String> log = this.server.log();
		// renewals may go on while the revoke's listeners run; the release comes last
		List<String> after = log.subList(log.indexOf("revoked a STOPPED"), log.size());
		assertThat(after.get(after.size() - 1)).isEqualTo("write a holder=");
		assertThat(after.subList(1, after.size() - 1)).allMatch("write a holder=a"::equals);
		assertThat(this.server.current().record().held()).isFalse();
		assertThat(this.a.elector().isRunning()).isFalse();
		assertThat(this.a.elector().status().role()).isEqualTo(Role.STOPPED);
	}

	/**
	 * controller-runtime's order: a leader that stops renews its Lease until the revoke's
	 * listeners have drained its work (reconciles that take longer than the lease), and
	 * only then releases it; no other replica takes over meanwhile.
	 */
	@Test
	void aStoppingLeaderRenewsUntilItsRevokeListenersHaveDrainedThenReleases() throws Exception {
		LeaderElectionOptions durations = new LeaderElectionOptions("app", "ns", "x", LEASE, RENEW, RETRY);
		Replica leader = this.server.replica("l", durations, Duration.ZERO, 0);
		Replica follower = this.server.replica("f", durations, Duration.ZERO, 555_000_000_000L);
		CountDownLatch drain = new CountDownLatch(1);
		this.server.drainStopped = drain;
		leader.elector().start();
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> this.server.log().contains("granted l"));
			Thread stopping = new Thread(leader.elector()::stop, "stopping");
			stopping.start();
			await().atMost(Duration.ofSeconds(10)).until(() -> this.server.log().contains("revoked l STOPPED"));
			follower.elector().step();
			// three lease durations of draining, in steps of a quarter
			for (int i = 0; i < 12; i++) {
				long renewals = count("write l holder=l");
				this.server.advance(LEASE.dividedBy(4));
				await().atMost(Duration.ofSeconds(5)).until(() -> count("write l holder=l") > renewals);
				follower.elector().step();
				assertThat(follower.elector().isLeader()).isFalse();
				assertThat(leader.elector().isLeader()).as("the drained work may still write").isTrue();
			}
			assertThat(stopping.isAlive()).isTrue();
			drain.countDown();
			stopping.join(Duration.ofSeconds(10).toMillis());
			assertThat(stopping.isAlive()).isFalse();
			assertThat(this.server.log()).last().isEqualTo("write l holder=");
			follower.elector().step();
			assertThat(follower.elector().isLeader()).as("the released Lease is taken at once").isTrue();
		}
		finally {
			drain.countDown();
			leader.elector().close();
		}
	}

	/**
	 * A stop while the grant's listeners still run (starting the leader's work): its
	 * revoke goes out only after them, so no work they start outlives the release.
	 */
	@Test
	void aStopDuringTheGrantsListenersRevokesOnlyAfterThem() throws Exception {
		CountDownLatch hold = new CountDownLatch(1);
		this.server.holdGranted = hold;
		this.a.elector().start();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.server.log().contains("granted a"));
		Thread stopping = new Thread(this.a.elector()::stop, "stopping");
		stopping.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> stopping.getState() != Thread.State.RUNNABLE);
		assertThat(this.server.log()).doesNotContain("revoked a STOPPED");
		hold.countDown();
		stopping.join(Duration.ofSeconds(10).toMillis());
		List<String> log = this.server.log();
		assertThat(log.indexOf("revoked a STOPPED")).isGreaterThan(log.indexOf("granted a"));
		assertThat(log).last().isEqualTo("write a holder=");
	}

	private long count(String line) {
		return this.server.log().stream().filter(line::equals).count();
	}

	/**
	 * One renewal hangs (a request lost on a half-open connection): the attempt is cut
	 * off at half the renew deadline, and the next one renews in time; leadership never
	 * lapses.
	 */
	@Test
	void aRenewalThatHangsIsCutOffInTimeForTheNextToRenewBeforeTheDeadline() {
		this.a.elector().start();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.server.log().contains("granted a"));
		for (int i = 0; i < 3; i++) {
			long renewals = count("write a holder=a");
			long aborted = this.server.aborted.get();
			this.a.connection().hangNext.set(1);
			await().atMost(Duration.ofSeconds(5)).until(() -> this.server.aborted.get() > aborted);
			await().atMost(Duration.ofSeconds(5)).until(() -> count("write a holder=a") > renewals);
		}
		assertThat(this.server.log()).doesNotContain("revoked a RENEW_DEADLINE_PASSED");
		assertThat(this.a.elector().isLeader()).isTrue();
	}

	@Test
	void aStoppedElectorStartsAgain() {
		this.a.elector().start();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.server.log().contains("granted a"));
		this.a.elector().stop();
		this.a.elector().start();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.server.log().stream().filter("granted a"::equals).count() == 2);
		assertThat(this.a.elector().isLeader()).isTrue();
	}

	@Test
	void aHaltedElectorNeitherRevokesNorReleases() {
		this.a.elector().start();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.server.log().contains("granted a"));
		this.a.elector().halt();
		assertThat(this.server.log()).doesNotContain("revoked a STOPPED");
		assertThat(this.server.current().record().holderIdentity()).isEqualTo("a");
	}

	@Test
	void requestsThatNeverAnswerAreAbortedAndTheLeaderStopsAtItsRenewDeadline() {
		this.a.elector().start();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.server.log().contains("granted a"));
		long cut = System.nanoTime();
		this.a.connection().hang = true;
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.server.log().contains("revoked a RENEW_DEADLINE_PASSED"));
		long revokedAfter = Duration.ofNanos(System.nanoTime() - cut).toMillis();
		// the last renewal started at most one retry period before the cut; the revoke
		// comes at its start + 1 s, whatever the hanging request does
		assertThat(revokedAfter).isLessThanOrEqualTo(RENEW.toMillis() + 250);
		assertThat(revokedAfter).isGreaterThanOrEqualTo(RENEW.toMillis() - RETRY.toMillis() - 50);
		assertThat(this.server.aborted.get()).isPositive();
		assertThat(this.a.elector().status().lastError()).contains("no answer within");
		this.a.connection().hang = false;
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.server.log().stream().filter("granted a"::equals).count() == 2);
	}

}
