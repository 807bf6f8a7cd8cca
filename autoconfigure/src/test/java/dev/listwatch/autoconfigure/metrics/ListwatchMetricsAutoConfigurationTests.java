package dev.listwatch.autoconfigure.metrics;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.autoconfigure.health.FakeListerWatcher;
import dev.listwatch.autoconfigure.health.FakeWatchConfiguration;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.client.RequestBudget;
import dev.listwatch.metrics.ListwatchMeterBinder;
import dev.listwatch.metrics.RequestBudgetMeterBinder;
import dev.listwatch.testsupport.MutableClock;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The listwatch meters over a watch backed by an in-memory fake, bound by Boot's metrics
 * auto-configuration to its simple registry.
 */
class ListwatchMetricsAutoConfigurationTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
				ListwatchAutoConfiguration.class, MetricsAutoConfiguration.class,
				SimpleMetricsExportAutoConfiguration.class, ListwatchMetricsAutoConfiguration.class))
		.withUserConfiguration(FakeWatchConfiguration.class)
		.withPropertyValues(FakeWatchConfiguration.PROPERTIES);

	@Test
	void metersExistFromTheStartAndMoveAsEventsFlow() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(ListwatchMeterBinder.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			FakeListerWatcher fake = context.getBean(FakeListerWatcher.class);
			MutableClock clock = context.getBean(MutableClock.class);

			assertThat(gauge(registry, "listwatch.synced")).isZero();
			assertThat(gauge(registry, "listwatch.cache.size")).isZero();
			assertThat(events(registry, "ADDED")).isZero();
			assertThat(registry.get("listwatch.last.event.age")
				.tag("watch", "configmaps")
				.timeGauge()
				.value(TimeUnit.SECONDS)).isNaN();

			fake.add("a");
			fake.releaseList();
			await().atMost(WAIT).until(() -> gauge(registry, "listwatch.synced") == 1);
			assertThat(gauge(registry, "listwatch.cache.size")).isEqualTo(1);
			assertThat(timer(registry, "listwatch.list.duration").count()).isEqualTo(1);
			// the status says synced just before its listeners hear of it
			await().atMost(WAIT).until(() -> timer(registry, "listwatch.sync.duration").count() == 1);

			fake.add("b");
			fake.add("c");
			await().atMost(WAIT).until(() -> events(registry, "ADDED") == 2);
			await().atMost(WAIT).until(() -> gauge(registry, "listwatch.cache.size") == 3);
			assertThat(events(registry, "DELETED")).isZero();
			assertThat(gauge(registry, "listwatch.dispatch.backlog")).isGreaterThanOrEqualTo(0);
			clock.advance(Duration.ofSeconds(42));
			TimeGauge age = registry.get("listwatch.last.event.age").tag("watch", "configmaps").timeGauge();
			assertThat(age.value(TimeUnit.SECONDS)).isEqualTo(42.0);
			assertThat(age.getId().getBaseUnit()).isEqualTo("seconds");

			assertThat(gauge(registry, "listwatch.unbindable")).isZero();
			fake.breakBinding("b");
			await().atMost(WAIT).until(() -> gauge(registry, "listwatch.unbindable") == 1);
			assertThat(gauge(registry, "listwatch.cache.size")).as("its last state is kept").isEqualTo(3);
			assertThat(registry.get("listwatch.index.failures").tag("watch", "configmaps").functionCounter().count())
				.isZero();

			TimeGauge staleness = registry.get("listwatch.staleness").tag("watch", "configmaps").timeGauge();
			assertThat(staleness.value(TimeUnit.SECONDS)).as("making progress").isZero();
			fake.cutOff();
			await().atMost(WAIT)
				.until(() -> registry.get("listwatch.restarts")
					.tags("watch", "configmaps", "reason", "disconnected")
					.functionCounter()
					.count() >= 1);
			await().atMost(WAIT)
				.until(() -> context.getBean(dev.listwatch.informer.Informer.class).status().failingSince() != null);
			clock.advance(Duration.ofSeconds(30));
			assertThat(staleness.value(TimeUnit.SECONDS)).as("failing for 30 s").isGreaterThanOrEqualTo(30.0);
			assertThat(registry.get("listwatch.restarts").tags("reason", "ended").functionCounter().count())
				.isGreaterThanOrEqualTo(1);
			fake.restore();
			assertThat(registry.get("listwatch.relists").tag("watch", "configmaps").functionCounter().count()).isZero();
			assertThat(registry.get("listwatch.listener.failures").tag("watch", "configmaps").functionCounter().count())
				.isZero();

			// only low-cardinality tags: never an object's name
			for (Meter meter : registry.getMeters()) {
				if (meter.getId().getName().startsWith("listwatch.")) {
					assertThat(meter.getId().getDescription()).isNotBlank();
					assertThat(meter.getId().getTags())
						.allSatisfy((tag) -> assertThat(tag.getKey()).isIn("watch", "type", "reason"));
				}
			}
		});
	}

	@Test
	void theRequestBudgetsMetersReadItsCounters() {
		this.runner.withPropertyValues("listwatch.connection.qps=1", "listwatch.connection.burst=1").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RequestBudgetMeterBinder.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			RequestBudget budget = context.getBean(ApiServerClient.class).requestBudget();
			assertThat(budget.qps()).isEqualTo(1);
			assertThat(registry.get("listwatch.client.requests").functionCounter().count())
				.isEqualTo(budget.requests());
			assertThat(registry.get("listwatch.client.throttled").functionCounter().count())
				.isEqualTo(budget.throttled());
			FunctionTimer waited = registry.get("listwatch.client.throttle.duration").functionTimer();
			assertThat(waited.count()).isEqualTo(budget.throttled());
			assertThat(waited.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(budget.waited().toNanos());
			assertThat(registry.get("listwatch.client.requests").meter().getId().getTags()).isEmpty();
		});
	}

	@Test
	void noBinderWithoutAMeterRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class, ListwatchMetricsAutoConfiguration.class))
			.withUserConfiguration(FakeWatchConfiguration.class)
			.withPropertyValues(FakeWatchConfiguration.PROPERTIES)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(ListwatchMeterBinder.class)
				.hasBean("configmapsInformer"));
	}

	@Test
	void noBinderWithoutMicrometer() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class, ListwatchMetricsAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("io.micrometer"))
			.withUserConfiguration(FakeWatchConfiguration.class)
			.withPropertyValues(FakeWatchConfiguration.PROPERTIES)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("listwatchMeterBinder")
				.hasBean("configmapsInformer"));
	}

	private static double gauge(MeterRegistry registry, String name) {
		Gauge gauge = registry.get(name).tag("watch", "configmaps").gauge();
		return gauge.value();
	}

	private static double events(MeterRegistry registry, String type) {
		FunctionCounter counter = registry.get("listwatch.events")
			.tags("watch", "configmaps", "type", type)
			.functionCounter();
		return counter.count();
	}

	private static FunctionTimer timer(MeterRegistry registry, String name) {
		return registry.get(name).tag("watch", "configmaps").functionTimer();
	}

}
