package dev.listwatch.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.listwatch.leader.FakeLeases.Replica;
import dev.listwatch.leader.LeaderStatus.Role;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The election algorithm on a Lease in memory, driven step by step on a time moved by
 * hand: no thread, no sleep. Durations: lease 15 s, renew deadline 10 s, retry period 2 s
 * (client-go's).
 */
class LeaderElectorTests {

	private static final LeaderElectionOptions DEFAULTS = LeaderElectionOptions.of("app", "ns", "x");

	private static final Duration RETRY = DEFAULTS.retryPeriod();

	private final FakeLeases server = new FakeLeases();

	private final Replica a = this.server.replica("a", DEFAULTS, Duration.ZERO, 0);

	private final Replica b = this.server.replica("b", DEFAULTS, Duration.ZERO, 777_000_000_000L);

	@Test
	void theFirstReplicaCreatesTheLeaseAndIsGranted() {
		this.a.elector().step();
		assertThat(this.server.log()).containsExactly("write a holder=a", "granted a");
		assertThat(this.a.elector().isLeader()).isTrue();
		LeaderStatus status = this.a.elector().status();
		assertThat(status.holder()).isEqualTo("a");
		assertThat(status.leaseTransitions()).isZero();
		assertThat(this.server.current().record().leaseDurationSeconds()).isEqualTo(15);
		assertThat(this.server.current().record().renewTime()).isEqualTo("2025-01-01T00:00:00.000000Z");
	}

	@Test
	void aFollowerTakesOverOnlyOnceItHasSeenTheLeaseUnchangedForTheLeaseDuration() {
		this.a.elector().step();
		this.server.advance(Duration.ofSeconds(100));
		// b sees the Lease for the first time now: however old its renewTime, b waits 15
		// s from here
		this.b.elector().step();
		assertThat(this.b.elector().isLeader()).isFalse();
		assertThat(this.b.elector().status().holder()).isEqualTo("a");
		this.server.advance(Duration.ofSeconds(15));
		this.b.elector().step();
		assertThat(this.b.elector().isLeader()).as("expires strictly after the lease duration").isFalse();
		this.server.advance(Duration.ofMillis(1));
		this.b.elector().step();
		assertThat(this.b.elector().isLeader()).isTrue();
		assertThat(this.server.current().record().holderIdentity()).isEqualTo("b");
		assertThat(this.server.current().record().leaseTransitions()).isEqualTo(1);
	}

	@Test
	void wallClocksSetApartByHoursChangeNothing() {
		Replica ahead = this.server.replica("ahead", DEFAULTS, Duration.ofHours(3), 5);
		Replica behind = this.server.replica("behind", DEFAULTS, Duration.ofHours(-3), -5);
		behind.elector().step();
		ahead.elector().step();
		assertThat(ahead.elector().isLeader()).isFalse();
		for (int i = 0; i < 20; i++) {
			this.server.advance(RETRY);
			behind.elector().step();
			ahead.elector().step();
			assertThat(behind.elector().isLeader()).isTrue();
			assertThat(ahead.elector().isLeader()).isFalse();
		}
	}

	/**
	 * Two live processes given one identity (a copied {@code identity:}): never both
	 * leaders, and the one that stands down says why.
	 */
	@Test
	void twoProcessesWithOneIdentityNeverLeadTogether() {
		Replica first = this.server.replica("same", DEFAULTS, Duration.ZERO, 0);
		Replica second = this.server.replica("same", DEFAULTS, Duration.ofMillis(3), 123_000_000_000L);
		first.elector().step();
		assertThat(first.elector().isLeader()).isTrue();
		for (int i = 0; i < 30; i++) {
			second.elector().step();
			assertThat(first.elector().isLeader() && second.elector().isLeader()).as("both lead, round %d", i)
				.isFalse();
			this.server.advance(RETRY);
			first.elector().step();
			assertThat(first.elector().isLeader() && second.elector().isLeader()).as("both lead, round %d", i)
				.isFalse();
		}
		assertThat(first.elector().isLeader()).isTrue();
		assertThat(second.elector().status().lastError()).contains("Another live process renews Lease ns/app")
			.contains("'same'");
	}

	/**
	 * A process restarted with the identity of its crashed predecessor (a StatefulSet's
	 * pod name) waits the Lease out as any follower; a released one it takes at once.
	 */
	@Test
	void aLeaseHeldUnderThisIdentityByAnEarlierRunIsWaitedOut() {
		Replica crashed = this.server.replica("same", DEFAULTS, Duration.ZERO, 0);
		crashed.elector().step();
		Replica restarted = this.server.replica("same", DEFAULTS, Duration.ofMillis(3), 5);
		restarted.elector().step();
		assertThat(restarted.elector().isLeader()).isFalse();
		this.server.advance(DEFAULTS.leaseDuration());
		restarted.elector().step();
		assertThat(restarted.elector().isLeader()).isFalse();
		this.server.advance(Duration.ofMillis(1));
		restarted.elector().step();
		assertThat(restarted.elector().isLeader()).isTrue();
		assertThat(restarted.elector().status().lastError()).isNull();
	}

	@Test
	void theLeaderRenewsEveryRetryPeriodAndFollowersNeverTakeOver() {
		this.a.elector().step();
		for (int i = 0; i < 30; i++) {
			this.server.advance(RETRY);
			this.a.elector().checkDeadline();
			this.a.elector().step();
			this.b.elector().step();
		}
		assertThat(this.server.log()).filteredOn((line) -> !line.startsWith("write")).containsExactly("granted a");
		assertThat(this.a.elector().status().lastRenewal()).isNotNull();
	}

	@Test
	void aLeaderCutOffStopsAtItsRenewDeadlineBeforeTheOthersMayTakeOver() {
		this.a.elector().step();
		this.b.elector().step();
		this.server.advance(RETRY);
		this.a.elector().step();
		long lastRenewal = this.server.nanos.get();
		this.a.connection().down = true;
		List<String> timeline = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			this.server.advance(Duration.ofMillis(100));
			int before = this.server.log().size();
			this.a.elector().checkDeadline();
			if (i % 20 == 0) {
				this.a.elector().step();
				this.b.elector().step();
			}
			this.server.log()
				.subList(before, this.server.log().size())
				.forEach((line) -> timeline.add((this.server.nanos.get() - lastRenewal) / 1_000_000 + " ms " + line));
		}
		// a stops 10 s after the start of its last renewal; b first saw that renewal 100
		// ms after it, may take over 15 s after that, and tries every 2 s: at 16.1 s
		assertThat(timeline).filteredOn((line) -> !line.contains("write"))
			.containsExactly("10000 ms revoked a RENEW_DEADLINE_PASSED", "16100 ms granted b");
		assertThat(this.a.elector().status().failures()).isPositive();
		assertThat(this.a.elector().status().lastError()).contains("Connection refused");
	}

	@Test
	void isLeaderTurnsFalseAtTheDeadlineEvenBeforeTheRevokeIsPublished() {
		this.a.elector().step();
		this.server.advance(Duration.ofMillis(9_999));
		assertThat(this.a.elector().isLeader()).isTrue();
		this.server.advance(Duration.ofMillis(1));
		assertThat(this.a.elector().isLeader()).isFalse();
		assertThat(this.a.elector().status().role()).isEqualTo(Role.STOPPED);
		assertThat(this.server.log()).containsExactly("write a holder=a", "granted a");
	}

	@Test
	void aConflictOnRenewalIsRetriedByReadingTheLeaseAgain() {
		this.a.elector().step();
		this.server.touch();
		this.server.advance(RETRY);
		this.a.elector().step();
		assertThat(this.a.elector().isLeader()).isTrue();
		assertThat(this.a.elector().status().conflicts()).isEqualTo(1);
		assertThat(this.a.elector().status().lastError()).isNull();
		assertThat(this.server.log()).filteredOn((line) -> !line.startsWith("write")).containsExactly("granted a");
	}

	@Test
	void ofTwoReplicasWritingAtOnceOneGetsAConflictAndStaysFollower() {
		this.server.overwrite(new LeaseRecord("", 1, null, null, 0));
		// a reads the released Lease; b reads and writes it before a's write arrives
		this.a.connection().beforeUpdate = () -> this.b.elector().step();
		this.a.elector().step();
		assertThat(this.b.elector().isLeader()).isTrue();
		assertThat(this.a.elector().isLeader()).isFalse();
		assertThat(this.a.elector().status().conflicts()).isEqualTo(1);
		assertThat(this.a.elector().status().failures()).isZero();
		assertThat(this.a.elector().status().lastError()).contains("409");
		this.server.advance(RETRY);
		this.a.elector().step();
		assertThat(this.a.elector().status().lastError()).isNull();
		assertThat(this.a.elector().status().holder()).isEqualTo("b");
		assertThat(this.server.log()).filteredOn((line) -> !line.startsWith("write")).containsExactly("granted b");
	}

	@Test
	void aConflictWithANewHolderRevokesAtOnce() {
		this.a.elector().step();
		this.server.overwrite(new LeaseRecord("", 1, null, null, 0));
		this.a.connection().beforeUpdate = () -> this.b.elector().step();
		this.server.advance(RETRY);
		this.a.elector().step();
		assertThat(this.a.elector().status().conflicts()).isEqualTo(1);
		assertThat(this.server.log()).filteredOn((line) -> !line.startsWith("write"))
			.containsExactly("granted a", "granted b", "revoked a LOST");
	}

	@Test
	void seeingTheLeaseHeldByAnotherRevokesAtOnce() {
		this.a.elector().step();
		this.server.overwrite(new LeaseRecord("intruder", 15, null, null, 1));
		this.server.advance(RETRY);
		this.a.elector().step();
		assertThat(this.server.log()).filteredOn((line) -> !line.startsWith("write"))
			.containsExactly("granted a", "revoked a LOST");
		assertThat(this.a.elector().isLeader()).isFalse();
	}

	@Test
	void aReleasedLeaseIsTakenAtTheNextRetry() {
		this.a.elector().step();
		this.b.elector().step();
		this.a.elector().release();
		assertThat(this.server.current().record().holderIdentity()).isEmpty();
		assertThat(this.server.current().record().leaseDurationSeconds()).isEqualTo(1);
		this.server.advance(RETRY);
		this.b.elector().step();
		assertThat(this.b.elector().isLeader()).isTrue();
	}

	@Test
	void aWriteAnsweredAfterTheRenewDeadlineGrantsNothing() {
		this.a.elector().step();
		this.server.overwrite(new LeaseRecord("", 1, null, null, 0));
		this.b.connection().beforeUpdate = () -> this.server.advance(Duration.ofSeconds(10));
		this.b.elector().step();
		assertThat(this.server.current().record().holderIdentity()).isEqualTo("b");
		assertThat(this.b.elector().isLeader()).isFalse();
		assertThat(this.server.log()).doesNotContain("granted b");
		this.b.elector().step();
		assertThat(this.b.elector().isLeader()).isTrue();
	}

	@Test
	void followersWaitUpToTheRetryPeriodAndTheLeaderNoLongerThanItsDeadline() {
		long retry = RETRY.toNanos();
		for (int i = 0; i < 100; i++) {
			assertThat(this.b.elector().nextDelayNanos()).isBetween((long) (retry * 0.8), retry);
		}
		this.a.elector().step();
		assertThat(this.a.elector().nextDelayNanos()).isEqualTo(retry);
		this.a.connection().down = true;
		this.server.advance(Duration.ofMillis(9_500));
		assertThat(this.a.elector().nextDelayNanos()).isEqualTo(Duration.ofMillis(500).toNanos());
	}

}
