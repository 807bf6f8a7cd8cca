package dev.listwatch.reliability;

import java.time.Duration;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Lister;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Objects over {@code max-event-size}, written through the real API server: one there
 * before the watch starts (in its initial list, streaming or paged) and one that grows
 * past the limit while it is watched. Neither stops the watch, neither is published as
 * deleted, later changes arrive, and the watch reports both until they shrink again.
 */
class OversizedObjectIT {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final String BIG = "x".repeat(40_000);

	@ParameterizedTest(name = "streaming-list={0}")
	@ValueSource(booleans = { true, false })
	void anObjectOverTheSizeLimitIsHeldAsUnbindableAndTheWatchGoesOn(boolean streaming) {
		LocalApiServer server = LocalApiServer.shared();
		String ns = server.createNamespace("lw-oversized-" + streaming);
		String path = "/api/v1/namespaces/" + ns + "/configmaps";
		ApiWriter writer = server.writer();
		writer.create(path, ApiWriter.configMap(ns, "big", "v", BIG));
		writer.create(path, ApiWriter.configMap(ns, "small", "v", "0"));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class))
			.withBean(EventRecorder.class)
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(), "listwatch.watches.cms.api-version=v1",
					"listwatch.watches.cms.kind=ConfigMap", "listwatch.watches.cms.namespace=" + ns,
					"listwatch.defaults.max-event-size=16KB", "listwatch.defaults.streaming-list=" + streaming)
			.run((context) -> {
				Informer<?> informer = context.getBean("cmsInformer", Informer.class);
				EventRecorder recorder = context.getBean(EventRecorder.class);
				Lister<KubernetesObject> lister = context.getBean("cmsLister", Lister.class);
				// streamingList is recorded once the reflector has handed the sync on,
				// just after synced
				await().atMost(WAIT)
					.until(() -> informer.status().synced() && informer.status().streamingList() != null);
				assertThat(informer.status().streamingList()).isEqualTo(streaming);
				assertThat(lister.list().stream().map(KubernetesObject::name)).containsExactly("small");
				assertThat(informer.status().unbindable()).singleElement().satisfies((object) -> {
					assertThat(object.key()).isEqualTo(ns + "/big");
					assertThat(object.reason()).contains("max-event-size");
				});

				// the small one grows past the limit: kept as it was, reported, and the
				// watch goes on
				writer.patch(path + "/small", "{\"data\":{\"v\":\"" + BIG + "\"}}");
				await().atMost(WAIT).until(() -> informer.status().unbindable().size() == 2);
				writer.create(path, ApiWriter.configMap(ns, "later", "v", "0"));
				await().atMost(WAIT).until(() -> lister.get(ns, "later").isPresent());
				assertThat(lister.get(ns, "small").map((cm) -> cm.at("/data/v").asString())).contains("0");

				// both shrink: the big one appears, the small one changes from its last
				// state held
				writer.patch(path + "/big", "{\"data\":{\"v\":\"1\"}}");
				writer.patch(path + "/small", "{\"data\":{\"v\":\"1\"}}");
				await().atMost(WAIT)
					.until(() -> informer.status().unbindable().size() == 0 && informer.status().backlog() == 0
							&& lister.get(ns, "big").isPresent());
				assertThat(recorder.changes()).extracting((event) -> event.type() + " " + event.key())
					.containsExactly("ADDED " + ns + "/later", "ADDED " + ns + "/big", "MODIFIED " + ns + "/small");
				assertThat(recorder.changes().get(2).oldObject().at("/data/v").asString()).isEqualTo("0");
				assertThat(informer.status().relists()).isZero();
				assertThat(informer.status().restarts()).doesNotContainKey(RestartReason.BAD_DATA);
			});
	}

}
