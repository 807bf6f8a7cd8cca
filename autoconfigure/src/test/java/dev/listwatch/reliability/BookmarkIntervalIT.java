package dev.listwatch.reliability;

import java.time.Duration;

import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the default idle timeout (90 s) rests on, on the real API server: a watch that its
 * own objects leave silent gets a bookmark about every minute while the resource changes
 * elsewhere (other namespaces, other labels). Where the resource does not change at all,
 * the watch cache sends no bookmark (it sends none at a resourceVersion the watch already
 * has) and the watch is replaced at the idle timeout without a list, which is not a
 * failure. Waits for one real bookmark (about a minute).
 */
class BookmarkIntervalIT {

	@Test
	void theApiServerSendsAnIdleWatchABookmarkWellWithinTheIdleTimeout() {
		LocalApiServer server = LocalApiServer.shared();
		String ns = server.createNamespace("lw-bookmarks");
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class))
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(), "listwatch.watches.quiet.api-version=v1",
					"listwatch.watches.quiet.kind=ConfigMap", "listwatch.watches.quiet.namespace=" + ns)
			.run((context) -> {
				Informer<?> informer = context.getBean("quietInformer", Informer.class);
				await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
				long synced = System.nanoTime();
				long before = bookmarks(informer);
				// the watch cache sends a watch a bookmark only past the resourceVersion
				// the watch is at: the resource must change somewhere (here: outside the
				// watched namespace)
				server.writer()
					.create("/api/v1/namespaces/default/configmaps",
							ApiWriter.configMap("default", "elsewhere-" + ns, "v", "0"));
				await().atMost(Duration.ofSeconds(85)).until(() -> bookmarks(informer) > before);
				Duration waited = Duration.ofNanos(System.nanoTime() - synced);
				assertThat(waited).isLessThan(Duration.ofSeconds(85));
				assertThat(informer.status().restarts()).doesNotContainKey(RestartReason.IDLE);
				assertThat(informer.status().failingSince()).isNull();
			});
	}

	private static long bookmarks(Informer<?> informer) {
		return informer.status().events().getOrDefault(WatchEvent.Type.BOOKMARK, 0L);
	}

}
