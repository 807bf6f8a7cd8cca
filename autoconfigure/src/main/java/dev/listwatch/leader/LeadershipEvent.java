package dev.listwatch.leader;

import org.springframework.context.ApplicationEvent;

/**
 * This replica became leader, or stopped being leader, on a Lease: a
 * {@link LeadershipGrantedEvent} or a {@link LeadershipRevokedEvent}. The source is the
 * {@link LeaderElector}.
 *
 * <p>
 * Published one at a time and in order: a grant, then its revoke, then perhaps a grant
 * again; on the elector's thread, but for the revoke of a {@link LeaderElector#stop()},
 * which goes out on the thread that stops it. Listeners run before the elector goes on. A
 * revoke listener of a stop may take its time (the elector renews the Lease until it
 * returns, then releases it); any other revoke listener should stop the leader's work
 * within {@link LeaderElector#workMayRunFor()}, after which another replica may start it.
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
