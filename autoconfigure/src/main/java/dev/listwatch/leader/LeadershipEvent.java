package dev.listwatch.leader;

import org.springframework.context.ApplicationEvent;

/**
 * This replica became leader, or stopped being leader, on a Lease: a
 * {@link LeadershipGrantedEvent} or a {@link LeadershipRevokedEvent}. The source is the
 * {@link LeaderElector}.
 *
 * <p>
 * Published on the elector's thread, one at a time and in order: a grant, then its
 * revoke, then perhaps a grant again. Listeners run before the elector goes on; they
 * should return quickly (start or stop work elsewhere): a revoke listener that takes
 * longer than {@code leaseDuration - renewDeadline} lets another replica start while it
 * still runs.
 */
public abstract sealed class LeadershipEvent extends ApplicationEvent
		permits LeadershipGrantedEvent, LeadershipRevokedEvent {

	private final String identity;

	private final String lease;

	LeadershipEvent(LeaderElector source, String identity, String lease) {
		super(source);
		this.identity = identity;
		this.lease = lease;
	}

	/**
	 * This replica's identity.
	 * @return the identity
	 */
	public String identity() {
		return this.identity;
	}

	/**
	 * The Lease.
	 * @return {@code <namespace>/<name>}
	 */
	public String lease() {
		return this.lease;
	}

	/**
	 * The elector that published this event.
	 * @return the elector
	 */
	public LeaderElector elector() {
		return (LeaderElector) getSource();
	}

}
