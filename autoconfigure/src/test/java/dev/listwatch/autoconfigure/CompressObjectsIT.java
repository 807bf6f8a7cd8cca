package dev.listwatch.autoconfigure;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Lister;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code compress-objects} on a real kube-apiserver, through the auto-configuration: two
 * watches of the same ConfigMaps, one compressed and one not, give equal objects in their
 * Listers and in their events (ADDED from the list and from the watch, MODIFIED,
 * DELETED), with more objects than the dictionary is learned from, so that most of them
 * are held compressed.
 */
@ExtendWith(LocalApiServerExtension.class)
class CompressObjectsIT {

	private static final int LISTED = 30;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
				ListwatchAutoConfiguration.class))
		.withUserConfiguration(Listener.class);

	@Test
	void aCompressedWatchGivesTheSameObjectsAsAPlainOne(LocalApiServer server) {
		String ns = server.createNamespace("compress-objects");
		ApiWriter writer = server.writer();
		String configMaps = "/api/v1/namespaces/" + ns + "/configmaps";
		List<String> listed = new ArrayList<>();
		for (int i = 0; i < LISTED; i++) {
			listed.add("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"listed-" + i
					+ "\",\"namespace\":\"" + ns + "\",\"labels\":{\"app\":\"web\",\"shard\":\"s" + (i % 3)
					+ "\"}},\"data\":{\"config.yaml\":\"server:\\n  port: 8080\\n  name: listed-" + i
					+ "\\nlogging:\\n  level: info\\n\",\"unicode\":\"ünïcode ✓\"}}");
		}
		writer.createAll(configMaps, listed, 4);
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(), "listwatch.startup.wait-for-sync=true",
					"listwatch.startup.sync-timeout=30s", "listwatch.watches.plain.api-version=v1",
					"listwatch.watches.plain.kind=ConfigMap", "listwatch.watches.plain.namespace=" + ns,
					"listwatch.watches.compressed.api-version=v1", "listwatch.watches.compressed.kind=ConfigMap",
					"listwatch.watches.compressed.namespace=" + ns,
					"listwatch.watches.compressed.compress-objects=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Listener listener = context.getBean(Listener.class);
				@SuppressWarnings("unchecked")
				Lister<KubernetesObject> plain = context.getBean("plainLister", Lister.class);
				@SuppressWarnings("unchecked")
				Lister<KubernetesObject> compressed = context.getBean("compressedLister", Lister.class);
				assertThat(compressed.size()).isEqualTo(LISTED);
				assertThat(sorted(compressed.list())).isEqualTo(sorted(plain.list()));
				assertThat(sorted(compressed.listByLabels("shard=s1")))
					.isEqualTo(sorted(plain.listByLabels("shard=s1")))
					.hasSize(LISTED / 3);
				assertThat(sorted(compressed.list(ns, "app=web"))).isEqualTo(sorted(plain.list(ns))).hasSize(LISTED);
				KubernetesObject last = compressed.get(ns, "listed-" + (LISTED - 1)).orElseThrow();
				assertThat(last.json()).isEqualTo(plain.get(ns, "listed-" + (LISTED - 1)).orElseThrow().json());
				assertThat(last.toTree().at("/data/unicode").asString()).isEqualTo("ünïcode ✓");
				for (int i = 0; i < LISTED; i++) {
					assertSame(listener.next("plain"), listener.next("compressed"), ResourceEvent.Type.ADDED);
				}

				writer.create(configMaps, ApiWriter.configMap(ns, "watched", "k", "first"));
				assertSame(listener.next("plain"), listener.next("compressed"), ResourceEvent.Type.ADDED);
				writer.patch(configMaps + "/watched", "{\"data\":{\"k\":\"second\"}}");
				ResourceEvent<KubernetesObject> modified = listener.next("compressed");
				assertSame(listener.next("plain"), modified, ResourceEvent.Type.MODIFIED);
				assertThat(modified.object().at("/data/k").asString()).isEqualTo("second");
				assertThat(modified.oldObject().at("/data/k").asString()).isEqualTo("first");
				assertThat(compressed.get(ns, "watched").orElseThrow())
					.isEqualTo(plain.get(ns, "watched").orElseThrow());
				writer.delete(configMaps + "/watched");
				assertSame(listener.next("plain"), listener.next("compressed"), ResourceEvent.Type.DELETED);
				assertThat(compressed.get(ns, "watched")).isEmpty();
				assertThat(sorted(compressed.list())).isEqualTo(sorted(plain.list())).hasSize(LISTED);
			});
	}

	private static void assertSame(ResourceEvent<KubernetesObject> plain, ResourceEvent<KubernetesObject> compressed,
			ResourceEvent.Type type) {
		assertThat(compressed.type()).isEqualTo(plain.type()).isEqualTo(type);
		assertThat(compressed.key()).isEqualTo(plain.key());
		assertThat(compressed.object()).isEqualTo(plain.object());
		assertThat(compressed.object().json()).isEqualTo(plain.object().json());
		assertThat(compressed.object().metadata()).isEqualTo(plain.object().metadata());
		assertThat(compressed.object().hashCode()).isEqualTo(plain.object().hashCode());
	}

	private static List<KubernetesObject> sorted(List<KubernetesObject> objects) {
		return objects.stream().sorted(Comparator.comparing(KubernetesObject::key)).toList();
	}

	@Configuration(proxyBeanMethods = false)
	static class Listener {

		private final BlockingQueue<ResourceEvent<KubernetesObject>> plain = new LinkedBlockingQueue<>();

		private final BlockingQueue<ResourceEvent<KubernetesObject>> compressed = new LinkedBlockingQueue<>();

		@EventListener
		void on(ResourceEvent<KubernetesObject> event) {
			(event.watch().equals("compressed") ? this.compressed : this.plain).add(event);
		}

		ResourceEvent<KubernetesObject> next(String watch) throws InterruptedException {
			ResourceEvent<KubernetesObject> event = (watch.equals("compressed") ? this.compressed : this.plain).poll(30,
					TimeUnit.SECONDS);
			assertThat(event).as("a ResourceEvent of watch '%s' within 30 s", watch).isNotNull();
			return event;
		}

	}

}
