package dev.listwatch.informer;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.autoconfigure.health.ListwatchHealthContributorAutoConfiguration;
import dev.listwatch.reliability.RequestCounter;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.fault.FaultProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A half-open watch on the real API server, with the default idle timeout: the connection
 * stays open but nothing comes through. Time is a hand-moved monotonic ticker, so the
 * test needs no 90-second wait: health shows the silence once it outlasts the API
 * server's bookmark interval, the watch is replaced from its last resourceVersion at the
 * idle timeout (not before), without a LIST, and changes arrive again.
 */
class SilentStreamIT {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@TempDir
	Path dir;

	@Test
	void aSilentStreamIsShownInHealthAndReplacedWithoutAListWithin90Seconds() {
		LocalApiServer server = LocalApiServer.shared();
		String ns = server.createNamespace("lw-silent");
		String path = "/api/v1/namespaces/" + ns + "/configmaps";
		ApiWriter writer = server.writer();
		writer.create(path, ApiWriter.configMap(ns, "a", "v", "0"));
		AtomicLong nanos = new AtomicLong();
		RequestCounter counter = new RequestCounter(path);
		try (FaultProxy proxy = FaultProxy.startFor(server.serverUrl())) {
			new ApplicationContextRunner()
				.withConfiguration(
						AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
								ListwatchAutoConfiguration.class, ListwatchHealthContributorAutoConfiguration.class))
				.withBean(RequestCounter.class, () -> counter)
				.withBean(InformerFactory.class,
						() -> new InformerFactory(Clock.systemUTC(), (Ticker) nanos::get, (event) -> {
						}, 1, Duration.ofHours(1)))
				.withPropertyValues(
						"listwatch.kubeconfig="
								+ proxy.kubeconfigFor(server.kubeconfig(), this.dir.resolve("kubeconfig")),
						"listwatch.watches.silent.api-version=v1", "listwatch.watches.silent.kind=ConfigMap",
						"listwatch.watches.silent.namespace=" + ns)
				.run((context) -> {
					Informer<?> informer = context.getBean("silentInformer", Informer.class);
					InformerFactory runtime = context.getBean(InformerFactory.class);
					HealthIndicator health = (HealthIndicator) context
						.getBean("listwatchHealthContributor", CompositeHealthContributor.class)
						.getContributor("silent");
					await().atMost(WAIT).until(() -> informer.status().synced());
					long syncs = counter.count(RequestCounter.Kind.LIST)
							+ counter.count(RequestCounter.Kind.STREAMING_LIST);
					long watches = counter.count(RequestCounter.Kind.WATCH);
					assertThat(proxy.stallAll()).isPositive();

					nanos.addAndGet(Duration.ofSeconds(75).toNanos());
					Health silent = health.health();
					assertThat(silent.getStatus()).isEqualTo(Status.UP);
					assertThat((String) silent.getDetails().get("reason")).contains("no event or bookmark for 75 s")
						.contains("about every 60 s");

					nanos.addAndGet(Duration.ofSeconds(14).toNanos());
					runtime.checkIdle();
					assertThat(informer.status().restarts()).as("89 s: not yet").doesNotContainKey(RestartReason.IDLE);

					nanos.addAndGet(Duration.ofSeconds(2).toNanos());
					runtime.checkIdle();
					await().atMost(WAIT).until(() -> counter.count(RequestCounter.Kind.WATCH) > watches);
					await().atMost(WAIT).until(() -> informer.status().restarts(RestartReason.IDLE) == 1);
					writer.create(path, ApiWriter.configMap(ns, "b", "v", "0"));
					await().atMost(WAIT).until(() -> informer.status().objects() == 2);
					assertThat(
							counter.count(RequestCounter.Kind.LIST) + counter.count(RequestCounter.Kind.STREAMING_LIST))
						.as("replaced from its last resourceVersion, no LIST")
						.isEqualTo(syncs);
					assertThat(informer.status().relists()).isZero();
					Health after = health.health();
					assertThat(after.getStatus()).isEqualTo(Status.UP);
					assertThat(after.getDetails()).doesNotContainKeys("failingSince", "reason");
					assertThat((Map<String, Long>) after.getDetails().get("restartsByReason")).containsEntry("idle",
							1L);
				});
		}
	}

}
