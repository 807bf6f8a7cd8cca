package dev.listwatch.leader;

/**
 * This replica is leader now: it holds the Lease and renewed it moments ago. It stays
 * leader until a {@link LeadershipRevokedEvent}; {@link LeaderElector#isLeader()} answers
 * at any moment.
 */
public final class LeadershipGrantedEvent extends LeadershipEvent {

	LeadershipGrantedEvent(LeaderElector source, String identity, String lease) {
		super(source, identity, lease);
	}

	@Override
	public String toString() {
		return "LeadershipGrantedEvent[" + identity() + " on " + lease() + "]";
	}

}
