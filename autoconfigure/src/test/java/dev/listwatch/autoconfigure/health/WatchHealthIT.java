package dev.listwatch.autoconfigure.health;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.autoconfigure.metrics.ListwatchMetricsAutoConfiguration;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Health, readiness and meters of a watch on a real kube-apiserver reached through a TCP
 * proxy that is stopped and started: OUT_OF_SERVICE before the initial sync (readiness
 * too), UP once synced, DOWN when the server has been unreachable for longer than the
 * grace period while readiness ({@code readinessState,listwatchSynced}) stays UP, UP
 * again once it is back.
 */
@ExtendWith(LocalApiServerExtension.class)
class WatchHealthIT {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static LocalApiServer server;

	private TcpProxy proxy;

	@BeforeAll
	static void start(LocalApiServer localApiServer) {
		server = localApiServer;
	}

	@AfterEach
	void stopProxy() {
		if (this.proxy != null) {
			this.proxy.close();
		}
	}

	@Test
	void outOfServiceBeforeSyncUpWhenSyncedDownWhenUnreachableBeyondGraceUpWhenBack() throws Exception {
		String namespace = server.createNamespace("lw-health");
		String path = "/api/v1/namespaces/" + namespace + "/configmaps";
		ApiWriter writer = server.writer();
		writer.create(path, ApiWriter.configMap(namespace, "one", "v", "1"));
		writer.create(path, ApiWriter.configMap(namespace, "two", "v", "1"));
		URI target = URI.create(server.serverUrl());
		this.proxy = new TcpProxy(target.getHost(), target.getPort()).start();
		int port = this.proxy.port();
		this.proxy.stop(); // unreachable at startup
		runner(namespace, port).run((context) -> {
			assertThat(context).hasNotFailed();
			HealthEndpoint endpoint = context.getBean(HealthEndpoint.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);

			HealthDescriptor before = endpoint.healthForPath("listwatch", "configmaps");
			assertThat(before.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
			assertThat(details(before)).containsEntry("synced", false).containsEntry("reason", "not synced yet");
			assertThat(endpoint.healthForPath("readiness").getStatus()).isEqualTo(Status.OUT_OF_SERVICE);

			this.proxy.start();
			await().atMost(WAIT).until(() -> endpoint.healthForPath("readiness").getStatus().equals(Status.UP));
			Map<String, Object> up = details(endpoint.healthForPath("listwatch", "configmaps"));
			assertThat(up).containsEntry("state", "WATCHING")
				.containsEntry("synced", true)
				.containsEntry("objects", 2)
				.containsKeys("lastResourceVersion", "lastSyncTime", "streamingList");
			assertThat(registry.get("listwatch.cache.size").tag("watch", "configmaps").gauge().value()).isEqualTo(2);
			await().atMost(WAIT)
				.until(() -> registry.get("listwatch.sync.duration")
					.tag("watch", "configmaps")
					.functionTimer()
					.count() == 1);

			double added = added(registry);
			writer.create(path, ApiWriter.configMap(namespace, "three", "v", "1"));
			await().atMost(WAIT).until(() -> added(registry) == added + 1);
			await().atMost(WAIT)
				.until(() -> Integer.valueOf(3)
					.equals(details(endpoint.healthForPath("listwatch", "configmaps")).get("objects")));
			log("synced", endpoint);

			this.proxy.stop();
			await().atMost(WAIT)
				.until(() -> endpoint.healthForPath("listwatch", "configmaps").getStatus().equals(Status.DOWN));
			// an outage every replica shares: each serves from its cache, readiness holds
			assertThat(endpoint.healthForPath("readiness").getStatus()).isEqualTo(Status.UP);
			assertThat(details(endpoint.healthForPath("listwatchSynced")).get("watches").toString())
				.contains("failingFor");
			Map<String, Object> down = details(endpoint.healthForPath("listwatch", "configmaps"));
			assertThat(down).containsKeys("failingSince", "lastError", "reason");
			assertThat((long) down.get("restarts")).isPositive();
			assertThat((long) down.get("consecutiveFailures")).isPositive();
			assertThat((Map<String, Object>) down.get("lastError")).containsEntry("reason", "CONNECTION");
			assertThat(registry.find("listwatch.restarts").tag("watch", "configmaps").functionCounters()).isNotEmpty();
			log("unreachable", endpoint);

			// written while unreachable: seen once the watch resumes
			writer.create(path, ApiWriter.configMap(namespace, "four", "v", "1"));
			this.proxy.start();
			await().atMost(WAIT).until(() -> endpoint.healthForPath("readiness").getStatus().equals(Status.UP));
			await().atMost(WAIT)
				.until(() -> Integer.valueOf(4)
					.equals(details(endpoint.healthForPath("listwatch", "configmaps")).get("objects")));
			Map<String, Object> back = details(endpoint.healthForPath("listwatch", "configmaps"));
			assertThat(back).doesNotContainKey("failingSince").containsEntry("state", "WATCHING");
			assertThat(added(registry)).isGreaterThanOrEqualTo(added + 2);
			assertThat(registry.get("listwatch.cache.size").tag("watch", "configmaps").gauge().value()).isEqualTo(4);
			log("back", endpoint);
		});
	}

	private static double added(MeterRegistry registry) {
		return registry.get("listwatch.events").tags("watch", "configmaps", "type", "ADDED").functionCounter().count();
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> details(HealthDescriptor descriptor) {
		return ((IndicatedHealthDescriptor) descriptor).getDetails();
	}

	private static void log(String when, HealthEndpoint endpoint) {
		LoggerFactory.getLogger(WatchHealthIT.class)
			.info("/actuator/health/listwatch " + when + ": "
					+ JsonMapper.shared()
						.writerWithDefaultPrettyPrinter()
						.writeValueAsString(endpoint.healthForPath("listwatch")));
	}

	private static ApplicationContextRunner runner(String namespace, int proxyPort) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class, ListwatchHealthContributorAutoConfiguration.class,
					ListwatchMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, ApplicationAvailabilityAutoConfiguration.class,
					EndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class,
					HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
					AvailabilityHealthContributorAutoConfiguration.class))
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(),
					"listwatch.connection.server=https://127.0.0.1:" + proxyPort,
					"listwatch.connection.connect-timeout=2s", "listwatch.watches.configmaps.api-version=v1",
					"listwatch.watches.configmaps.kind=ConfigMap",
					"listwatch.watches.configmaps.namespace=" + namespace, "listwatch.defaults.initial-backoff=100ms",
					"listwatch.defaults.max-backoff=500ms", "management.health.listwatch.backoff-grace-period=3s",
					"management.health.readinessstate.enabled=true",
					"management.endpoint.health.group.readiness.include=readinessState,listwatchSynced",
					"management.endpoint.health.show-details=always");
	}

}
