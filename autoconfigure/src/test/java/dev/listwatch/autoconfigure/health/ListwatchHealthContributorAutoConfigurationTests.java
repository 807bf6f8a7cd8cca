package dev.listwatch.autoconfigure.health;

import dev.listwatch.testsupport.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.listwatch.Lister;
import dev.listwatch.WatchIndex;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.autoconfigure.metrics.ListwatchMetricsAutoConfiguration;
import dev.listwatch.informer.Informer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code listwatch} health contributor over a watch backed by an in-memory fake, on a
 * clock moved by hand: statuses, details, grace period, switches and absence of actuator.
 */
@ExtendWith(OutputCaptureExtension.class)
class ListwatchHealthContributorAutoConfigurationTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
				ListwatchAutoConfiguration.class, ListwatchHealthContributorAutoConfiguration.class))
		.withUserConfiguration(FakeWatchConfiguration.class)
		.withPropertyValues(FakeWatchConfiguration.PROPERTIES);

	@Test
	void outOfServiceUntilSyncedThenUpThenDownWhenFailingBeyondTheGracePeriodThenUpAgain() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			FakeListerWatcher fake = context.getBean(FakeListerWatcher.class);
			MutableClock clock = context.getBean(MutableClock.class);
			HealthIndicator indicator = indicator(context, "configmaps");

			Health before = indicator.health();
			assertThat(before.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
			assertThat(before.getDetails()).containsEntry("reason", "not synced yet").containsEntry("synced", false);

			fake.add("a");
			fake.add("b");
			fake.releaseList();
			await().atMost(WAIT).until(() -> indicator.health().getStatus().equals(Status.UP));
			fake.add("c");
			await().atMost(WAIT).until(() -> Integer.valueOf(3).equals(indicator.health().getDetails().get("objects")));
			Health up = indicator.health();
			assertThat(up.getDetails()).containsEntry("state", "WATCHING")
				.containsEntry("synced", true)
				.containsEntry("lastResourceVersion", "103")
				.containsEntry("lastEventTime", "2026-01-01T00:00:00Z")
				.containsEntry("lastSyncTime", "2026-01-01T00:00:00Z")
				.containsEntry("restarts", 0L)
				.containsEntry("relists", 0L)
				.containsEntry("consecutiveFailures", 0L)
				.containsEntry("streamingList", false)
				.containsEntry("backlog", 0)
				.containsEntry("listenerFailures", 0L)
				.doesNotContainKeys("reason", "lastError", "failingSince");

			fake.cutOff();
			await().atMost(WAIT).until(() -> indicator.health().getDetails().containsKey("failingSince"));
			Health failing = indicator.health();
			assertThat(failing.getStatus()).isEqualTo(Status.UP);
			assertThat((String) failing.getDetails().get("reason")).contains("within the grace period of 60 s");

			clock.advance(Duration.ofSeconds(61));
			Health down = indicator.health();
			assertThat(down.getStatus()).isEqualTo(Status.DOWN);
			assertThat((String) down.getDetails().get("reason")).contains("longer than the grace period of 60 s");
			assertThat(down.getDetails()).containsEntry("state", "BACKOFF");
			assertThat((long) down.getDetails().get("consecutiveFailures")).isPositive();
			assertThat((long) down.getDetails().get("restarts")).isGreaterThanOrEqualTo(2);
			assertThat((Map<String, Long>) down.getDetails().get("restartsByReason")).containsKeys("ended",
					"disconnected");
			assertThat((Map<String, Object>) down.getDetails().get("lastError")).containsEntry("reason", "CONNECTION")
				.hasEntrySatisfying("message",
						(message) -> assertThat((String) message).contains("Connection refused"));
			assertThat(down.getDetails().toString()).doesNotContain("not-a-secret");

			fake.restore();
			await().atMost(WAIT).until(() -> indicator.health().getStatus().equals(Status.UP));
			assertThat(indicator.health().getDetails()).doesNotContainKey("failingSince")
				.containsEntry("objects", 3)
				.containsEntry("relists", 0L);
		});
	}

	@Test
	void unhealthyStatusAndGracePeriodAreConfigurable() {
		assertUnhealthyAfterFiveSecondsAsOutOfService(
				this.runner.withPropertyValues("management.health.listwatch.unhealthy-status=out-of-service",
						"management.health.listwatch.backoff-grace-period=5s"));
	}

	@Test
	void theDeprecatedKeysOfEarlierVersionsAreStillReadUnderTheNewOnes(CapturedOutput output) {
		assertUnhealthyAfterFiveSecondsAsOutOfService(this.runner.withPropertyValues(
				"listwatch.health.unhealthy-status=out-of-service", "listwatch.health.backoff-grace-period=9s",
				"management.health.listwatch.backoff-grace-period=5s"));
		assertThat(output).contains("listwatch.health.* is deprecated")
			.contains("under management.health.listwatch.* instead");
	}

	private static void assertUnhealthyAfterFiveSecondsAsOutOfService(ApplicationContextRunner runner) {
		runner.run((context) -> {
			FakeListerWatcher fake = context.getBean(FakeListerWatcher.class);
			HealthIndicator indicator = indicator(context, "configmaps");
			fake.releaseList();
			await().atMost(WAIT).until(() -> indicator.health().getStatus().equals(Status.UP));
			fake.cutOff();
			await().atMost(WAIT).until(() -> indicator.health().getDetails().containsKey("failingSince"));
			context.getBean(MutableClock.class).advance(Duration.ofSeconds(6));
			assertThat(indicator.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
		});
	}

	@Test
	void failingBeforeTheInitialSyncBeyondTheGracePeriodIsDown() {
		this.runner.run((context) -> {
			FakeListerWatcher fake = context.getBean(FakeListerWatcher.class);
			fake.cutOff();
			fake.releaseList();
			HealthIndicator indicator = indicator(context, "configmaps");
			await().atMost(WAIT).until(() -> indicator.health().getDetails().containsKey("failingSince"));
			assertThat(indicator.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
			context.getBean(MutableClock.class).advance(Duration.ofMinutes(2));
			assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
		});
	}

	@Test
	void aWatchWhoseThreadFailsWithAnErrorIsDownWithTheReason() {
		// an index function that runs out of memory for one object: the Error strikes the
		// reading thread
		this.runner
			.withBean("oomIndex", WatchIndex.class, ListwatchHealthContributorAutoConfigurationTests::outOfMemoryOnHuge)
			.run((context) -> {
				FakeListerWatcher fake = context.getBean(FakeListerWatcher.class);
				HealthIndicator indicator = indicator(context, "configmaps");
				fake.add("a");
				fake.releaseList();
				await().atMost(WAIT).until(() -> indicator.health().getStatus().equals(Status.UP));
				fake.add("huge");
				await().atMost(WAIT).until(() -> indicator.health().getStatus().equals(Status.DOWN));
				Health down = indicator.health();
				assertThat(down.getDetails()).containsEntry("state", "FAILED");
				assertThat((String) down.getDetails().get("reason")).contains("its thread failed")
					.contains("java.lang.OutOfMemoryError")
					.contains("until a resync succeeds");
				assertThat(down.getDetails().toString()).doesNotContain("Java heap space (test)");
				assertThat((Map<String, Long>) down.getDetails().get("restartsByReason")).containsKey("fatal");
			});
	}

	@Test
	void listwatchSyncedIsOutOfServiceUntilSyncedAndStaysUpThroughAnOutageThatHealthReports() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			FakeListerWatcher fake = context.getBean(FakeListerWatcher.class);
			MutableClock clock = context.getBean(MutableClock.class);
			HealthIndicator synced = context.getBean("listwatchSyncedHealthIndicator", HealthIndicator.class);
			Health before = synced.health();
			assertThat(before.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
			assertThat(before.getDetails().get("watches").toString()).contains("configmaps")
				.contains("synced=false")
				.contains("not synced since it started");

			fake.releaseList();
			await().atMost(WAIT).until(() -> synced.health().getStatus().equals(Status.UP));
			fake.cutOff();
			await().atMost(WAIT)
				.until(() -> indicator(context, "configmaps").health().getDetails().containsKey("failingSince"));
			clock.advance(Duration.ofSeconds(61));
			assertThat(indicator(context, "configmaps").health().getStatus()).isEqualTo(Status.DOWN);
			Health outage = synced.health();
			assertThat(outage.getStatus()).as("every replica shares the outage: ready all the same")
				.isEqualTo(Status.UP);
			assertThat(outage.getDetails().get("watches").toString()).contains("synced=true")
				.contains("failingFor=61 s");
		});
	}

	@Test
	void listwatchSyncedIsOutOfServiceWhileAWatchsThreadHasFailed() {
		this.runner
			.withBean("oomIndex", WatchIndex.class, ListwatchHealthContributorAutoConfigurationTests::outOfMemoryOnHuge)
			.run((context) -> {
				FakeListerWatcher fake = context.getBean(FakeListerWatcher.class);
				HealthIndicator synced = context.getBean("listwatchSyncedHealthIndicator", HealthIndicator.class);
				fake.releaseList();
				await().atMost(WAIT).until(() -> synced.health().getStatus().equals(Status.UP));
				fake.add("huge");
				await().atMost(WAIT).until(() -> synced.health().getStatus().equals(Status.OUT_OF_SERVICE));
				assertThat(synced.health().getDetails().get("watches").toString()).contains("its thread failed")
					.doesNotContain("Java heap space (test)");
			});
	}

	@Test
	void listwatchSyncedIsSwitchedOffOnItsOwn() {
		this.runner.withPropertyValues("management.health.listwatch-synced.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean("listwatchSyncedHealthIndicator");
			assertThat(context).hasBean("listwatchHealthContributor");
		});
	}

	@Test
	void indexFailuresAndUnbindableObjectsAreInTheDetailsWithoutChangingTheStatus() {
		this.runner
			.withBean("badIndex", WatchIndex.class, () -> WatchIndex.of("configmaps", "byName", (object, meta) -> {
				if (meta.name().equals("bad")) {
					throw new IllegalStateException("value s3cr3t");
				}
				return List.of(meta.name());
			}))
			.run((context) -> {
				FakeListerWatcher fake = context.getBean(FakeListerWatcher.class);
				HealthIndicator indicator = indicator(context, "configmaps");
				fake.add("bad");
				fake.add("good");
				fake.releaseList();
				await().atMost(WAIT).until(() -> indicator.health().getStatus().equals(Status.UP));
				Health up = indicator.health();
				assertThat(up.getDetails()).containsEntry("objects", 2)
					.containsEntry("indexFailures", 1L)
					.containsEntry("lastIndexFailure",
							Map.of("index", "byName", "key", "default/bad", "error", "java.lang.IllegalStateException"))
					.containsEntry("unbindable", 0);
				assertThat(up.getDetails().toString()).doesNotContain("s3cr3t");
				assertThat(context.getBean("configmapsLister", Lister.class).byIndex("byName", "good")).hasSize(1);
			});
	}

	@Test
	void objectsTheWatchCannotHoldAreListedWithoutTheirValuesAndTheWatchStaysUp() {
		this.runner.run((context) -> {
			FakeListerWatcher fake = context.getBean(FakeListerWatcher.class);
			HealthIndicator indicator = indicator(context, "configmaps");
			fake.add("a");
			fake.releaseList();
			await().atMost(WAIT).until(() -> indicator.health().getStatus().equals(Status.UP));
			fake.breakBinding("a");
			await().atMost(WAIT)
				.until(() -> Integer.valueOf(1).equals(indicator.health().getDetails().get("unbindable")));
			Health up = indicator.health();
			assertThat(up.getStatus()).isEqualTo(Status.UP);
			assertThat(up.getDetails()).containsEntry("objects", 1)
				.containsEntry("unbindableObjects", List.of(Map.of("key", "default/a", "path", "/data/mode",
						"targetType", "com.example.Settings", "reason", "not a valid value of Mode")));
		});
	}

	@Test
	void oneComponentPerWatchAndNoneForUnknownNames() {
		this.runner.run((context) -> {
			CompositeHealthContributor contributor = context.getBean("listwatchHealthContributor",
					CompositeHealthContributor.class);
			assertThat(contributor.stream().map(CompositeHealthContributor.Entry::name)).containsExactly("configmaps");
			assertThat(contributor.getContributor("nope")).isNull();
		});
	}

	@Test
	void switchedOffByManagementHealthListwatchEnabled() {
		this.runner.withPropertyValues("management.health.listwatch.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean("listwatchHealthContributor");
			assertThat(context).hasBean("configmapsInformer");
		});
	}

	@Test
	void switchedOffWithTheOtherHealthIndicators() {
		this.runner.withPropertyValues("management.health.defaults.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("listwatchHealthContributor"));
	}

	@Test
	void notThereWhenListwatchIsDisabled() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ListwatchAutoConfiguration.class,
					ListwatchHealthContributorAutoConfiguration.class))
			.withPropertyValues("listwatch.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("listwatchHealthContributor"));
	}

	@Test
	void informersWorkWithNeitherActuatorNorMicrometer() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class, ListwatchHealthContributorAutoConfiguration.class,
					ListwatchMetricsAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.health",
					"org.springframework.boot.actuate", "org.springframework.boot.micrometer", "io.micrometer"))
			.withUserConfiguration(FakeWatchConfiguration.class)
			.withPropertyValues(FakeWatchConfiguration.PROPERTIES)
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean("listwatchHealthContributor")
					.doesNotHaveBean("listwatchMeterBinder")
					.hasBean("configmapsInformer");
				context.getBean(FakeListerWatcher.class).add("a");
				context.getBean(FakeListerWatcher.class).releaseList();
				Informer<?> informer = context.getBean("configmapsInformer", Informer.class);
				assertThat(informer.awaitSynced(WAIT)).isTrue();
				assertThat(context.getBean("configmapsLister", Lister.class).get("default", "a")).isPresent();
			});
	}

	@Test
	void healthWithoutMicrometerAndMetricsWithoutHealth() {
		ApplicationContextRunner both = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class, ListwatchHealthContributorAutoConfiguration.class,
					MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
					ListwatchMetricsAutoConfiguration.class))
			.withUserConfiguration(FakeWatchConfiguration.class)
			.withPropertyValues(FakeWatchConfiguration.PROPERTIES);
		this.runner.withConfiguration(AutoConfigurations.of(ListwatchMetricsAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("io.micrometer", "org.springframework.boot.micrometer"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasBean("listwatchHealthContributor")
				.doesNotHaveBean("listwatchMeterBinder"));
		both.withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("listwatchHealthContributor")
				.hasBean("listwatchMeterBinder"));
	}

	@Test
	void inTheReadinessGroupThroughTheHealthEndpoint() {
		this.runner
			.withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class,
					EndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class,
					HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
					AvailabilityHealthContributorAutoConfiguration.class))
			.withPropertyValues("management.health.readinessstate.enabled=true",
					"management.endpoint.health.group.readiness.include=readinessState,listwatchSynced",
					"management.endpoint.health.show-details=always")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				HealthEndpoint endpoint = context.getBean(HealthEndpoint.class);
				// the application accepts traffic: only the watch keeps it out of
				// readiness
				AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
				assertThat(endpoint.healthForPath("readiness").getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
				assertThat(endpoint.healthForPath("listwatch", "configmaps").getStatus())
					.isEqualTo(Status.OUT_OF_SERVICE);
				context.getBean(FakeListerWatcher.class).releaseList();
				await().atMost(WAIT).until(() -> endpoint.healthForPath("readiness").getStatus().equals(Status.UP));
				HealthDescriptor listwatch = endpoint.healthForPath("listwatch");
				assertThat(listwatch.getStatus()).isEqualTo(Status.UP);
				assertThat(endpoint.healthForPath("listwatchSynced").getStatus()).isEqualTo(Status.UP);
				assertThat(endpoint.health().getStatus()).isEqualTo(Status.UP);
			});
	}

	/**
	 * An index function that runs out of memory for the object "huge": the Error strikes
	 * the reading thread.
	 */
	private static WatchIndex<?> outOfMemoryOnHuge() {
		return WatchIndex.of("configmaps", "byName", (object, meta) -> {
			if (meta.name().equals("huge")) {
				throw new OutOfMemoryError("Java heap space (test)");
			}
			return List.of(meta.name());
		});
	}

	private static HealthIndicator indicator(AssertableApplicationContext context, String watch) {
		return (HealthIndicator) context.getBean("listwatchHealthContributor", CompositeHealthContributor.class)
			.getContributor(watch);
	}

}
