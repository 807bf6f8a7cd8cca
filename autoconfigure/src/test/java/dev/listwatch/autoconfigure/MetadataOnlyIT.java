package dev.listwatch.autoconfigure;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Lister;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code metadata-only} on a real kube-apiserver, through the auto-configuration: the
 * cached Secrets hold their metadata (labels, owner references) and no {@code data},
 * their values never reach the process, and ADDED, MODIFIED and DELETED still flow; a
 * whole-object watch of ConfigMaps in the same context still holds {@code data}. With
 * list + watch and with a streaming list (the server serves both).
 */
@ExtendWith({ LocalApiServerExtension.class, OutputCaptureExtension.class })
class MetadataOnlyIT {

	private static final String VALUE = "aHVudGVyMi1tZXRhZGF0YS1vbmx5";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
				ListwatchAutoConfiguration.class))
		.withUserConfiguration(Listener.class);

	@ParameterizedTest(name = "streaming-list={0}")
	@ValueSource(booleans = { false, true })
	void metadataOnlySecretsHoldNoDataAndTheirEventsFlow(boolean streamingList, LocalApiServer server,
			CapturedOutput output) {
		String ns = server.createNamespace("metadata-only-" + streamingList);
		ApiWriter writer = server.writer();
		String secrets = "/api/v1/namespaces/" + ns + "/secrets";
		String configMaps = "/api/v1/namespaces/" + ns + "/configmaps";
		String owner = writer.create(configMaps, ApiWriter.configMap(ns, "owner", "k", "whole-" + VALUE));
		String ownerUid = owner.replaceAll("(?s).*\"uid\":\"([^\"]+)\".*", "$1");
		writer.create(secrets, secret(ns, "listed", ownerUid));
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(),
					"listwatch.defaults.streaming-list=" + streamingList, "listwatch.startup.wait-for-sync=true",
					"listwatch.startup.sync-timeout=30s", "listwatch.watches.secrets.api-version=v1",
					"listwatch.watches.secrets.kind=Secret", "listwatch.watches.secrets.namespace=" + ns,
					"listwatch.watches.secrets.metadata-only=true", "listwatch.watches.configmaps.api-version=v1",
					"listwatch.watches.configmaps.kind=ConfigMap", "listwatch.watches.configmaps.namespace=" + ns)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Listener listener = context.getBean(Listener.class);
				@SuppressWarnings("unchecked")
				Lister<KubernetesObject> secretsLister = context.getBean("secretsLister", Lister.class);
				@SuppressWarnings("unchecked")
				Lister<KubernetesObject> configMapsLister = context.getBean("configmapsLister", Lister.class);

				// the initial list (or streaming list): metadata, no data
				ResourceEvent<KubernetesObject> listed = listener.next("secrets");
				assertThat(listed.type()).isEqualTo(ResourceEvent.Type.ADDED);
				assertThat(listed.initialList()).isTrue();
				// the server serves streaming lists: asked for one, the sync was one
				// (recorded once the reflector has handed the sync on, which may be just
				// after its first event is published)
				Informer<?> secretsInformer = context.getBean("secretsInformer", Informer.class);
				await().atMost(Duration.ofSeconds(30)).until(() -> secretsInformer.status().streamingList() != null);
				assertThat(secretsInformer.status().streamingList()).isEqualTo(streamingList);
				KubernetesObject cached = secretsLister.get(ns, "listed").orElseThrow();
				assertMetadataOnly(cached, "listed", ownerUid);
				// the whole-object watch beside it does hold its data: the server had it
				// to give
				assertThat(configMapsLister.get(ns, "owner").orElseThrow().toTree().path("data").path("k").asString())
					.isEqualTo("whole-" + VALUE);

				// events after the sync
				writer.create(secrets, secret(ns, "watched", ownerUid));
				ResourceEvent<KubernetesObject> added = listener.next("secrets");
				assertThat(added.type()).isEqualTo(ResourceEvent.Type.ADDED);
				assertThat(added.initialList()).isFalse();
				assertMetadataOnly(added.object(), "watched", ownerUid);

				writer.patch(secrets + "/watched", "{\"metadata\":{\"labels\":{\"phase\":\"two\"}},\"stringData\":"
						+ "{\"pw\":\"changed-" + VALUE + "\"}}");
				ResourceEvent<KubernetesObject> modified = listener.next("secrets");
				assertThat(modified.type()).isEqualTo(ResourceEvent.Type.MODIFIED);
				assertThat(modified.object().labels()).containsEntry("phase", "two");
				assertThat(modified.oldObject().labels()).doesNotContainKey("phase");
				assertMetadataOnly(modified.object(), "watched", ownerUid);
				assertThat(secretsLister.get(ns, "watched").orElseThrow().labels()).containsEntry("phase", "two");

				// a change of data alone changes the resourceVersion: it is seen, without
				// the data
				writer.patch(secrets + "/watched", "{\"stringData\":{\"pw\":\"third-" + VALUE + "\"}}");
				ResourceEvent<KubernetesObject> dataOnly = listener.next("secrets");
				assertThat(dataOnly.type()).isEqualTo(ResourceEvent.Type.MODIFIED);
				assertThat(dataOnly.object().resourceVersion()).isNotEqualTo(modified.object().resourceVersion());
				assertMetadataOnly(dataOnly.object(), "watched", ownerUid);

				writer.delete(secrets + "/watched");
				ResourceEvent<KubernetesObject> deleted = listener.next("secrets");
				assertThat(deleted.type()).isEqualTo(ResourceEvent.Type.DELETED);
				assertThat(deleted.key()).isEqualTo(ns + "/watched");
				assertMetadataOnly(deleted.object(), "watched", ownerUid);
				assertThat(secretsLister.get(ns, "watched")).isEmpty();
				assertThat(secretsLister.list()).extracting(KubernetesObject::name).containsExactly("listed");
			});
		assertThat(output).doesNotContain(VALUE);
	}

	private static void assertMetadataOnly(KubernetesObject object, String name, String ownerUid) {
		assertThat(object.name()).isEqualTo(name);
		assertThat(object.kind()).isEqualTo("PartialObjectMetadata");
		assertThat(object.apiVersion()).isEqualTo("meta.k8s.io/v1");
		JsonNode tree = object.toTree();
		assertThat(tree.propertyNames()).containsExactlyInAnyOrder("kind", "apiVersion", "metadata");
		assertThat(tree.has("data")).isFalse();
		assertThat(tree.has("stringData")).isFalse();
		assertThat(tree.has("type")).isFalse();
		assertThat(object.json()).doesNotContain(VALUE);
		assertThat(object.labels()).containsEntry("app", "listwatch-test");
		assertThat(tree.at("/metadata/ownerReferences/0/uid").asString()).isEqualTo(ownerUid);
		assertThat(tree.at("/metadata/managedFields").isMissingNode()).isTrue();
	}

	private static String secret(String ns, String name, String ownerUid) {
		return "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\""
				+ ns + "\",\"labels\":{\"app\":\"listwatch-test\"},\"ownerReferences\":[{\"apiVersion\":\"v1\","
				+ "\"kind\":\"ConfigMap\",\"name\":\"owner\",\"uid\":\"" + ownerUid + "\"}]},\"type\":\"Opaque\","
				+ "\"data\":{\"pw\":\"" + VALUE + "\"}}";
	}

	@Configuration(proxyBeanMethods = false)
	static class Listener {

		private final BlockingQueue<ResourceEvent<KubernetesObject>> secrets = new LinkedBlockingQueue<>();

		@EventListener
		void on(ResourceEvent<KubernetesObject> event) {
			if (event.watch().equals("secrets")) {
				this.secrets.add(event);
			}
		}

		ResourceEvent<KubernetesObject> next(String watch) throws InterruptedException {
			assertThat(watch).isEqualTo("secrets");
			ResourceEvent<KubernetesObject> event = this.secrets.poll(30, TimeUnit.SECONDS);
			assertThat(event).as("a ResourceEvent of watch 'secrets' within 30 s").isNotNull();
			return event;
		}

	}

}
