package dev.listwatch.autoconfigure;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;

import dev.listwatch.KubernetesObject;
import dev.listwatch.WatchStatus;
import dev.listwatch.autoconfigure.health.LeaderElectionHealthContributorAutoConfiguration;
import dev.listwatch.health.LeaderElectionHealthIndicator;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.WatchDeclaration;
import dev.listwatch.leader.LeaderElectionOptions;
import dev.listwatch.leader.LeaderElector;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The leader-election auto-configuration with {@link ApplicationContextRunner}, against a
 * kubeconfig that points at a closed port: which beans, which defaults, and which
 * settings fail startup with which property named.
 */
class LeaderElectionAutoConfigurationTests {

	@TempDir
	static Path dir;

	static Path kubeconfig;

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations
		.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class, ListwatchAutoConfiguration.class,
				LeaderElectionAutoConfiguration.class, LeaderElectionHealthContributorAutoConfiguration.class));

	@BeforeAll
	static void kubeconfig() throws IOException {
		kubeconfig = ListwatchAutoConfigurationTests.writeKubeconfig(dir.resolve("kubeconfig.yaml"),
				"https://127.0.0.1:" + ListwatchAutoConfigurationTests.closedPort());
	}

	private ApplicationContextRunner electing(String... properties) {
		return this.runner
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.leader-election.enabled=true")
			.withPropertyValues(properties);
	}

	@Test
	void noElectorUnlessEnabled() {
		this.runner.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "spring.application.name=app")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LeaderElector.class)
				.doesNotHaveBean(LeaderElectionHealthIndicator.class));
	}

	@Test
	void theLeaseIsNamedAfterTheApplicationInTheConnectionsNamespaceWithClientGosDurations() {
		electing("spring.application.name=orders", "listwatch.leader-election.identity=pod-1").run((context) -> {
			assertThat(context).hasNotFailed();
			LeaderElector elector = context.getBean(LeaderElector.class);
			assertThat(elector.options()).isEqualTo(new LeaderElectionOptions("orders", "default", "pod-1",
					Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2)));
			assertThat(elector.isRunning()).isTrue();
		});
	}

	@Test
	void everySettingCanBeGiven() {
		electing("listwatch.leader-election.lease-name=reconciler", "listwatch.leader-election.lease-namespace=ops",
				"listwatch.leader-election.identity=me", "listwatch.leader-election.lease-duration=4s",
				"listwatch.leader-election.renew-deadline=3s", "listwatch.leader-election.retry-period=500ms")
			.run((context) -> assertThat(context.getBean(LeaderElector.class).options())
				.isEqualTo(new LeaderElectionOptions("reconciler", "ops", "me", Duration.ofSeconds(4),
						Duration.ofSeconds(3), Duration.ofMillis(500))));
	}

	@Test
	void healthShowsAFollowerThatCannotReachTheServerAsUp() {
		electing("spring.application.name=orders", "listwatch.leader-election.identity=pod-1",
				"listwatch.leader-election.lease-duration=2s", "listwatch.leader-election.renew-deadline=1s",
				"listwatch.leader-election.retry-period=100ms")
			.run((context) -> {
				LeaderElectionHealthIndicator indicator = context.getBean("leaderElectionHealthIndicator",
						LeaderElectionHealthIndicator.class);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> context.getBean(LeaderElector.class).status().failures() > 0);
				Health health = indicator.health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("role", "FOLLOWER")
					.containsEntry("identity", "pod-1")
					.containsEntry("lease", "default/orders")
					.doesNotContainKey("holder")
					.containsKey("lastError");
				assertThat(health.getDetails().get("lastError").toString()).doesNotContain("not-a-real-token");
			});
	}

	@Test
	void healthCanBeSwitchedOff() {
		electing("spring.application.name=orders", "management.health.leaderelection.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(LeaderElector.class)
				.doesNotHaveBean(LeaderElectionHealthIndicator.class));
	}

	@Test
	void aLeaseNameIsNeeded() {
		electing().run((context) -> assertThat(failure(context.getStartupFailure())).satisfies((ex) -> {
			assertThat(ex.getName()).isEqualTo("listwatch.leader-election.lease-name");
			assertThat(ex.getReason()).contains("spring.application.name");
		}));
	}

	@Test
	void anApplicationNameThatIsNoObjectNameAsksForALeaseName() {
		electing("spring.application.name=Order Service").run((context) -> {
			InvalidConfigurationPropertyValueException ex = failure(context.getStartupFailure());
			assertThat(ex.getName()).isEqualTo("listwatch.leader-election.lease-name");
			assertThat(ex.getReason()).contains("'order-service'");
		});
	}

	@Test
	void aRenewDeadlineNotShorterThanTheLeaseDurationFails() {
		electing("spring.application.name=app", "listwatch.leader-election.renew-deadline=15s").run((context) -> {
			InvalidConfigurationPropertyValueException ex = failure(context.getStartupFailure());
			assertThat(ex.getName()).isEqualTo("listwatch.leader-election.renew-deadline");
			assertThat(ex.getReason()).contains("shorter than lease-duration");
		});
	}

	@Test
	void aRetryPeriodTooCloseToTheRenewDeadlineFails() {
		electing("spring.application.name=app", "listwatch.leader-election.retry-period=9s").run((context) -> {
			InvalidConfigurationPropertyValueException ex = failure(context.getStartupFailure());
			assertThat(ex.getName()).isEqualTo("listwatch.leader-election.retry-period");
			assertThat(ex.getReason()).contains("* 1.2");
		});
	}

	@Test
	void aLeaseDurationOfPartSecondsFails() {
		electing("spring.application.name=app", "listwatch.leader-election.lease-duration=15500ms")
			.run((context) -> assertThat(failure(context.getStartupFailure()).getName())
				.isEqualTo("listwatch.leader-election.lease-duration"));
	}

	@Test
	void aZeroRetryPeriodFails() {
		electing("spring.application.name=app", "listwatch.leader-election.retry-period=0s")
			.run((context) -> assertThat(failure(context.getStartupFailure()).getName())
				.isEqualTo("listwatch.leader-election.retry-period"));
	}

	@Test
	void aLeaderOnlyWatchDoesNotStartWithTheContext() {
		electing("spring.application.name=app", "listwatch.watches.jobs.api-version=batch/v1",
				"listwatch.watches.jobs.kind=Job", "listwatch.watches.jobs.leader-only=true",
				"listwatch.watches.pods.api-version=v1", "listwatch.watches.pods.kind=Pod")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean("jobsInformer", Informer.class).isAutoStartup()).isFalse();
				assertThat(context.getBean("jobsInformer", Informer.class).isRunning()).isFalse();
				assertThat(context.getBean("podsInformer", Informer.class).isAutoStartup()).isTrue();
				assertThat(context.getBean(LeaderOnlyWatches.class).watches()).containsExactly("jobs");
			});
	}

	@Test
	void aLeaderOnlyWatchStaysStoppedOnAFollowerWhenTheContextIsStoppedAndStartedAgain() {
		electing("spring.application.name=app", "listwatch.watches.jobs.api-version=batch/v1",
				"listwatch.watches.jobs.kind=Job", "listwatch.watches.jobs.leader-only=true")
			.run((context) -> {
				Informer<?> jobs = context.getBean("jobsInformer", Informer.class);
				context.stop();
				// Spring's explicit start starts lifecycle beans without auto-startup too
				context.start();
				assertThat(jobs.isRunning()).isFalse();
				assertThat(context.getBean(LeaderElector.class).isRunning()).isTrue();
			});
	}

	@Test
	void aLeaderOnlyWatchDoesNotRunOnAFollowerWhoeverStartsIt() {
		electing("spring.application.name=app", "listwatch.watches.jobs.api-version=batch/v1",
				"listwatch.watches.jobs.kind=Job", "listwatch.watches.jobs.leader-only=true")
			.run((context) -> {
				Informer<?> jobs = context.getBean("jobsInformer", Informer.class);
				// Spring's explicit start starts lifecycle beans without auto-startup
				// too: it must not run even for the moment before the leader-only check,
				// nor publish what waited
				context.stop();
				context.start();
				assertThat(jobs.status().state()).as("never ran").isEqualTo(WatchStatus.State.STARTING);
				// nor does code that holds the informer start it on a follower
				jobs.start();
				assertThat(jobs.isRunning()).isFalse();
				assertThat(jobs.status().state()).isEqualTo(WatchStatus.State.STARTING);
			});
	}

	@Test
	void aLeaderOnlyWatchIsNotSharedWithCodeThatDeclaresTheSame() {
		electing("spring.application.name=app", "listwatch.watches.jobs.api-version=batch/v1",
				"listwatch.watches.jobs.kind=Job", "listwatch.watches.jobs.leader-only=true",
				"listwatch.watches.pods.api-version=v1", "listwatch.watches.pods.kind=Pod")
			.run((context) -> {
				InformerFactory factory = context.getBean(InformerFactory.class);
				Informer<KubernetesObject> mine = factory.informer("myJobs", WatchDeclaration.of("batch/v1", "Job"));
				assertThat(mine).as("code's own informer, not the leader-only one")
					.isNotSameAs(context.getBean("jobsInformer", Informer.class));
				assertThat(factory.informer("myPods", WatchDeclaration.of("v1", "Pod")))
					.as("a watch that is not leader-only is shared")
					.isSameAs(context.getBean("podsInformer", Informer.class));
			});
	}

	@Test
	void aLeaderOnlyWatchWithoutLeaderElectionFailsStartup() {
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.watches.jobs.api-version=batch/v1",
					"listwatch.watches.jobs.kind=Job", "listwatch.watches.jobs.leader-only=true")
			.run((context) -> {
				assertThat(context.getStartupFailure()).isInstanceOf(WatchDeclarationException.class)
					.hasMessageContaining("listwatch.watches.jobs.leader-only")
					.satisfies((ex) -> assertThat(((WatchDeclarationException) ex).fix())
						.contains("listwatch.leader-election.enabled=true"));
			});
	}

	@Test
	void aLeaderOnlyWatchCannotStartWithTheContext() {
		electing("spring.application.name=app", "listwatch.watches.jobs.api-version=batch/v1",
				"listwatch.watches.jobs.kind=Job", "listwatch.watches.jobs.leader-only=true",
				"listwatch.watches.jobs.auto-startup=true")
			.run((context) -> assertThat(context.getStartupFailure()).isInstanceOf(WatchDeclarationException.class)
				.hasMessageContaining("listwatch.watches.jobs.auto-startup"));
	}

	@Test
	void theIdentityIsThePodNameElseTheHostNameAlwaysWithARandomSuffix() {
		Random random = new Random(7);
		String pod = LeaderElectionAutoConfiguration
			.defaultIdentity(Map.of("POD_NAME", "web-7c9f-x2k4p", "HOSTNAME", "h"), () -> "host", random);
		// two processes with one pod name (a copied POD_NAME, a container restarted
		// beside its predecessor) still differ
		String samePod = LeaderElectionAutoConfiguration
			.defaultIdentity(Map.of("POD_NAME", "web-7c9f-x2k4p", "HOSTNAME", "h"), () -> "host", random);
		assertThat(pod).matches("web-7c9f-x2k4p_[0-9a-f]{8}");
		assertThat(samePod).matches("web-7c9f-x2k4p_[0-9a-f]{8}").isNotEqualTo(pod);
		// pods with spec.hostname and no POD_NAME share HOSTNAME
		String first = LeaderElectionAutoConfiguration
			.defaultIdentity(Map.of("HOSTNAME", "web", "KUBERNETES_SERVICE_HOST", "10.0.0.1"), () -> "web", random);
		String second = LeaderElectionAutoConfiguration
			.defaultIdentity(Map.of("HOSTNAME", "web", "KUBERNETES_SERVICE_HOST", "10.0.0.1"), () -> "web", random);
		assertThat(first).matches("web_[0-9a-f]{8}");
		assertThat(second).matches("web_[0-9a-f]{8}").isNotEqualTo(first);
		assertThat(
				LeaderElectionAutoConfiguration.defaultIdentity(Map.of("HOSTNAME", "laptop"), () -> "laptop", random))
			.matches("laptop_[0-9a-f]{8}");
		assertThat(LeaderElectionAutoConfiguration.replicaIdentity())
			.isEqualTo(LeaderElectionAutoConfiguration.replicaIdentity());
	}

	private static InvalidConfigurationPropertyValueException failure(Throwable startupFailure) {
		Throwable cause = startupFailure;
		while (cause != null && !(cause instanceof InvalidConfigurationPropertyValueException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("the startup failure's cause").isNotNull();
		return (InvalidConfigurationPropertyValueException) cause;
	}

}
