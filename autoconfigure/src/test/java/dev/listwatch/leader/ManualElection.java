package dev.listwatch.leader;

import java.time.Duration;
import java.util.Random;
import java.util.function.Consumer;

/**
 * An elector on a Lease in memory, on a time moved by hand and stepped by hand (no
 * thread), for tests outside this package of what listens to leadership: what a freeze, a
 * cut-off API server or a lost Lease does to them.
 */
public final class ManualElection {

	private final FakeLeases server = new FakeLeases();

	private final FakeLeases.Connection connection;

	private final LeaderElector elector;

	/**
	 * An elector, not yet leader.
	 * @param options the Lease, the identity and the durations
	 * @param publisher where its events go
	 */
	public ManualElection(LeaderElectionOptions options, Consumer<? super LeadershipEvent> publisher) {
		this.connection = this.server.new Connection(options.identity());
		this.elector = new LeaderElector(options, this.connection, publisher, this.server.wall(Duration.ZERO),
				this.server.nanos::get, new Random(1));
	}

	/**
	 * The elector.
	 * @return the elector
	 */
	public LeaderElector elector() {
		return this.elector;
	}

	/**
	 * One turn of the elector's loop: the deadline checked, an attempt to acquire or
	 * renew, the deadline checked again.
	 */
	public void step() {
		this.elector.checkDeadline();
		this.elector.step();
		this.elector.checkDeadline();
	}

	/**
	 * Moves the time on (for a freeze: no step meanwhile).
	 * @param duration how far
	 */
	public void advance(Duration duration) {
		this.server.advance(duration);
	}

	/**
	 * The API server can no longer be reached from this replica.
	 */
	public void cutOff() {
		this.connection.down = true;
	}

}
