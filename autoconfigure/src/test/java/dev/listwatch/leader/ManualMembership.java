package dev.listwatch.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * A shard membership alone in its group, on Leases in memory, on a time moved by hand and
 * stepped by hand (no thread), for tests outside this package of what it tells its
 * listener: what a freeze or a cut-off API server does to them. Durations: lease 15 s,
 * renew deadline 10 s, retry period 2 s.
 */
public final class ManualMembership {

	private final FakeMemberLeases server = new FakeMemberLeases();

	private @Nullable FakeMemberLeases.Connection connection;

	private @Nullable ShardMembership membership;

	/** The other members, stepped with this one. */
	private final List<ShardMembership> others = new ArrayList<>();

	/**
	 * What makes the membership from its listener (for {@code Controller.shardBy}).
	 * @param identity this replica's identity
	 * @param shards the number of shards
	 * @return the factory, to be called once
	 */
	public Function<ShardListener, ShardMembership> factory(String identity, int shards) {
		return (listener) -> {
			ShardMembershipOptions options = ShardMembershipOptions.of("orders", "ns", identity, shards);
			FakeMemberLeases.Connection store = this.server.new Connection(options.leaseName());
			store.shardCount = shards;
			this.connection = store;
			ShardMembership made = new ShardMembership(options, store, listener, this.server.wall(Duration.ZERO),
					this.server.nanos::get);
			this.membership = made;
			return made;
		};
	}

	/**
	 * One turn of the membership's loop: the deadline checked, a step, the deadline
	 * checked again.
	 */
	public void step() {
		ShardMembership made = Objects.requireNonNull(this.membership, "made by factory()");
		made.checkDeadline();
		made.step();
		made.checkDeadline();
		for (ShardMembership other : this.others) {
			other.checkDeadline();
			other.step();
			other.checkDeadline();
		}
	}

	/**
	 * Moves the time on (for a freeze: no step meanwhile).
	 * @param duration how far
	 */
	public void advance(Duration duration) {
		this.server.advance(duration);
	}

	/**
	 * Another member joins the group, hashing keys into another number of shards (a
	 * canary with another {@code shards}): it writes its Lease, and at each
	 * {@link #step()} from now on.
	 * @param identity its identity
	 * @param shards its number of shards
	 */
	public void disagreeingMember(String identity, int shards) {
		FakeMemberLeases.Replica other = this.server.replica(identity, Duration.ZERO, 7);
		other.connection().shardCount = shards;
		other.membership().step();
		this.others.add(other.membership());
	}

	/**
	 * Starts the membership's own thread (a step at once), after a step by hand, so that
	 * its first write is an update, which throws an {@link Error} that ends the thread.
	 */
	public void startAndCrashOnTheFirstWrite() {
		step();
		FakeMemberLeases.Connection store = Objects.requireNonNull(this.connection, "made by factory()");
		store.beforeUpdate = () -> {
			throw new StackOverflowError("a step that recursed without end");
		};
		Objects.requireNonNull(this.membership, "made by factory()").start();
	}

	/** The API server can no longer be reached from this replica. */
	public void cutOff() {
		Objects.requireNonNull(this.connection, "made by factory()").down = true;
	}

}
