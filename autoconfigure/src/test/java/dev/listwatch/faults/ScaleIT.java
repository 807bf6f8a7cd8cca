package dev.listwatch.faults;

import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListerWatcher;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import dev.listwatch.testsupport.scripted.ScriptedApiServer;
import dev.listwatch.testsupport.scripted.ScriptedApiServer.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scale: 200 declared watches in one application against the real API server, and one
 * watch over 50,000 objects; threads and memory stay bounded.
 */
@ExtendWith(LocalApiServerExtension.class)
class ScaleIT {

	@Test
	void twoHundredWatchesInOneApplication(LocalApiServer server) {
		String namespace = server.createNamespace("lw-scale");
		server.writer()
			.createAll("/api/v1/namespaces/" + namespace + "/configmaps",
					List.of(ApiWriter.configMap(namespace, "one", "k", "v")), 1);
		List<String> properties = new ArrayList<>(List.of("listwatch.kubeconfig=" + server.kubeconfig()));
		for (int i = 0; i < 200; i++) {
			properties.add("listwatch.watches.w" + i + ".api-version=v1");
			properties.add("listwatch.watches.w" + i + ".kind=ConfigMap");
			properties.add("listwatch.watches.w" + i + ".namespace=" + namespace);
		}
		int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class))
			.withPropertyValues(properties.toArray(String[]::new))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				@SuppressWarnings("rawtypes")
				Map<String, Informer> informers = context.getBeansOfType(Informer.class);
				assertThat(informers).hasSize(200);
				await().atMost(Duration.ofSeconds(120))
					.until(() -> informers.values().stream().allMatch((i) -> i.status().synced()));
				assertThat(informers.values()).allSatisfy((i) -> assertThat(i.status().objects()).isEqualTo(1));
				int threads = ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore;
				java.util.Map<String, Long> byName = Thread.getAllStackTraces()
					.keySet()
					.stream()
					.collect(java.util.stream.Collectors.groupingBy((t) -> t.getName().replaceAll("[0-9]+", "#"),
							java.util.TreeMap::new, java.util.stream.Collectors.counting()));
				System.out.println("threads by name: " + byName);
				System.out.printf("200 watches: %d more threads (Java %d)%n", threads, Runtime.version().feature());
				// one reading thread per watch on Java 17-20 (virtual on 21+), plus a few
				// shared ones
				assertThat(threads).isLessThanOrEqualTo(200 + 64);
			});
	}

	@Test
	void oneWatchOverFiftyThousandObjects() {
		int objects = 50_000;
		int page = 500;
		// measured before the scripted pages exist: they are consumed (and freed) by the
		// sync
		long heapBefore = usedHeapAfterGc();
		try (ScriptedApiServer server = new ScriptedApiServer()) {
			long jsonBytes = 0;
			for (int p = 0; p < objects / page; p++) {
				String[] items = new String[page];
				for (int i = 0; i < page; i++) {
					int n = p * page + i;
					items[i] = ScriptedApiServer.configMap("cm-" + n, 100 + n, "value-" + n + "-" + "x".repeat(400));
					jsonBytes += items[i].length();
				}
				String body = ScriptedApiServer.list(1000000, items);
				if (p < objects / page - 1) {
					body = body.replace("\"resourceVersion\":\"1000000\"}",
							"\"resourceVersion\":\"1000000\",\"continue\":\"page-" + (p + 1) + "\"}");
				}
				server.onList(Reply.body("application/json", body));
			}
			ApiServerClient client = ScriptedClients.connect(server.url());
			InformerOptions defaults = InformerOptions.defaults();
			InformerOptions options = new InformerOptions(null, null, (long) page, false, defaults.minWatchTimeout(),
					defaults.maxWatchTimeout(), defaults.idleTimeout(), defaults.backoff(), null, true);
			try (InformerFactory runtime = new InformerFactory(Clock.systemUTC(), (e) -> {
			}, 1, Duration.ofSeconds(1))) {
				ListerWatcher<KubernetesObject> configMaps = client.listerWatcher(
						new ApiServerClient.Target("v1", "ConfigMap", null, "ns"), KubernetesObject.class,
						ApiServerClient.Decoding.DEFAULTS.withMaxEventBytes(1 << 20));
				Informer<KubernetesObject> informer = runtime.informer("big", KubernetesObject.class, configMaps,
						options, List.of());
				informer.start();
				try {
					await().atMost(Duration.ofSeconds(120)).until(() -> informer.status().synced());
					await().atMost(Duration.ofSeconds(60)).until(() -> informer.status().backlog() == 0);
					assertThat(informer.status().objects()).isEqualTo(objects);
					assertThat(server.lists()).isEqualTo(objects / page);
					long retained = usedHeapAfterGc() - heapBefore;
					double perObject = retained / (double) objects;
					double json = jsonBytes / (double) objects;
					System.out.printf("50,000 objects: %.0f bytes retained per object, JSON %.0f bytes (%.2fx)%n",
							perObject, json, perObject / json);
					assertThat(perObject).isLessThan(2.0 * json);
				}
				finally {
					informer.stop();
				}
			}
		}
	}

	private static long usedHeapAfterGc() {
		for (int i = 0; i < 3; i++) {
			System.gc();
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

}
