package dev.listwatch.reliability;

import java.time.Duration;
import java.util.List;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Lister;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.event.ResourceEvent;
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
 * {@code ConfigurableApplicationContext.stop()} then {@code start()} (what Spring's
 * checkpoint/restore does) on the real API server: the watches stop, what changed
 * meanwhile is published after the start, the cache is whole, and events flow again.
 */
class StopStartIT {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@Test
	void aStoppedAndRestartedContextCatchesUpAndGoesOnPublishing() {
		LocalApiServer server = LocalApiServer.shared();
		String ns = server.createNamespace("lw-stop-start");
		String path = "/api/v1/namespaces/" + ns + "/configmaps";
		ApiWriter writer = server.writer();
		writer.create(path, ApiWriter.configMap(ns, "a", "v", "0"));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class))
			.withBean(EventRecorder.class)
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(), "listwatch.watches.one.api-version=v1",
					"listwatch.watches.one.kind=ConfigMap", "listwatch.watches.one.namespace=" + ns,
					"listwatch.watches.two.api-version=v1", "listwatch.watches.two.kind=ConfigMap",
					"listwatch.watches.two.namespace=" + ns)
			.run((context) -> {
				Informer<?> one = context.getBean("oneInformer", Informer.class);
				Informer<?> two = context.getBean("twoInformer", Informer.class);
				EventRecorder recorder = context.getBean(EventRecorder.class);
				await().atMost(WAIT).until(() -> one.status().synced() && two.status().synced());

				context.stop();
				assertThat(one.isRunning()).isFalse();
				assertThat(two.isRunning()).isFalse();
				writer.create(path, ApiWriter.configMap(ns, "b", "v", "0"));
				writer.patch(path + "/a", "{\"data\":{\"v\":\"1\"}}");

				context.start();
				await().atMost(WAIT).untilAsserted(() -> {
					assertThat(recorder.last).containsKeys("one " + ns + "/b", "two " + ns + "/b");
					assertThat(recorder.last.get("one " + ns + "/a").type()).isEqualTo(ResourceEvent.Type.MODIFIED);
				});
				assertThat(recorder.last.get("one " + ns + "/b").initialList()).isFalse();
				writer.create(path, ApiWriter.configMap(ns, "c", "v", "0"));
				await().atMost(WAIT)
					.untilAsserted(
							() -> assertThat(recorder.last).containsKeys("one " + ns + "/c", "two " + ns + "/c"));
				Lister<KubernetesObject> lister = context.getBean("oneLister", Lister.class);
				assertThat(lister.list().stream().map(KubernetesObject::name).sorted()).containsExactly("a", "b", "c");
				assertThat(lister.get(ns, "a").map((cm) -> cm.at("/data/v").asString())).contains("1");
				assertThat(one.status().events()).isNotEmpty();
				assertThat(List.of(one.status().listenerFailures(), two.status().listenerFailures())).containsOnly(0L);
			});
	}

}
