package dev.listwatch.health;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import dev.listwatch.controller.Controller;
import dev.listwatch.controller.ControllerStatus;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A controller's health from its status: DOWN for a stuck worker or a key that waits too
 * long for one, UP with failing keys counted, never their values.
 */
class ControllersHealthContributorTests {

	private final ControllersHealthContributor contributor = new ControllersHealthContributor(noControllers(),
			Duration.ofMinutes(5), Duration.ofMinutes(2), Status.DOWN);

	@Test
	void aControllerThatKeepsUpIsUpWithItsFailingKeysCounted() {
		Health health = this.contributor.health(status(Duration.ofSeconds(3), Duration.ofSeconds(1),
				Map.of("default/a", new ControllerStatus.Failure("java.lang.IllegalStateException",
						"com.example.Copier.reconcile:42", "db down", 4, false))));
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("failingKeys", 1)
			.containsEntry("running", true)
			.containsEntry("watch", "configmaps")
			.doesNotContainKey("reason");
		assertThat(health.getDetails().toString()).doesNotContain("db down");
	}

	@Test
	void aReconcileRunningPastStuckAfterIsDown() {
		Health health = this.contributor.health(status(Duration.ofMinutes(6), Duration.ZERO, Map.of()));
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails().get("reason").toString())
			.isEqualTo("a reconcile has run for 360.0 s, longer than stuck-after (300.0 s)");
	}

	@Test
	void aKeyWaitingForAWorkerPastMaxQueueWaitIsDown() {
		Health health = this.contributor.health(status(Duration.ofSeconds(1), Duration.ofMinutes(3), Map.of()));
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails().get("reason").toString())
			.isEqualTo("a key has waited 180.0 s for a worker, longer than max-queue-wait (120.0 s)");
	}

	@Test
	void aKeyWhoseLastReconcileThrewAnErrorIsDown() {
		Health health = this.contributor.health(status(Duration.ofSeconds(1), Duration.ZERO,
				Map.of("default/a",
						new ControllerStatus.Failure("java.lang.StackOverflowError", "com.example.Copier.depth:12",
								null, 2, true),
						"default/b", new ControllerStatus.Failure("java.lang.IllegalStateException",
								"com.example.Copier.reconcile:42", "db down", 1, false))));
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails().get("reason").toString()).isEqualTo(
				"the last reconcile of 1 key threw an Error (java.lang.StackOverflowError); retried after the backoff");
	}

	@Test
	void aControllerWithAWorkerEndedIsDown() {
		ControllerStatus status = status(Duration.ZERO, Duration.ZERO, Map.of());
		Health health = this.contributor.health(new ControllerStatus("copy", "configmaps", true, 2, 1, 0, 0, 0, 1, 0, 1,
				0, 0, 0, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, Map.of(), null,
				null, status.queuedByShard()));
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails().get("reason").toString())
			.isEqualTo("1 of 2 workers have ended on a failure (see the log)");
		assertThat(health.getDetails()).containsEntry("liveWorkers", 1);
	}

	@Test
	void aStoppedControllerIsUp() {
		Health health = this.contributor
			.health(new ControllerStatus("copy", "configmaps", false, 2, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, Duration.ZERO,
					Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, Map.of(), null, null, new TreeMap<>()));
		assertThat(health.getStatus()).isEqualTo(Status.UP);
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static ObjectProvider<Controller<?>> noControllers() {
		return (ObjectProvider) new DefaultListableBeanFactory().getBeanProvider(Controller.class);
	}

	private static ControllerStatus status(Duration longestRunning, Duration oldestReady,
			Map<String, ControllerStatus.Failure> failing) {
		return new ControllerStatus("copy", "configmaps", true, 2, 2, 5, 1, 2, 100, 4, 90, 4, 0, 0,
				Duration.ofSeconds(1), Duration.ofSeconds(9), oldestReady, longestRunning, longestRunning, failing,
				null, null, new TreeMap<>());
	}

}
