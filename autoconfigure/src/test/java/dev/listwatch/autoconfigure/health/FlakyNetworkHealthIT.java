package dev.listwatch.autoconfigure.health;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.autoconfigure.metrics.ListwatchMetricsAutoConfiguration;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import dev.listwatch.testsupport.fault.FaultProxy;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

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
 * Health and readiness of quiet watches on a real kube-apiserver behind the
 * {@link FaultProxy}, on a network as services meet it: a proxy that closes connections
 * idle for a while (cloud load balancers do, from 30 s; here 2 s, so the test runs in
 * seconds), and an outage of the API server. A watch that is connected and correct is UP
 * whatever the intermediary does to idle connections; readiness
 * ({@code readinessState,listwatchSynced}) holds through an outage that every replica
 * shares, while the {@code listwatch} contributor reports it; once the server is back,
 * every watch is UP within one {@code max-backoff} plus a few seconds.
 */
@ExtendWith(LocalApiServerExtension.class)
class FlakyNetworkHealthIT {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final Duration IDLE_CLOSE = Duration.ofSeconds(2);

	private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

	private static final List<String> WATCHES = List.of("alpha", "beta", "gamma", "empty");

	private static LocalApiServer server;

	private FaultProxy proxy;

	@TempDir
	Path dir;

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
	void quietWatchesBehindAProxyThatClosesIdleConnectionsStayUpAndMissNothing() {
		String namespace = server.createNamespace("lw-idle-proxy");
		String path = seed(namespace);
		ApiWriter writer = server.writer();
		this.proxy = FaultProxy.startFor(server.serverUrl());
		this.proxy.closeIdleAfter(IDLE_CLOSE);
		runner(namespace).run((context) -> {
			assertThat(context).hasNotFailed();
			HealthEndpoint endpoint = context.getBean(HealthEndpoint.class);
			AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
			await().atMost(WAIT).until(() -> status(endpoint, "listwatch").equals(Status.UP));
			int closesBefore = this.proxy.idleCloses();

			// several idle closes of every quiet stream: every watch UP all the while,
			// readiness too
			await().during(IDLE_CLOSE.multipliedBy(4))
				.atMost(IDLE_CLOSE.multipliedBy(4).plus(WAIT))
				.until(() -> status(endpoint, "listwatch").equals(Status.UP)
						&& status(endpoint, "readiness").equals(Status.UP));
			// on HTTP/2 the watches share a connection, and each close cuts all of them
			// (each one's cut is asserted below)
			assertThat(this.proxy.idleCloses() - closesBefore).as("the proxy did close idle connections")
				.isGreaterThanOrEqualTo(2);
			for (String watch : WATCHES) {
				Informer<?> informer = context.getBean(watch + "Informer", Informer.class);
				assertThat(informer.status().restarts(RestartReason.DISCONNECTED)).as(watch + " was cut").isPositive();
				assertThat(informer.status().consecutiveFailures()).as(watch).isZero();
				assertThat(informer.status().failingSince()).as(watch).isNull();
				assertThat(informer.status().relists()).as(watch + ": resumed, never relisted").isZero();
			}

			// a change on a quiet resource still arrives, and the caches are exact
			writer.create(path, labelled(namespace, "beta-2", "beta"));
			writer.delete(path + "/alpha-1");
			Informer<?> alpha = context.getBean("alphaInformer", Informer.class);
			Informer<?> beta = context.getBean("betaInformer", Informer.class);
			await().atMost(WAIT).until(() -> beta.status().objects() == 2 && alpha.status().objects() == 0);
			assertThat(context.getBean("gammaInformer", Informer.class).status().objects()).isEqualTo(1);
			assertThat(status(endpoint, "listwatch")).isEqualTo(Status.UP);
		});
	}

