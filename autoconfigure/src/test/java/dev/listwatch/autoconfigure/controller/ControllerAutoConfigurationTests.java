package dev.listwatch.autoconfigure.controller;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListerWatcher;
import dev.listwatch.Resource;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.autoconfigure.ListwatchAutoConfigurationTests;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.client.ResourceWriter;
import dev.listwatch.autoconfigure.health.FakeListerWatcher;
import dev.listwatch.controller.Controller;
import dev.listwatch.controller.ControllerOptions;
import dev.listwatch.controller.Reconciler;
import dev.listwatch.controller.Request;
import dev.listwatch.controller.Result;
import dev.listwatch.leader.ShardMembership;
import dev.listwatch.leader.ShardMembershipOptions;
import org.junit.jupiter.api.BeforeAll;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.listwatch.autoconfigure.endpoint.ListwatchEndpointAutoConfiguration;
import dev.listwatch.autoconfigure.health.ControllersHealthContributorAutoConfiguration;
import dev.listwatch.autoconfigure.metrics.ListwatchMetricsAutoConfiguration;
import dev.listwatch.endpoint.ListwatchEndpoint;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The controllers' auto-configuration with {@link ApplicationContextRunner}, on a watch
 * whose lister-watcher is scripted: the bean each declaration makes, its options, its
 * reconciler found by name, and the declarations that fail startup with the property and
 * the fix named.
 */
class ControllerAutoConfigurationTests {

	@TempDir
	static Path dir;

