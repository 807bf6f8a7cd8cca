package dev.listwatch.autoconfigure.controller;

import java.time.Duration;

import dev.listwatch.leader.LeaderElectionOptions;
import dev.listwatch.leader.LeadershipRevokedEvent.Reason;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How long the reconciles of leader-only controllers may run on after a revoke: their
 * shutdown timeout while the stopping elector still holds the Lease, half the lease's
 * margin once another replica may take it over.
 */
class LeaderOnlyControllersTests {

	private final LeaderElectionOptions options = new LeaderElectionOptions("app", "default", "me",
			Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));

	@Test
	void aStoppingElectorLetsThemFinishWithinTheirShutdownTimeout() {
		assertThat(LeaderOnlyControllers.limit(this.options, Reason.STOPPED)).isNull();
	}

	@Test
	void aLostLeaseOrAPassedRenewDeadlineLeavesHalfTheMargin() {
		assertThat(LeaderOnlyControllers.limit(this.options, Reason.LOST)).isEqualTo(Duration.ofMillis(2500));
		assertThat(LeaderOnlyControllers.limit(this.options, Reason.RENEW_DEADLINE_PASSED))
			.isEqualTo(Duration.ofMillis(2500));
	}

}