	@Test
	void throughAnOutageReadinessHoldsHealthReportsItAndEveryWatchIsUpWithinOneBackoffOnceBack() {
		String namespace = server.createNamespace("lw-outage");
		String path = seed(namespace);
		ApiWriter writer = server.writer();
		this.proxy = FaultProxy.startFor(server.serverUrl());
		runner(namespace).run((context) -> {
			assertThat(context).hasNotFailed();
			HealthEndpoint endpoint = context.getBean(HealthEndpoint.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
			await().atMost(WAIT).until(() -> status(endpoint, "listwatch").equals(Status.UP));
			assertThat(status(endpoint, "readiness")).isEqualTo(Status.UP);
			// the streams have been open a while before the outage: quiet, and held
			await().atMost(WAIT)
				.until(() -> staleness(registry, "alpha") == 0
						&& context.getBean("alphaInformer", Informer.class).status().silentFor() != null
						&& context.getBean("alphaInformer", Informer.class).status().silentFor().toMillis() > 1500);

			// the outage: the server refuses, open streams are cut. Readiness holds all
			// along (every replica shares the outage; each serves from its cache), health
			// says DOWN past the grace
			this.proxy.refuse();
			this.proxy.cutAll();
			await().atMost(WAIT).until(() -> {
				assertThat(status(endpoint, "readiness")).as("readiness through the outage").isEqualTo(Status.UP);
				return WATCHES.stream().allMatch((watch) -> status(endpoint, "listwatch", watch).equals(Status.DOWN));
			});
			assertThat(staleness(registry, "alpha")).as("staleness shown in the meter").isGreaterThan(3);
			Map<String, Object> synced = details(endpoint.healthForPath("listwatchSynced"));
			assertThat(synced.get("watches").toString()).contains("failingFor");
			// long enough for the backoff to reach its longest delay
			await().atMost(WAIT)
				.until(() -> context.getBean("alphaInformer", Informer.class).status().consecutiveFailures() >= 6);

			writer.create(path, labelled(namespace, "beta-2", "beta"));
			long resumed = System.nanoTime();
			this.proxy.resume();
			await().atMost(MAX_BACKOFF.plusSeconds(5)).until(() -> status(endpoint, "listwatch").equals(Status.UP));
			Duration upAfter = Duration.ofNanos(System.nanoTime() - resumed);
			assertThat(upAfter).as("UP within one max-backoff plus a few seconds")
				.isLessThan(MAX_BACKOFF.plusSeconds(5));
			Informer<?> beta = context.getBean("betaInformer", Informer.class);
			await().atMost(WAIT).until(() -> beta.status().objects() == 2);
			assertThat(staleness(registry, "alpha")).isZero();
			assertThat(status(endpoint, "readiness")).isEqualTo(Status.UP);
		});
	}

	/**
	 * One ConfigMap for each of alpha, beta and gamma (none for empty); returns their
	 * collection's path.
	 */
	private static String seed(String namespace) {
		String path = "/api/v1/namespaces/" + namespace + "/configmaps";
		for (String app : List.of("alpha", "beta", "gamma")) {
			server.writer().create(path, labelled(namespace, app + "-1", app));
		}
		return path;
	}

	private static String labelled(String namespace, String name, String app) {
		return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\""
				+ namespace + "\",\"labels\":{\"app\":\"" + app + "\"}},\"data\":{\"k\":\"v\"}}";
	}

	private static Status status(HealthEndpoint endpoint, String... path) {
		HealthDescriptor health = endpoint.healthForPath(path);
		return (health != null) ? health.getStatus() : Status.UNKNOWN;
	}

	private static double staleness(MeterRegistry registry, String watch) {
		return registry.get("listwatch.staleness").tag("watch", watch).timeGauge().value();
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> details(HealthDescriptor descriptor) {
		return ((IndicatedHealthDescriptor) descriptor).getDetails();
	}

	private ApplicationContextRunner runner(String namespace) {
		List<String> properties = new java.util.ArrayList<>(List.of(
				"listwatch.kubeconfig=" + this.proxy.kubeconfigFor(server.kubeconfig(), this.dir.resolve("kubeconfig")),
				"listwatch.connection.connect-timeout=2s", "listwatch.defaults.initial-backoff=100ms",
				"listwatch.defaults.max-backoff=" + MAX_BACKOFF.toMillis() + "ms",
				"management.health.listwatch.backoff-grace-period=3s", "management.health.readinessstate.enabled=true",
				"management.endpoint.health.group.readiness.include=readinessState,listwatchSynced",
				"management.endpoint.health.show-details=always"));
		for (String watch : WATCHES) {
			String prefix = "listwatch.watches." + watch + ".";
			properties.add(prefix + "api-version=v1");
			properties.add(prefix + "kind=ConfigMap");
			properties.add(prefix + "namespace=" + namespace);
			properties.add(prefix + "label-selector=app=" + watch);
		}
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class, ListwatchHealthContributorAutoConfiguration.class,
					ListwatchMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, ApplicationAvailabilityAutoConfiguration.class,
					EndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class,
					HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
					AvailabilityHealthContributorAutoConfiguration.class))
			.withPropertyValues(properties.toArray(String[]::new));
	}

}
