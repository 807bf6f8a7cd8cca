package dev.listwatch.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;

import dev.listwatch.leader.FakeMemberLeases.Change;
import dev.listwatch.leader.FakeMemberLeases.Replica;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The membership's decisions on Leases in memory, driven step by step on a time moved by
 * hand: no thread, no sleep. Durations: lease 15 s, renew deadline 10 s, retry period 2
 * s; 12 shards. After every move of time the test checks that no shard runs on two
 * replicas at once, as the listeners were told and as {@link ShardMembership#owns(int)}
 * says.
 */
class ShardMembershipTests {

	private static final Duration RETRY = Duration.ofSeconds(2);

	private static final Duration TICK = Duration.ofMillis(100);

	private static final Set<Integer> ALL = new TreeSet<>(IntStream.range(0, FakeMemberLeases.SHARDS).boxed().toList());

	private final FakeMemberLeases server = new FakeMemberLeases();

	/**
	 * The replicas the loop runs (steps and deadline checks); others are dead or frozen.
	 */
	private final List<Replica> alive = new ArrayList<>();

	private final Map<Replica, Long> nextStep = new HashMap<>();

	@AfterEach
	void noShardRanOnTwoReplicasAtOnce() {
		Map<Integer, String> owner = new HashMap<>();
		for (Change change : this.server.changes) {
			for (int shard : change.shards()) {
				if (change.started()) {
					assertThat(owner.putIfAbsent(shard, change.identity())).as("shard %d started by %s", shard, change)
						.isNull();
				}
				else {
					assertThat(owner.remove(shard)).as(change.toString()).isEqualTo(change.identity());
				}
			}
		}
	}

	@Test
	void twoThenThreeMembersConvergeToDisjointSharesCoveringAllShardsWithinOneOfEven() {
		Replica a = join("a");
		Replica b = join("b");
		run(RETRY.multipliedBy(4));
		assertCover(a, b);
		assertThat(a.running()).hasSize(6);
		Replica c = join("c");
		run(RETRY.multipliedBy(4));
		assertCover(a, b, c);
		assertThat(List.of(a, b, c)).allSatisfy((r) -> assertThat(r.running()).hasSize(4));
		assertThat(c.membership().status().members()).containsExactly("a", "b", "c");
		assertThat(c.membership().status().handOvers()).isEqualTo(4);
		assertThat(a.membership().status().handOvers() + b.membership().status().handOvers()).isEqualTo(2 + 2);
	}

	@Test
	void aJoiningMemberStartsAShardOnlyOnceTheOldOwnerDrainedItAndNoLongerListsIt() {
		Replica a = join("a");
		run(RETRY.multipliedBy(2));
		assertThat(a.running()).isEqualTo(ALL);
		a.recorder().busy.addAll(ALL);
		Replica b = join("b");
		run(RETRY.multipliedBy(3));
		// a stopped b's share at once, but keeps it listed while it is not drained
		Set<Integer> moving = new TreeSet<>(ALL);
		moving.removeAll(a.running());
		assertThat(moving).hasSize(6);
		assertThat(b.running()).isEmpty();
		assertThat(this.server.lease(a.leaseName()).shards()).isEqualTo(ALL);
		assertThat(b.membership().status().listed()).isEqualTo(moving);
		run(RETRY.multipliedBy(2));
		assertThat(b.running()).isEmpty();
		a.recorder().busy.clear();
		run(RETRY);
		// a's next step drops them; b's next step starts them
		assertThat(this.server.lease(a.leaseName()).shards()).isEqualTo(a.running());
		run(RETRY);
		assertThat(b.running()).isEqualTo(moving);
		assertCover(a, b);
	}

	@Test
	void aShardThatDoesNotDrainIsReleasedAtTheRenewDeadlineAfterItStopped() {
		Replica a = join("a");
		run(RETRY.multipliedBy(2));
		a.recorder().busy.addAll(ALL);
		Replica b = join("b");
		run(Duration.ofSeconds(9));
		assertThat(b.running()).isEmpty();
		run(Duration.ofSeconds(6));
		assertCover(a, b);
	}

	@Test
	void aKilledMemberIsDroppedAfterTheLeaseDurationOfObservedSilenceAndItsShardsAreTakenThenNeverBefore() {
		Replica a = join("a");
		Replica b = join("b");
		run(RETRY.multipliedBy(4));
		assertCover(a, b);
		Set<Integer> ofA = new TreeSet<>(a.running());
		String aLease = a.leaseName();
		String lastVersion = this.server.lease(aLease).resourceVersion();
		kill(a);
		long killed = this.server.nanos.get();
		// a's last write was at most a retry period before the kill
		run(Duration.ofSeconds(15).minus(RETRY).minusMillis(100));
		assertThat(b.running()).hasSize(6);
		assertThat(b.membership().status().members()).containsExactly("a", "b");
		assertThat(this.server.lease(aLease).resourceVersion()).isEqualTo(lastVersion);
		run(Duration.ofSeconds(7));
		// b deleted the expired Lease, unchanged since the kill
		assertThat(this.server.lease(aLease)).isNull();
		assertThat(this.server.deletions).containsExactly(aLease);
		assertThat(b.running()).isEqualTo(ALL);
		assertThat(b.membership().status().members()).containsExactly("b");
		long took = this.server.changes.stream()
			.filter((change) -> change.started() && change.identity().equals("b") && change.shards().equals(ofA))
			.mapToLong(Change::nanos)
			.findFirst()
			.orElseThrow() - killed;
		// b last saw a's Lease change at most a retry period before or after the kill; it
		// looks again just after 15 s from then, claims, and starts at the step right
		// after: within a lease duration and a retry period of the kill
		assertThat(Duration.ofNanos(took)).isBetween(Duration.ofSeconds(15).minus(RETRY),
				Duration.ofSeconds(15).plus(RETRY));
	}

	@Test
	void aMemberJoiningAfterAKillTakesItsShareAtOnceNotALeaseDurationLater() {
		Replica a = join("a");
		Replica b = join("b");
		Replica c = join("c");
		run(RETRY.multipliedBy(4));
		assertCover(a, b, c);
		kill(a);
		run(Duration.ofSeconds(20));
		assertCover(b, c);
		long joined = this.server.nanos.get();
		Replica d = join("d");
		// the survivors deleted a's Lease: d never sees it, so nothing waits on it
		run(RETRY.multipliedBy(3));
		assertCover(b, c, d);
		assertThat(d.running()).hasSize(4);
		long started = this.server.changes.stream()
			.filter((change) -> change.started() && change.identity().equals("d"))
			.mapToLong(Change::nanos)
			.max()
			.orElseThrow();
		assertThat(Duration.ofNanos(started - joined)).isLessThanOrEqualTo(RETRY.multipliedBy(3));
	}

	@Test
	void aMemberWhoseListsFailWhileItsWritesSucceedStopsHoldingItsLeaseSoTheOthersTakeItsShare() {
		Replica a = join("a");
		Replica b = join("b");
		run(RETRY.multipliedBy(4));
		assertCover(a, b);
		a.connection().listsDown = true;
		run(Duration.ofSeconds(11));
		// fenced at its renew deadline; its writes go on, without a holder
		assertThat(a.running()).isEmpty();
		assertThat(this.server.lease(a.leaseName()).held()).isFalse();
		run(Duration.ofSeconds(20));
		assertThat(b.running()).isEqualTo(ALL);
		assertThat(b.membership().status().members()).containsExactly("b");
		// its lists answer again: it holds its Lease again and gets its share back
		a.connection().listsDown = false;
		run(RETRY.multipliedBy(4));
		assertThat(this.server.lease(a.leaseName()).held()).isTrue();
		assertCover(a, b);
		assertThat(a.running()).hasSize(6);
	}

	@Test
	void aMemberThatSeesAnotherNumberOfShardsOnALiveLeaseStandsDownUntilTheyAgree() {
		Replica a = join("a");
		Replica b = join("b");
		run(RETRY.multipliedBy(4));
		assertCover(a, b);
		// b is restarted with another number of shards, a is not
		b.connection().shardCount = 24;
		run(RETRY.multipliedBy(3));
		assertThat(a.running()).isEmpty();
		assertThat(a.membership().status().lastError()).contains("disagree on the number of shards")
			.contains("12 here")
			.contains("b=24");
		// (in this fake only b's Lease says 24, so only a sees the disagreement); once
		// they agree, the shares come back
		b.connection().shardCount = FakeMemberLeases.SHARDS;
		run(RETRY.multipliedBy(4));
		assertCover(a, b);
		assertThat(a.membership().status().lastError()).isNull();
	}

	@Test
	void aMemberCutOffStopsAllItsShardsAtTheRenewDeadlineBeforeAnotherMayTakeThem() {
		Replica a = join("a");
		Replica b = join("b");
		run(RETRY.multipliedBy(4));
		Set<Integer> ofA = new TreeSet<>(a.running());
		run(Duration.ofMillis(300));
		long lastWrite = this.server.nanos.get();
		// a's step at this instant is its last successful one
		stepNow(a);
		a.connection().down = true;
		run(Duration.ofSeconds(9));
		assertThat(ofA).allMatch((shard) -> a.membership().owns(shard));
		run(Duration.ofSeconds(1));
		assertThat(ofA).noneMatch((shard) -> a.membership().owns(shard));
		assertThat(a.running()).isEmpty();
		assertThat(a.membership().status().fences()).isEqualTo(1);
		assertThat(a.membership().status().lastError()).contains("Connection refused");
		assertThat(a.membership().status().failingSince()).isNotNull();
		run(Duration.ofSeconds(10));
		assertThat(b.running()).isEqualTo(ALL);
		Change stopped = first("a", false, ofA);
		Change started = first("b", true, ofA);
		assertThat(Duration.ofNanos(stopped.nanos() - lastWrite)).isEqualTo(Duration.ofSeconds(10));
		assertThat(Duration.ofNanos(started.nanos() - lastWrite)).isGreaterThan(Duration.ofSeconds(15));
		// back: a claims again and gets its share, after b hands it over
		a.connection().down = false;
		run(RETRY.multipliedBy(5));
		assertCover(a, b);
		assertThat(a.membership().status().lastError()).isNull();
	}

	@Test
	void aFrozenMemberOwnsNothingWhenItWakesUpAfterOthersTookItsShards() {
		Replica a = join("a");
		Replica b = join("b");
		run(RETRY.multipliedBy(4));
		Set<Integer> ofA = new TreeSet<>(a.running());
		kill(a);
		run(Duration.ofSeconds(20));
		assertThat(b.running()).isEqualTo(ALL);
		// a wakes up: before its loop runs, owns() is already false for all
		assertThat(ofA).noneMatch((shard) -> a.membership().owns(shard));
		revive(a);
		run(RETRY.multipliedBy(5));
		assertCover(a, b);
	}

	@Test
	void wallClocksSetApartByHoursChangeNothing() {
		Replica ahead = join("a", Duration.ofHours(3), 5_000_000_000_000L);
		Replica behind = join("b", Duration.ofHours(-3), -7);
		run(RETRY.multipliedBy(4));
		assertCover(ahead, behind);
		Set<Integer> ofAhead = new TreeSet<>(ahead.running());
		for (int i = 0; i < 20; i++) {
			run(RETRY);
			assertThat(ahead.running()).isEqualTo(ofAhead);
		}
		FakeMemberLeases plain = new FakeMemberLeases();
		Replica a = plain.replica("a", Duration.ZERO, 0);
		Replica b = plain.replica("b", Duration.ZERO, 0);
		for (int i = 0; i < 4; i++) {
			plain.advance(RETRY);
			a.membership().step();
			b.membership().step();
		}
		assertThat(ofAhead).isEqualTo(a.running());
	}

	@Test
	void aConflictOnItsOwnLeaseIsRetriedByReadingItAgainAndIsNeverFatal() {
		Replica a = join("a");
		run(RETRY.multipliedBy(2));
		this.server.touch(a.leaseName());
		run(RETRY);
		assertThat(a.membership().status().conflicts()).isEqualTo(1);
		assertThat(a.membership().status().lastError()).isNull();
		assertThat(a.running()).isEqualTo(ALL);
		// a conflict on the second write too: the step fails, is counted, and the next
		// one succeeds
		String name = a.leaseName();
		a.connection().beforeUpdate = () -> a.connection().beforeUpdate = () -> this.server.touch(name);
		this.server.touch(name);
		run(RETRY);
		assertThat(a.membership().status().conflicts()).isEqualTo(3);
		assertThat(a.membership().status().lastError()).contains("409");
		run(RETRY);
		assertThat(a.membership().status().lastError()).isNull();
		assertThat(a.running()).isEqualTo(ALL);
		assertThat(a.membership().status().fences()).isZero();
	}

	@Test
	void aStoppedMemberReleasesItsShardsAndTheOthersTakeThemAtTheirNextStep() {
		Replica a = join("a");
		Replica b = join("b");
		run(RETRY.multipliedBy(4));
		Set<Integer> ofA = new TreeSet<>(a.running());
		this.alive.remove(a);
		a.membership().release();
		assertThat(a.running()).isEmpty();
		assertThat(this.server.lease(a.leaseName()).held()).isFalse();
		run(RETRY.multipliedBy(2));
		assertThat(b.running()).isEqualTo(ALL);
		assertThat(Duration.ofNanos(first("b", true, ofA).nanos() - first("a", false, ofA).nanos()))
			.isLessThanOrEqualTo(RETRY.multipliedBy(2));
	}

	@Test
	void aNewIncarnationKeepsWhatItsLeaseListsUnrunForALeaseDuration() {
		Replica a = join("a");
		Replica b = join("b");
		run(RETRY.multipliedBy(4));
		Set<Integer> ofA = new TreeSet<>(a.running());
		kill(a);
		run(RETRY);
		Replica again = join("a");
		run(RETRY.multipliedBy(3));
		assertThat(again.running()).isEmpty();
		assertThat(b.running()).doesNotContainAnyElementsOf(ofA);
		assertThat(again.membership().status().listed()).isEqualTo(ofA);
		run(Duration.ofSeconds(16));
		assertCover(again, b);
	}

	@Test
	void optionsFollowTheRulesOfLeaderElection() {
		ShardMembershipOptions options = ShardMembershipOptions.of("orders", "ns", "pod-1", 16);
		assertThat(options.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
		assertThat(options.renewDeadline()).isEqualTo(Duration.ofSeconds(10));
		assertThat(options.retryPeriod()).isEqualTo(Duration.ofSeconds(2));
		assertThat(options.leaseName()).matches("orders-[0-9a-f]{10}")
			.isEqualTo(ShardMembershipOptions.of("orders", "other", "pod-1", 4).leaseName())
			.isNotEqualTo(ShardMembershipOptions.of("orders", "ns", "pod-2", 16).leaseName());
		assertThatIllegalArgumentException().isThrownBy(
				() -> options.withDurations(Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(2)));
		assertThatIllegalArgumentException().isThrownBy(
				() -> options.withDurations(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(9)));
		assertThatIllegalArgumentException().isThrownBy(() -> ShardMembershipOptions.of("orders", "ns", "x", 0));
		assertThatIllegalArgumentException().isThrownBy(() -> ShardMembershipOptions.of("Orders", "ns", "x", 1));
		assertThatIllegalArgumentException().isThrownBy(() -> ShardMembershipOptions.of("orders", "ns", " ", 1));
	}

	// ---------------------------------------------------------------- the loop

	/**
	 * Two live processes given one identity (a copied {@code sharding.identity}) write
	 * one Lease: they never run a shard at once (checked after every tick and after the
	 * test), and the one that stands down says why.
	 */
	@Test
	void twoProcessesWithOneIdentityNeverRunAShardAtOnceAndTheOneStandingDownSaysWhy() {
		Replica first = join("a");
		run(RETRY.multipliedBy(3));
		assertThat(first.running()).isEqualTo(ALL);
		Replica second = join("a", Duration.ofMillis(3), 5);
		run(RETRY.multipliedBy(20));
		Replica standing = first.running().isEmpty() ? first : second;
		assertThat(standing.membership().status().lastError()).contains("Another process renews Lease").contains("'a'");
		assertThat(standing.membership().status().impostor()).isTrue();
	}

	private Replica join(String identity) {
		return join(identity, Duration.ZERO, 0);
	}

	private Replica join(String identity, Duration wallSkew, long tickerOffset) {
		Replica replica = this.server.replica(identity, wallSkew, tickerOffset);
		this.alive.add(replica);
		this.nextStep.put(replica, this.server.nanos.get());
		return replica;
	}

	/** A killed or frozen replica: its loop runs no more. */
	private void kill(Replica replica) {
		this.alive.remove(replica);
		replica.recorder().kill();
	}

	/** Its loop runs again: first the deadline, then a step (as the loop does). */
	private void revive(Replica replica) {
		replica.membership().checkDeadline();
		replica.recorder().dead = false;
		this.alive.add(replica);
		this.nextStep.put(replica, this.server.nanos.get());
	}

	private void stepNow(Replica replica) {
		replica.membership().step();
		this.nextStep.put(replica, this.server.nanos.get() + replica.membership().nextDelayNanos());
	}

	/**
	 * Moves time on by ticks, doing what the replicas' loops do: the deadline checked at
	 * every tick (the loop wakes up at it), a step when each one's delay has passed.
	 */
	private void run(Duration duration) {
		long end = this.server.nanos.get() + duration.toNanos();
		while (this.server.nanos.get() < end) {
			this.server.advance(TICK);
			for (Replica replica : List.copyOf(this.alive)) {
				replica.membership().checkDeadline();
				if (this.server.nanos.get() - this.nextStep.get(replica) >= 0) {
					stepNow(replica);
				}
			}
			assertNoShardOwnedTwice();
		}
	}

	private void assertNoShardOwnedTwice() {
		for (int shard = 0; shard < FakeMemberLeases.SHARDS; shard++) {
			int owned = shard;
			assertThat(this.alive.stream().filter((r) -> r.membership().owns(owned)).count()).as("owners of %d", shard)
				.isLessThanOrEqualTo(1);
		}
	}

	private static void assertCover(Replica... replicas) {
		Set<Integer> union = new TreeSet<>();
		int total = 0;
		for (Replica replica : replicas) {
			union.addAll(replica.running());
			total += replica.running().size();
			assertThat(replica.membership().status().running()).isEqualTo(replica.running());
			int share = replica.running().size();
			assertThat(share).isBetween(FakeMemberLeases.SHARDS / replicas.length,
					(FakeMemberLeases.SHARDS + replicas.length - 1) / replicas.length);
		}
		assertThat(union).isEqualTo(ALL);
		assertThat(total).as("disjoint").isEqualTo(FakeMemberLeases.SHARDS);
	}

	private Change first(String identity, boolean started, Set<Integer> shards) {
		return this.server.changes.stream()
			.filter((c) -> c.identity().equals(identity) && c.started() == started
					&& c.shards().stream().anyMatch(shards::contains))
			.findFirst()
			.orElseThrow();
	}

}
