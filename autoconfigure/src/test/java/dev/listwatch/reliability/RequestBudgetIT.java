package dev.listwatch.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.client.RequestBudget;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.fault.FaultProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 50 watches, in 50 namespaces, cut off while etcd compacts past all of them, then let
 * back at once: a 410 storm, each watch relisting. The requests the API server is sent
 * per second (each counted as it leaves the client, by an interceptor of the rest client)
 * peak far above the budget without it, and stay within qps + burst with it; every watch
 * resyncs either way.
 */
class RequestBudgetIT {

	private static final int WATCHES = 50;

	private static final int QPS = 20;

	private static final int BURST = 20;

	@TempDir
	Path dir;

	@Test
	void theBudgetHoldsARelistStormOfFiftyWatchesNearItsRate() {
		try (LocalApiServer server = new LocalApiServer(
				LocalApiServer.Options.defaults().withFlags("--etcd-compaction-interval=1s", "--watch-cache=false"))
			.start(); FaultProxy proxy = FaultProxy.startFor(server.serverUrl())) {
			ApiWriter writer = server.writer();
			for (int i = 0; i < WATCHES; i++) {
				writer.create("/api/v1/namespaces", "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
						+ "\"metadata\":{\"name\":\"lw-budget-" + i + "\"}}");
				writer.create("/api/v1/namespaces/lw-budget-" + i + "/configmaps",
						ApiWriter.configMap("lw-budget-" + i, "a", "v", "0"));
			}
			Path kubeconfig = proxy.kubeconfigFor(server.kubeconfig(), this.dir.resolve("kubeconfig"));
			Storm without = storm(writer, proxy, kubeconfig, 0, 0, "without");
			Storm with = storm(writer, proxy, kubeconfig, QPS, BURST, "with");
			System.out.printf(
					"RequestBudgetIT: %d watches after a 410 storm: without a budget %d requests, peak %d "
							+ "requests/s, resynced in %d ms; with qps %d burst %d: %d requests, peak %d requests/s, "
							+ "resynced in %d ms, %d throttled%n",
					WATCHES, without.requests(), without.peak(), without.millis(), QPS, BURST, with.requests(),
					with.peak(), with.millis(), with.throttled());
			// a token bucket lets at most burst + qps through in any second (2 more for
			// the time between a token and the interceptor)
			assertThat(with.peak()).isLessThanOrEqualTo(BURST + QPS + 2);
			assertThat(with.throttled()).isPositive();
			assertThat(without.peak()).isGreaterThan(with.peak());
		}
	}

	private Storm storm(ApiWriter writer, FaultProxy proxy, Path kubeconfig, int qps, int burst, String run) {
		Queue<Long> sent = new ConcurrentLinkedQueue<>();
		List<String> properties = new ArrayList<>(List.of("listwatch.kubeconfig=" + kubeconfig,
				"listwatch.connection.qps=" + qps, "listwatch.connection.burst=" + burst,
				"listwatch.defaults.initial-backoff=100ms", "listwatch.defaults.max-backoff=500ms",
				// longer than a wait for a token in the storm (a wait counts as the
				// request's time without an answer)
				"listwatch.defaults.idle-timeout=20s"));
		for (int i = 0; i < WATCHES; i++) {
			properties.add("listwatch.watches.w" + i + ".api-version=v1");
			properties.add("listwatch.watches.w" + i + ".kind=ConfigMap");
			properties.add("listwatch.watches.w" + i + ".namespace=lw-budget-" + i);
		}
		Storm[] result = new Storm[1];
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class))
			.withBean(RestClientCustomizer.class,
					() -> (builder) -> builder.requestInterceptor((request, body, next) -> {
						sent.add(System.nanoTime());
						return next.execute(request, body);
					}))
			.withPropertyValues(properties.toArray(String[]::new))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Collection<Informer> informers = context.getBeansOfType(Informer.class).values();
				assertThat(informers).hasSize(WATCHES);
				await().atMost(Duration.ofSeconds(120))
					.until(() -> informers.stream().allMatch((informer) -> informer.status().synced()));
				proxy.refuse();
				proxy.cutAll();
				await().atMost(Duration.ofSeconds(60))
					.until(() -> informers.stream()
						.allMatch((informer) -> informer.status().consecutiveFailures() > 0));
				Informer<?> newest = informers.stream()
					.max((a, b) -> Long.compare(version(a), version(b)))
					.orElseThrow();
				String namespace = newest.status().watched().resource().namespace();
				CompactionRelistIT.compactPast(writer, "/api/v1/namespaces/" + namespace + "/configmaps",
						newest.status().lastResourceVersion(), "budget-" + run);
				long resumed = System.nanoTime();
				proxy.resume();
				await().atMost(Duration.ofSeconds(120))
					.until(() -> informers.stream()
						.allMatch((informer) -> informer.status().relists() >= 1
								&& informer.status().consecutiveFailures() == 0 && informer.status().synced()));
				long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumed);
				RequestBudget budget = context.getBean(ApiServerClient.class).requestBudget();
				result[0] = new Storm(sent.stream().filter((t) -> t >= resumed).count(), peak(sent, resumed), millis,
						budget.throttled());
			});
		return result[0];
	}

	private static long version(Informer<?> informer) {
		String version = informer.status().lastResourceVersion();
		return (version != null) ? Long.parseLong(version) : 0;
	}

	/** The most requests sent in any one second from {@code from} on. */
	private static int peak(Queue<Long> sent, long from) {
		long[] times = sent.stream().mapToLong(Long::longValue).filter((t) -> t >= from).sorted().toArray();
		int peak = 0;
		int start = 0;
		for (int end = 0; end < times.length; end++) {
			while (times[end] - times[start] >= TimeUnit.SECONDS.toNanos(1)) {
				start++;
			}
			peak = Math.max(peak, end - start + 1);
		}
		return peak;
	}

	private record Storm(long requests, int peak, long millis, long throttled) {
	}

}