	static Path kubeconfig;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
				ListwatchAutoConfiguration.class, ControllerAutoConfiguration.class));

	@BeforeAll
	static void kubeconfig() throws IOException {
		kubeconfig = ListwatchAutoConfigurationTests.writeKubeconfig(dir.resolve("kubeconfig.yaml"),
				"https://127.0.0.1:" + ListwatchAutoConfigurationTests.closedPort());
	}

	private ApplicationContextRunner watching(String... properties) {
		FakeListerWatcher server = FakeListerWatcher.open();
		server.add("a");
		server.add("b");
		return this.runner
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.watches.configmaps.api-version=v1",
					"listwatch.watches.configmaps.kind=ConfigMap")
			.withBean("configmapsListerWatcher", ListerWatcher.class, () -> server)
			.withPropertyValues(properties);
	}

	@Test
	void aDeclaredControllerRunsItsReconcilerBeanOnTheWatchsKeysWithTheOptionsSet() {
		Map<String, Boolean> seen = new ConcurrentHashMap<>();
		watching("listwatch.controllers.copy.watch=configmaps", "listwatch.controllers.copy.workers=3",
				"listwatch.controllers.copy.backoff.initial=10ms", "listwatch.controllers.copy.backoff.max=1m",
				"listwatch.controllers.copy.retry-rate.per-second=5", "listwatch.controllers.copy.retry-rate.burst=7",
				"listwatch.controllers.copy.max-delay=10m", "listwatch.controllers.copy.resync-period=5m",
				"listwatch.controllers.copy.shutdown-timeout=3s")
			.withBean("copyReconciler", Reconciler.class, () -> (Reconciler<KubernetesObject>) (request) -> {
				seen.put(request.key(), request.object().isPresent());
				return Result.done();
			})
			.run((context) -> {
				assertThat(context).hasNotFailed().hasBean("copyController");
				Controller<?> controller = context.getBean("copyController", Controller.class);
				assertThat(controller.options())
					.isEqualTo(new ControllerOptions(3, Duration.ofMillis(10), Duration.ofMinutes(1), 5, 7,
							Duration.ofMinutes(10), Duration.ofMinutes(5), Duration.ofSeconds(3), true));
				assertThat(controller.informer().watch()).isEqualTo("configmaps");
				assertThat(controller.isRunning()).isTrue();
				await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 2);
				assertThat(seen).containsEntry("default/a", true).containsEntry("default/b", true);
			});
	}

	@Test
	void theWatchDefaultsToTheControllersNameAndTheReconcilerCanBeNamed() {
		CountDownLatch reconciled = new CountDownLatch(2);
		watching("listwatch.controllers.configmaps.reconciler=mirror")
			.withBean("mirror", Reconciler.class, () -> (Reconciler<KubernetesObject>) (request) -> {
				reconciled.countDown();
				return Result.done();
			})
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean("configmapsController", Controller.class).options())
					.isEqualTo(ControllerOptions.DEFAULTS);
				assertThat(reconciled.await(10, TimeUnit.SECONDS)).isTrue();
			});
	}

	@Test
	void aControllerNamedInKebabCaseFindsTheReconcilerAComponentClassNamesItselfAfter() {
		CountDownLatch reconciled = new CountDownLatch(2);
		watching("listwatch.controllers.config-maps.watch=configmaps")
			.withBean("configMapsReconciler", Reconciler.class, () -> (Reconciler<KubernetesObject>) (request) -> {
				reconciled.countDown();
				return Result.done();
			})
			.run((context) -> {
				assertThat(context).hasNotFailed().hasBean("config-mapsController");
				assertThat(reconciled.await(10, TimeUnit.SECONDS)).isTrue();
			});
	}

	@Test
	void writersOfTheApplicationsClientApplyAsTheApplication() {
		watching("spring.application.name=orders").run((context) -> {
			ResourceWriter<KubernetesObject> writer = context.getBean(ApiServerClient.class)
				.writer(new Resource("", "v1", "configmaps", "ConfigMap", true, null), KubernetesObject.class);
			assertThat(writer.fieldManager()).isEqualTo("orders");
			assertThat(writer.withFieldManager("other").fieldManager()).isEqualTo("other");
		});
	}

	@Test
	void aClosingContextLetsTheReconcileUnderWayFinish() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch closing = new CountDownLatch(1);
		CountDownLatch finished = new CountDownLatch(1);
		watching("listwatch.controllers.configmaps.shutdown-timeout=10s")
			.withBean("configmapsReconciler", Reconciler.class, () -> (Reconciler<KubernetesObject>) (request) -> {
				started.countDown();
				// runs until the context is closing
				closing.await(10, TimeUnit.SECONDS);
				finished.countDown();
				return Result.done();
			})
			.withBean(ApplicationListener.class,
					() -> (ApplicationListener<ContextClosedEvent>) (event) -> closing.countDown())
			.run((context) -> assertThat(started.await(10, TimeUnit.SECONDS)).isTrue());
		// the context is closed: the reconcile under way had finished by then
		assertThat(closing.getCount()).isZero();
		assertThat(finished.getCount()).isZero();
	}

	@Test
	void noControllerWithoutADeclaration() {
		watching()
			.withBean("configmapsReconciler", Reconciler.class,
					() -> (Reconciler<KubernetesObject>) (request) -> Result.done())
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(Controller.class));
	}

	@Test
	void aMissingReconcilerFailsStartupNamingThePropertyAndTheBeansThereAre() {
		watching("listwatch.controllers.copy.watch=configmaps")
			.withBean("otherReconciler", Reconciler.class,
					() -> (Reconciler<KubernetesObject>) (request) -> Result.done())
			.run((context) -> assertFailure(context.getStartupFailure(),
					"Controller 'copy' cannot work: listwatch.controllers.copy.reconciler is not set, and there is no "
							+ "Reconciler bean named 'copyReconciler'",
					"Define a Reconciler<KubernetesObject> bean named 'copyReconciler', or set "
							+ "listwatch.controllers.copy.reconciler to the name of one of [otherReconciler]."));
	}

	@Test
	void anUnknownWatchFailsStartupNamingTheWatchesThereAre() {
		watching("listwatch.controllers.copy.watch=secrets")
			.withBean("copyReconciler", Reconciler.class,
					() -> (Reconciler<KubernetesObject>) (request) -> Result.done())
			.run((context) -> assertFailure(context.getStartupFailure(),
					"listwatch.controllers.copy.watch names 'secrets', but no watch of that name is declared",
					"or name in listwatch.controllers.copy.watch one of the watches: [configmaps]."));
	}

	@Test
	void aReconcilerOfAnotherTypeFailsStartup() {
		watching("listwatch.controllers.configmaps.workers=2")
			.withBean("configmapsReconciler", Reconciler.class, StringReconciler::new)
			.run((context) -> assertFailure(context.getStartupFailure(),
					"a Reconciler<String>, but watch 'configmaps' holds KubernetesObject",
					"Make the reconciler a Reconciler<KubernetesObject>"));
	}

	@Test
	void optionsOutOfRangeFailStartupNamingTheProperty() {
		watching("listwatch.controllers.configmaps.workers=0")
			.run((context) -> assertFailure(context.getStartupFailure(),
					"listwatch.controllers.configmaps.workers is 0", "Set it to 1 or more."));
		watching("listwatch.controllers.configmaps.backoff.initial=1s",
				"listwatch.controllers.configmaps.backoff.max=10ms")
			.run((context) -> assertFailure(context.getStartupFailure(),
					"listwatch.controllers.configmaps.backoff.max is shorter than backoff.initial",
					"Set it to backoff.initial or longer"));
	}

	@Test
	void aLeaderOnlyControllerWithoutLeaderElectionFailsStartup() {
		watching("listwatch.controllers.configmaps.leader-only=true")
			.run((context) -> assertFailure(context.getStartupFailure(),
					"listwatch.controllers.configmaps.leader-only is true, but leader election is not enabled",
					"Set listwatch.leader-election.enabled=true"));
	}

	@Test
	void aShardedControllerTakesItsMembershipFromItsPropertiesAndShowsItsShards() {
		watching("spring.application.name=orders", "listwatch.controllers.copy.watch=configmaps",
				"listwatch.controllers.copy.sharding.enabled=true", "listwatch.controllers.copy.sharding.shards=8",
				"listwatch.controllers.copy.sharding.identity=replica-7",
				"listwatch.controllers.copy.sharding.lease-duration=6s",
				"listwatch.controllers.copy.sharding.renew-deadline=4s",
				"listwatch.controllers.copy.sharding.retry-period=1s")
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, ListwatchMetricsAutoConfiguration.class,
					ControllersHealthContributorAutoConfiguration.class, ListwatchEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=listwatch")
			.withBean("copyReconciler", Reconciler.class,
					() -> (Reconciler<KubernetesObject>) (request) -> Result.done())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Controller<?> controller = context.getBean("copyController", Controller.class);
				ShardMembership membership = controller.shardMembership().orElseThrow();
				assertThat(membership.options()).isEqualTo(new ShardMembershipOptions("orders-copy", "default",
						"replica-7", 8, Duration.ofSeconds(6), Duration.ofSeconds(4), Duration.ofSeconds(1)));
				// it joins once the watch has synced
				await().atMost(Duration.ofSeconds(10)).until(membership::isRunning);
				// the API server is not there: it owns nothing, and says why
				await().atMost(Duration.ofSeconds(10)).until(() -> membership.status().lastError() != null);
				assertThat(controller.status().shards()).isNotNull();
				assertThat(controller.status().shards().running()).isEmpty();
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("listwatch.controller.shards.owned").gauge().value()).isZero();
				assertThat(registry.get("listwatch.controller.shard.queued").gauges()).hasSize(8);
				Health copy = ((HealthIndicator) context
					.getBean("listwatchControllersHealthContributor", CompositeHealthContributor.class)
					.getContributor("copy")).health();
				assertThat(copy.getStatus()).isEqualTo(Status.UP);
				assertThat(copy.getDetails().get("shards")).asInstanceOf(InstanceOfAssertFactories.MAP)
					.containsEntry("identity", "replica-7")
					.containsKey("lastError");
				ListwatchEndpoint.ShardsDescriptor shards = context.getBean(ListwatchEndpoint.class)
					.watches()
					.controllers()
					.get("copy")
					.shards();
				assertThat(shards).isNotNull();
				assertThat(shards.identity()).isEqualTo("replica-7");
			});
	}

	@Test
	void shardingThatCannotWorkFailsStartupNamingThePropertyAndTheFix() {
		String sharded = "listwatch.controllers.configmaps.sharding.enabled=true";
		watching(sharded).run((context) -> assertFailure(context.getStartupFailure(),
				"listwatch.controllers.configmaps.sharding.lease-prefix is not set, and spring.application.name",
				"Set listwatch.controllers.configmaps.sharding.lease-prefix"));
		watching(sharded, "spring.application.name=Orders_App")
			.run((context) -> assertFailure(context.getStartupFailure(),
					"sharding.lease-prefix is 'Orders_App-configmaps', which is not",
					"such as 'orders-app-configmaps'"));
		watching(sharded, "spring.application.name=orders", "listwatch.controllers.configmaps.sharding.shards=0")
			.run((context) -> assertFailure(context.getStartupFailure(), "sharding.shards is 0",
					"Set it from 1 to 1024"));
		watching(sharded, "spring.application.name=orders",
				"listwatch.controllers.configmaps.sharding.renew-deadline=20s")
			.run((context) -> assertFailure(context.getStartupFailure(), "listwatch.controllers.configmaps.sharding",
					"lease-duration > renew-deadline > retry-period * 1.2"));
		watching(sharded, "spring.application.name=orders", "listwatch.controllers.configmaps.leader-only=true")
			.run((context) -> assertFailure(context.getStartupFailure(),
					"sharding.enabled is true, but the controller is leader-only",
					"Remove leader-only, or sharding.enabled."));
	}

	@Test
	void metersHealthAndTheEndpointShowEachControllerAndItsFailingKeysWithoutValues() {
		watching("listwatch.controllers.copy.watch=configmaps", "listwatch.controllers.copy.backoff.initial=1ms",
				"listwatch.controllers.copy.backoff.max=5ms")
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, ListwatchMetricsAutoConfiguration.class,
					ControllersHealthContributorAutoConfiguration.class, ListwatchEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=listwatch")
			.withBean("copyReconciler", Reconciler.class, () -> (Reconciler<KubernetesObject>) (request) -> {
				if (request.key().equals("default/b")) {
					throw new IllegalStateException("the target namespace is full");
				}
				return Result.done();
			})
			.run((context) -> {
				assertThat(context).hasNotFailed();
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> registry.get("listwatch.controller.failures")
						.tags("controller", "copy", "watch", "configmaps")
						.functionCounter()
						.count() >= 3);
				assertThat(registry.get("listwatch.controller.reconciles").functionCounter().count()).isGreaterThan(3);
				assertThat(registry.get("listwatch.controller.adds").functionCounter().count()).isGreaterThan(2);
				assertThat(registry.get("listwatch.controller.retries").functionCounter().count()).isGreaterThan(2);
				assertThat(registry.get("listwatch.controller.failing").gauge().value()).isEqualTo(1);
				assertThat(registry.get("listwatch.controller.work.duration").functionTimer().count()).isPositive();
				assertThat(registry.find("listwatch.controller.depth").gauge()).isNotNull();
				assertThat(registry.find("listwatch.controller.longest.running").timeGauge()).isNotNull();
				CompositeHealthContributor health = context.getBean("listwatchControllersHealthContributor",
						CompositeHealthContributor.class);
				Health copy = ((HealthIndicator) health.getContributor("copy")).health();
				assertThat(copy.getStatus()).isEqualTo(Status.UP);
				assertThat(copy.getDetails()).containsEntry("failingKeys", 1);
				ListwatchEndpoint.ControllerDescriptor described = context.getBean(ListwatchEndpoint.class)
					.watches()
					.controllers()
					.get("copy");
				assertThat(described.watch()).isEqualTo("configmaps");
				assertThat(described.failing()).containsOnlyKeys("default/b");
				assertThat(described.failing().get("default/b").exception())
					.isEqualTo(IllegalStateException.class.getName());
				// the message may quote values: shown only with
				// listwatch.show-exception-messages
				assertThat(described.failing().get("default/b").at())
					.startsWith(ControllerAutoConfigurationTests.class.getName() + ".lambda$");
				assertThat(described.failing().get("default/b").message()).isNull();
			});
	}

	@Test
	void theEndpointShowsTheMessagesOfFailingKeysWhenAsked() {
		watching("listwatch.controllers.copy.watch=configmaps", "listwatch.controllers.copy.backoff.initial=1ms",
				"listwatch.controllers.copy.backoff.max=5ms", "listwatch.show-exception-messages=true")
			.withConfiguration(AutoConfigurations.of(ListwatchEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=listwatch")
			.withBean("copyReconciler", Reconciler.class, () -> (Reconciler<KubernetesObject>) (request) -> {
				if (request.key().equals("default/b")) {
					throw new IllegalStateException("the target namespace is full");
				}
				return Result.done();
			})
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ListwatchEndpoint endpoint = context.getBean(ListwatchEndpoint.class);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> endpoint.watches().controllers().get("copy").failing().containsKey("default/b"));
				assertThat(endpoint.watches().controllers().get("copy").failing().get("default/b").message())
					.isEqualTo("the target namespace is full");
			});
	}

	@Test
	void noControllersHealthWithoutAController() {
		watching().withConfiguration(AutoConfigurations.of(ControllersHealthContributorAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("listwatchControllersHealthContributor"));
	}

	private static void assertFailure(Throwable failure, String message, String fix) {
		Throwable cause = NestedExceptionUtils.getMostSpecificCause(failure);
		assertThat(cause).isInstanceOf(ControllerDeclarationException.class);
		assertThat(cause.getMessage()).contains(message);
		FailureAnalysis analysis = new ControllerDeclarationException.Analyzer().analyze(failure);
		assertThat(analysis).isNotNull();
		assertThat(analysis.getAction()).contains(fix);
	}

	static final class StringReconciler implements Reconciler<String> {

		@Override
		public Result reconcile(Request<String> request) {
			return Result.done();
		}

	}

}
