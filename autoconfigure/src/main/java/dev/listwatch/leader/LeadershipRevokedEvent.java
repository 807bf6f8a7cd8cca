package dev.listwatch.leader;

/**
 * This replica is no longer leader: published before any other replica can acquire the
 * Lease (see {@link LeaderElectionOptions}), so a listener that stops the leader's work
 * here stops it before another replica starts it.
 */
public final class LeadershipRevokedEvent extends LeadershipEvent {

	private final Reason reason;

	LeadershipRevokedEvent(LeaderElector source, String identity, String lease, Reason reason) {
		super(source, identity, lease);
		this.reason = reason;
	}

	/**
	 * Why leadership ended.
	 * @return the reason
	 */
	public Reason reason() {
		return this.reason;
	}

	@Override
	public String toString() {
		return "LeadershipRevokedEvent[" + identity() + " on " + lease() + ", " + this.reason + "]";
	}

	/**
	 * Why leadership ended.
	 */
	public enum Reason {

		/**
		 * No renewal succeeded within the renew deadline (the API server could not be
		 * reached, or failed).
		 */
		RENEW_DEADLINE_PASSED,

		/**
		 * The Lease was seen held by another replica (taken over, or changed by hand).
		 */
		LOST,

		/**
		 * The elector stopped (the application shuts down); the Lease is released next.
		 */
		STOPPED

	}

}
