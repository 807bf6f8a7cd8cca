package dev.listwatch.leader;

import java.time.Duration;
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
	}

	/**
	 * Moves the time on (for a freeze: no step meanwhile).
	 * @param duration how far
	 */
	public void advance(Duration duration) {
		this.server.advance(duration);
	}

	/** The API server can no longer be reached from this replica. */
	public void cutOff() {
		Objects.requireNonNull(this.connection, "made by factory()").down = true;
	}

}
