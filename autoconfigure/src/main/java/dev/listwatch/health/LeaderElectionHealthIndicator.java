package dev.listwatch.health;

import java.util.function.Supplier;

import dev.listwatch.leader.LeaderStatus;
import dev.listwatch.leader.LeaderStatus.Role;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The health of leader election ({@code /actuator/health/leaderElection}): this replica's
 * role ({@code LEADER} or {@code FOLLOWER}), its identity, the Lease's holder as last
 * seen, the Lease, when the role last changed, the last successful write, the Lease's
 * transitions, the conflicts and failures counted and the last error. UP while the
 * elector runs, whatever the role: being a follower is the normal state of most replicas
 * and must not take them out of readiness; UNKNOWN when the elector is not running.
 * Details never hold secrets.
 */
public final class LeaderElectionHealthIndicator implements HealthIndicator {

	private static final int MAX_MESSAGE = 500;

	private final Supplier<LeaderStatus> status;

	/**
	 * Makes the indicator.
	 * @param status the elector's status, read on every call
	 */
	public LeaderElectionHealthIndicator(Supplier<LeaderStatus> status) {
		this.status = status;
	}

	@Override
	public Health health() {
		LeaderStatus snapshot = this.status.get();
		Health.Builder health = new Health.Builder((snapshot.role() == Role.STOPPED) ? Status.UNKNOWN : Status.UP)
			.withDetail("role", snapshot.role().name())
			.withDetail("identity", snapshot.identity())
			.withDetail("lease", snapshot.lease());
		if (snapshot.holder() != null) {
			health.withDetail("holder", snapshot.holder());
		}
		if (snapshot.since() != null) {
			health.withDetail("since", snapshot.since().toString());
		}
		if (snapshot.lastRenewal() != null) {
			health.withDetail("lastRenewal", snapshot.lastRenewal().toString());
		}
		health.withDetail("leaseTransitions", snapshot.leaseTransitions())
			.withDetail("conflicts", snapshot.conflicts())
			.withDetail("failures", snapshot.failures());
		String error = snapshot.lastError();
		if (error != null) {
			health.withDetail("lastError",
					(error.length() > MAX_MESSAGE) ? error.substring(0, MAX_MESSAGE) + "..." : error);
		}
		return health.build();
	}

}
