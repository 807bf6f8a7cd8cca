package dev.listwatch.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Lister;
import dev.listwatch.WatchTransform;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.client.ResourceWriter;
import dev.listwatch.client.ResourceWriter.Patch;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Transforms on a real kube-apiserver, through the auto-configuration: a ConfigMap watch
 * with {@code drop: [data]} caches and publishes its objects without {@code data}; a
 * {@link WatchTransform} bean on another watch of the same ConfigMaps shapes what its
 * lister holds and its events carry, old objects included.
 */
@ExtendWith(LocalApiServerExtension.class)
class TransformIT {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
				ListwatchAutoConfiguration.class))
		.withUserConfiguration(Beans.class);

	@Test
	void droppedPathsAndABeansTransformShapeTheCacheAndTheEvents(LocalApiServer server) {
		String ns = server.createNamespace("transform");
		ApiWriter writer = server.writer();
		String configMaps = "/api/v1/namespaces/" + ns + "/configmaps";
		writer.create(configMaps, ApiWriter.configMap(ns, "listed", "k", "listed-value"));
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(), "listwatch.startup.wait-for-sync=true",
					"listwatch.startup.sync-timeout=30s", "listwatch.watches.dropped.api-version=v1",
					"listwatch.watches.dropped.kind=ConfigMap", "listwatch.watches.dropped.namespace=" + ns,
					"listwatch.watches.dropped.drop[0]=data", "listwatch.watches.marked.api-version=v1",
					"listwatch.watches.marked.kind=ConfigMap", "listwatch.watches.marked.namespace=" + ns)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Beans beans = context.getBean(Beans.class);
				@SuppressWarnings("unchecked")
				Lister<KubernetesObject> dropped = context.getBean("droppedLister", Lister.class);
				@SuppressWarnings("unchecked")
				Lister<KubernetesObject> marked = context.getBean("markedLister", Lister.class);

				// the initial list
				KubernetesObject listed = dropped.get(ns, "listed").orElseThrow();
				assertThat(listed.toTree().has("data")).isFalse();
				assertThat(listed.resourceVersion()).isNotEmpty();
				assertThat(listed.at("/metadata/name").asString()).isEqualTo("listed");
				assertMarked(beans.next("marked").object(), "listed-value");
				assertMarked(marked.get(ns, "listed").orElseThrow(), "listed-value");
				assertThat(beans.next("dropped").object().toTree().has("data")).isFalse();

				// events after the sync
				writer.create(configMaps, ApiWriter.configMap(ns, "watched", "k", "first"));
				ResourceEvent<KubernetesObject> added = beans.next("marked");
				assertThat(added.type()).isEqualTo(ResourceEvent.Type.ADDED);
				assertMarked(added.object(), "first");
				ResourceEvent<KubernetesObject> droppedAdded = beans.next("dropped");
				assertThat(droppedAdded.object().name()).isEqualTo("watched");
				assertThat(droppedAdded.object().toTree().has("data")).isFalse();

				writer.patch(configMaps + "/watched", "{\"data\":{\"k\":\"second\"}}");
				ResourceEvent<KubernetesObject> modified = beans.next("marked");
				assertThat(modified.type()).isEqualTo(ResourceEvent.Type.MODIFIED);
				assertMarked(modified.object(), "second");
				assertMarked(modified.oldObject(), "first");
				assertMarked(marked.get(ns, "watched").orElseThrow(), "second");
				ResourceEvent<KubernetesObject> droppedModified = beans.next("dropped");
				assertThat(droppedModified.object().toTree().has("data")).isFalse();
				assertThat(droppedModified.oldObject().toTree().has("data")).isFalse();
				assertThat(dropped.get(ns, "watched").orElseThrow().toTree().has("data")).isFalse();
			});
	}

	@Test
	void aTransformedObjectIsNeverWrittenWholeWhilePatchesAndObjectsReadFromTheServerAre(LocalApiServer server) {
		String ns = server.createNamespace("transform-writes");
		server.writer()
			.create("/api/v1/namespaces/" + ns + "/configmaps", ApiWriter.configMap(ns, "app", "password", "s3cr3t"));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class))
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(), "listwatch.startup.wait-for-sync=true",
					"listwatch.startup.sync-timeout=30s", "listwatch.watches.dropped.api-version=v1",
					"listwatch.watches.dropped.kind=ConfigMap", "listwatch.watches.dropped.namespace=" + ns,
					"listwatch.watches.dropped.drop[0]=data")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				@SuppressWarnings("unchecked")
				Lister<KubernetesObject> dropped = context.getBean("droppedLister", Lister.class);
				ResourceWriter<KubernetesObject> configMaps = context.getBean(ApiServerClient.class)
					.writer(new ApiServerClient.Target("v1", "ConfigMap", null, ns), KubernetesObject.class);
				KubernetesObject cached = dropped.get(ns, "app").orElseThrow();
				// the cached object, and one made from it with a label more
				ObjectNode tree = (ObjectNode) cached.toTree();
				tree.withObject("/metadata").withObject("/labels").put("changed", "true");
				KubernetesObject changed = KubernetesObject.of(cached.metadata(), cached.apiVersion(), cached.kind(),
						JsonMapper.shared().writeValueAsBytes(tree));
				for (KubernetesObject transformed : List.of(cached, changed)) {
					assertThatIllegalArgumentException().isThrownBy(() -> configMaps.update(transformed))
						.withMessageContaining("watch 'dropped'")
						.withMessageContaining("drop [data]")
						.withMessageContaining("patch");
					assertThatIllegalArgumentException().isThrownBy(() -> configMaps.updateStatus(transformed))
						.withMessageContaining("watch 'dropped'");
				}
				assertThat(configMaps.get(ns, "app").orElseThrow().at("/data/password").asString()).isEqualTo("s3cr3t");
				// a patch changes only what it sends
				configMaps.patch(ns, "app", Patch.merge("{\"metadata\":{\"labels\":{\"patched\":\"true\"}}}"));
				// an object read from the server is whole
				KubernetesObject read = configMaps.get(ns, "app").orElseThrow();
				ObjectNode whole = (ObjectNode) read.toTree();
				whole.withObject("/metadata").withObject("/labels").put("updated", "true");
				KubernetesObject updated = configMaps.update(KubernetesObject.of(read.metadata(), read.apiVersion(),
						read.kind(), JsonMapper.shared().writeValueAsBytes(whole)));
				assertThat(updated.labels()).containsEntry("patched", "true").containsEntry("updated", "true");
				assertThat(updated.at("/data/password").asString()).isEqualTo("s3cr3t");
			});
	}

	private static void assertMarked(KubernetesObject object, String value) {
		assertThat(object.at("/transformedValue").asString()).isEqualTo(value);
		assertThat(object.toTree().has("data")).isFalse();
	}

	@Configuration(proxyBeanMethods = false)
	static class Beans {

		private final Map<String, BlockingQueue<ResourceEvent<KubernetesObject>>> events = new ConcurrentHashMap<>();

		/** Moves data.k to a top-level field and drops data. */
		@Bean
		WatchTransform<KubernetesObject> markedTransform() {
			return WatchTransform.of("marked", (object) -> {
				ObjectNode tree = (ObjectNode) object.toTree();
				tree.put("transformedValue", tree.path("data").path("k").asString());
				tree.remove("data");
				return KubernetesObject.of(object.metadata(), object.apiVersion(), object.kind(),
						JsonMapper.shared().writeValueAsBytes(tree));
			});
		}

		@EventListener
		void on(ResourceEvent<KubernetesObject> event) {
			this.events.computeIfAbsent(event.watch(), (watch) -> new LinkedBlockingQueue<>()).add(event);
		}

		ResourceEvent<KubernetesObject> next(String watch) throws InterruptedException {
			ResourceEvent<KubernetesObject> event = this.events
				.computeIfAbsent(watch, (name) -> new LinkedBlockingQueue<>())
				.poll(30, TimeUnit.SECONDS);
			assertThat(event).as("a ResourceEvent of watch '" + watch + "' within 30 s").isNotNull();
			return event;
		}

	}

}
