package dev.listwatch.health;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.listwatch.KubernetesObject;
import dev.listwatch.autoconfigure.health.FakeListerWatcher;
import dev.listwatch.controller.Controller;
import dev.listwatch.controller.ControllerOptions;
import dev.listwatch.controller.ControllerStatus;
import dev.listwatch.controller.Result;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import dev.listwatch.leader.ManualMembership;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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

	/**
	 * The replicas of a sharded controller disagree on the number of shards: every one
	 * stands down and nothing is reconciled; DOWN once that lasts past max-queue-wait.
	 */
	@Test
	void aShardGroupThatDisagreesOnTheNumberOfShardsIsDownPastMaxQueueWait() {
		ManualMembership group = new ManualMembership();
		Controller<KubernetesObject> controller = shardedController(group);
		try {
			group.step();
			group.disagreeingMember("canary", 5);
			group.step();
			assertThat(this.contributor.health(controller.status()).getStatus()).isEqualTo(Status.UP);
			for (int i = 0; i < 90; i++) {
				group.advance(Duration.ofSeconds(2));
				group.step();
			}
			Health health = this.contributor.health(controller.status());
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails().get("reason").toString()).contains("disagreed on the number of shards");
		}
		finally {
			controller.stop(Duration.ofSeconds(5));
		}
	}

	/**
	 * The thread of a sharded controller's membership ends on an Error: the replica runs
	 * no shard from then on, which health says at once.
	 */
	@Test
	void aShardMembershipWhoseThreadEndedIsDown() {
		ManualMembership group = new ManualMembership();
		Controller<KubernetesObject> controller = shardedController(group);
		try {
			group.startAndCrashOnTheFirstWrite();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.contributor.health(controller.status()).getStatus().equals(Status.DOWN));
			assertThat(this.contributor.health(controller.status()).getDetails().get("reason").toString())
				.contains("shard membership's thread has ended");
		}
		finally {
			controller.stop(Duration.ofSeconds(5));
		}
	}

	/**
	 * A running sharded controller on a watch that never syncs, so that its membership is
	 * stepped by the test alone.
	 */
	private static Controller<KubernetesObject> shardedController(ManualMembership group) {
		InformerFactory factory = new InformerFactory(Clock.systemUTC(), (event) -> {
		}, 1, Duration.ofSeconds(1));
		Informer<KubernetesObject> informer = factory.informer("configmaps", KubernetesObject.class,
				FakeListerWatcher.held(), InformerOptions.defaults(), List.of());
		Controller<KubernetesObject> controller = new Controller<>("copy", informer, (request) -> Result.done(),
				ControllerOptions.DEFAULTS, ObservationRegistry.NOOP);
		controller.shardBy(group.factory("me", 12));
		controller.start();
		return controller;
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
