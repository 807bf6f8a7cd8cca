package dev.listwatch.faults;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListerWatcher;
import dev.listwatch.WatchStatus;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import dev.listwatch.testsupport.scripted.ScriptedApiServer;
import dev.listwatch.testsupport.scripted.ScriptedApiServer.Reply;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * While the API server answers nothing but 503, a watch with the default backoff
 * (client-go's: 800 ms doubling to 30 s, with jitter) sends few requests: measured over
 * 30 s of outage.
 */
class OutageRateIT {

	private static final Duration OUTAGE = Duration.ofSeconds(30);

	@Test
	void anOutageIsRetriedWithBackoffNotAStorm() {
		try (ScriptedApiServer server = new ScriptedApiServer()) {
			for (int i = 0; i < 200; i++) {
				server.onList(Reply.error(503, "ServiceUnavailable", null));
			}
			ApiServerClient client = ScriptedClients.connect(server.url());
			InformerOptions defaults = InformerOptions.defaults();
			InformerOptions options = new InformerOptions(null, null, 500L, false, defaults.minWatchTimeout(),
					defaults.maxWatchTimeout(), defaults.idleTimeout(), defaults.backoff(), null, true);
			try (InformerFactory runtime = new InformerFactory(Clock.systemUTC(), (e) -> {
			}, 1, Duration.ofSeconds(1))) {
				ListerWatcher<KubernetesObject> configMaps = client.listerWatcher(
						new ApiServerClient.Target("v1", "ConfigMap", null, "ns"), KubernetesObject.class,
						ApiServerClient.Decoding.DEFAULTS.withMaxEventBytes(1 << 20));
				Informer<KubernetesObject> informer = runtime.informer("configmaps", KubernetesObject.class, configMaps,
						options, List.of());
				long start = System.nanoTime();
				informer.start();
				try {
					// a rate is measured over real time: wait out the window, checking
					// the state meanwhile
					await().pollDelay(OUTAGE).atMost(OUTAGE.plusSeconds(5)).until(() -> true);
					List<ScriptedApiServer.Request> requests = server.requests()
						.stream()
						.filter((r) -> r.nanoTime() - start <= OUTAGE.toNanos())
						.toList();
					double perSecond = requests.size() / (double) OUTAGE.toSeconds();
					System.out.printf("outage: %d requests in %d s = %.2f requests/s%n", requests.size(),
							OUTAGE.toSeconds(), perSecond);
					assertThat(requests.size()).isBetween(3, 12);
					assertThat(perSecond).isLessThan(0.4);
					assertThat(informer.status().state()).isIn(WatchStatus.State.BACKOFF, WatchStatus.State.SYNCING);
					assertThat(informer.status().lastError().code()).isEqualTo(503);
					for (int i = 1; i < requests.size(); i++) {
						long gap = requests.get(i).nanoTime() - requests.get(i - 1).nanoTime();
						assertThat(Duration.ofNanos(gap)).as("gap before request %d", i)
							.isGreaterThanOrEqualTo(Duration.ofMillis(700));
					}
				}
				finally {
					informer.stop();
				}
			}
		}
	}

}
