package dev.listwatch.informer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Lister;
import dev.listwatch.ListerWatcher;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.event.WatchSyncedEvent;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Declared watches against a real kube-apiserver: events for every change, in order per
 * object, and a cache that ends equal to the server's list.
 */
@ExtendWith(LocalApiServerExtension.class)
class InformerIT {

	private static LocalApiServer server;

	@BeforeAll
	static void start(LocalApiServer localApiServer) {
		server = localApiServer;
	}

	@Test
	void everyListenerSeesTheFinalStateOfEveryObjectAndEveryDelete() {
		String namespace = server.createNamespace("lw-informer");
		String path = "/api/v1/namespaces/" + namespace + "/configmaps";
		ApiWriter writer = server.writer();
		writer.createAll(path,
				IntStream.range(0, 50).mapToObj((i) -> ApiWriter.configMap(namespace, "pre-" + i, "v", "0")).toList(),
				16);
		org.slf4j.LoggerFactory.getLogger(InformerIT.class).info("created 50");
		runner(namespace).run((context) -> {
			org.slf4j.LoggerFactory.getLogger(InformerIT.class).info("context up");
			assertThat(context).hasNotFailed();
			Recorder recorder = context.getBean(Recorder.class);
			Lister<KubernetesObject> lister = context.getBean("configmapsLister", Lister.class);
			assertThat(context.getBean("configmapsListerWatcher")).isInstanceOf(ListerWatcher.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> recorder.synced.size() == 1);
			assertThat(recorder.events).hasSize(50).allMatch(ResourceEvent::initialList);
			assertThat(lister.size()).isEqualTo(50);
			writer.createAll(path,
					IntStream.range(0, 200)
						.mapToObj((i) -> ApiWriter.configMap(namespace, "new-" + i, "v", "0"))
						.toList(),
					16);
			org.slf4j.LoggerFactory.getLogger(InformerIT.class).info("created 200");
			for (int i = 0; i < 200; i += 2) {
				writer.patch(path + "/new-" + i, "{\"data\":{\"v\":\"1\"}}");
			}
			for (int i = 0; i < 50; i += 5) {
				writer.delete(path + "/pre-" + i);
			}
			org.slf4j.LoggerFactory.getLogger(InformerIT.class).info("written all");
			await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
				assertThat(recorder.last.keySet()).hasSize(250);
				assertThat(lister.size()).isEqualTo(240);
				for (int i = 0; i < 200; i++) {
					ResourceEvent<KubernetesObject> last = recorder.last.get(namespace + "/new-" + i);
					assertThat(last.object().at("/data/v").asString()).isEqualTo((i % 2 == 0) ? "1" : "0");
				}
				for (int i = 0; i < 50; i += 5) {
					assertThat(recorder.last.get(namespace + "/pre-" + i).type()).isEqualTo(ResourceEvent.Type.DELETED);
				}
			});
			assertThat(lister.list(namespace).stream().map(KubernetesObject::name).sorted().toList())
				.isEqualTo(names(writer.get(path)));
			assertThat(lister.listByLabels("app=listwatch-test")).hasSize(240);
			assertThat(lister.get(namespace, "new-0"))
				.hasValueSatisfying((cm) -> assertThat(cm.at("/data/v").asString()).isEqualTo("1"));
		});
	}

	private static List<String> names(String listJson) {
		return tools.jackson.databind.json.JsonMapper.shared()
			.readTree(listJson)
			.path("items")
			.valueStream()
			.map((item) -> item.path("metadata").path("name").asString())
			.sorted()
			.toList();
	}

	private static ApplicationContextRunner runner(String namespace) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class))
			.withUserConfiguration(Listeners.class)
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(),
					"listwatch.watches.configmaps.api-version=v1", "listwatch.watches.configmaps.kind=ConfigMap",
					"listwatch.watches.configmaps.namespace=" + namespace);
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		Recorder recorder() {
			return new Recorder();
		}

	}

	static class Recorder {

		final List<ResourceEvent<KubernetesObject>> events = new CopyOnWriteArrayList<>();

		final Map<String, ResourceEvent<KubernetesObject>> last = new ConcurrentHashMap<>();

		final List<WatchSyncedEvent> synced = new CopyOnWriteArrayList<>();

		@EventListener
		void on(ResourceEvent<KubernetesObject> event) {
			this.events.add(event);
			this.last.put(event.key(), event);
		}

		@EventListener
		void on(WatchSyncedEvent event) {
			this.synced.add(event);
		}

	}

}
