package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Resource;
import dev.listwatch.client.ResourceWriter.ApplyOptions;
import dev.listwatch.client.ResourceWriter.DeleteOptions;
import dev.listwatch.client.ResourceWriter.Patch;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.ConnectionOptions;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The writer against a real kube-apiserver: create, read, update and delete of ConfigMaps
 * as {@link KubernetesObject}s and as a record, optimistic concurrency (a stale
 * resourceVersion is a {@code CONFLICT}), patches of each kind, server-side apply with
 * field managers and force, the status subresource of a Deployment, and a 422 whose
 * message names the field but not the value.
 */
@ExtendWith(LocalApiServerExtension.class)
class ResourceWriterIT {

	private static final String NAMESPACE = "lw-writes";

	private static final Resource CONFIG_MAPS = new Resource("", "v1", "configmaps", "ConfigMap", true, NAMESPACE);

	@TempDir
	static Path dir;

	private static ApiServerClient client;

	@BeforeAll
	static void start(LocalApiServer server) {
		server.createNamespace(NAMESPACE);
		client = ApiServerClient.create(Cluster.load(ConnectionOptions.builder()
			.kubeconfig(server.kubeconfig().toString())
			.environment(Map.of())
			.homeDirectory(dir)
			.serviceAccountDirectory(dir)
			.build()), RestClient.builder(), JsonMapper.shared(), Clock.systemUTC());
	}

	@AfterAll
	static void stop() {
		client.close();
	}

	@Test
	void createsReadsUpdatesAndDeletesAKubernetesObject() {
		ResourceWriter<KubernetesObject> writer = client.writer(CONFIG_MAPS, KubernetesObject.class)
			.withFieldManager("listwatch-it");
		KubernetesObject crud = object("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
				+ "\"metadata\":{\"name\":\"crud\"},\"data\":{\"color\":\"red\"}}");
		KubernetesObject created = writer.create(crud);
		assertThat(created.key()).isEqualTo(NAMESPACE + "/crud");
		assertThat(created.uid()).isNotBlank();
		assertThat(created.json()).doesNotContain("managedFields");
		assertThat(writer.get(null, "crud")).hasValueSatisfying((cm) -> {
			assertThat(cm.resourceVersion()).isEqualTo(created.resourceVersion());
			assertThat(cm.at("/data/color").asString()).isEqualTo("red");
		});
		KubernetesObject updated = writer.update(with(created, "blue"));
		assertThat(updated.at("/data/color").asString()).isEqualTo("blue");
		assertThat(updated.resourceVersion()).isNotEqualTo(created.resourceVersion());
		// the object as first read is stale now
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> writer.update(with(created, "green")))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CONFLICT))
			.withMessageStartingWith("update configmaps.v1 " + NAMESPACE + "/crud failed: 409 Conflict: ")
			.withMessageContaining("the object has been modified")
			.withMessageNotContaining("green");
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> writer.create(crud))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CONFLICT))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo("AlreadyExists"));
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(
				() -> writer.delete(null, "crud", DeleteOptions.NONE.withResourceVersion(created.resourceVersion())))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CONFLICT));
		assertThat(writer.delete(null, "crud",
				DeleteOptions.NONE.withUid(created.uid())
					.withResourceVersion(updated.resourceVersion())
					.withPropagation(DeleteOptions.Propagation.BACKGROUND)))
			.isTrue();
		assertThat(writer.get(null, "crud")).isEmpty();
		assertThat(writer.delete(null, "crud")).isFalse();
	}

	@Test
	void createsReadsUpdatesAndDeletesARecord() {
		ResourceWriter<ConfigMap> writer = client.writer(CONFIG_MAPS, ConfigMap.class);
		// no apiVersion or kind in the record: the writer adds the resource's
		ConfigMap created = writer
			.create(new ConfigMap(new ObjectMeta(null, "typed", null, "", Map.of("app", "it")), Map.of("k", "1")));
		assertThat(created.metadata().namespace()).isEqualTo(NAMESPACE);
		assertThat(created.metadata().labels()).containsEntry("app", "it");
		assertThat(created.data()).containsEntry("k", "1");
		ConfigMap updated = writer.update(new ConfigMap(created.metadata(), Map.of("k", "2")));
		assertThat(updated.data()).containsExactly(Map.entry("k", "2"));
		assertThat(writer.get(NAMESPACE, "typed")).hasValue(updated);
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> writer.update(new ConfigMap(created.metadata(), Map.of("k", "3"))))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CONFLICT));
		assertThat(writer.delete(NAMESPACE, "typed")).isTrue();
		assertThat(writer.get(NAMESPACE, "typed")).isEmpty();
	}

	@Test
	void aWriterOfADeclaredKindFindsTheResourceThroughDiscovery() {
		ResourceWriter<KubernetesObject> writer = client
			.writer(new ApiServerClient.Target("v1", "ConfigMap", null, NAMESPACE), KubernetesObject.class);
		assertThat(writer.get(null, "never-made")).isEmpty();
		assertThat(writer.resource()).isEqualTo(CONFIG_MAPS);
		ResourceWriter<KubernetesObject> namespaces = client
			.writer(new ApiServerClient.Target("v1", "Namespace", null, null), KubernetesObject.class);
		assertThat(namespaces.get("ignored for a cluster-scoped resource", NAMESPACE))
			.hasValueSatisfying((ns) -> assertThat(ns.key()).isEqualTo(NAMESPACE));
	}

	@Test
	void mergeJsonAndStrategicMergePatches() {
		ResourceWriter<KubernetesObject> writer = client.writer(CONFIG_MAPS, KubernetesObject.class);
		writer.create(object("{\"metadata\":{\"name\":\"patched\"},\"data\":{\"a\":\"1\",\"b\":\"2\"}}"));
		KubernetesObject merged = writer.patch(null, "patched", Patch.merge("{\"data\":{\"a\":\"10\",\"b\":null}}"));
		assertThat(merged.toTree().path("data").propertyNames()).containsExactly("a");
		assertThat(merged.at("/data/a").asString()).isEqualTo("10");
		KubernetesObject patched = writer.patch(null, "patched",
				Patch.json("[{\"op\":\"test\",\"path\":\"/data/a\",\"value\":\"10\"},"
						+ "{\"op\":\"add\",\"path\":\"/data/c\",\"value\":\"3\"}]"));
		assertThat(patched.at("/data/c").asString()).isEqualTo("3");
		KubernetesObject strategic = writer.patch(null, "patched",
				Patch.strategicMerge("{\"metadata\":{\"labels\":{\"tier\":\"web\"}}}"));
		assertThat(strategic.labels()).containsEntry("tier", "web");
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> writer.patch(null, "missing", Patch.merge("{\"data\":{\"a\":\"1\"}}")))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.NOT_FOUND));
	}

	@Test
	void serverSideApplyConflictsBetweenManagersUnlessForced() {
		ResourceWriter<KubernetesObject> writer = client.writer(CONFIG_MAPS, KubernetesObject.class)
			.withFieldManager("manager-a");
		KubernetesObject applied = writer.apply(applied("red"), ApplyOptions.DEFAULTS);
		assertThat(applied.at("/data/color").asString()).isEqualTo("red");
		assertThat(writer.get(null, "applied")).isPresent();
		ApplyOptions managerB = ApplyOptions.DEFAULTS.withFieldManager("manager-b");
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> writer.apply(applied("blue"), managerB))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CONFLICT))
			.withMessageStartingWith("apply configmaps.v1 " + NAMESPACE + "/applied failed: 409 Conflict: ")
			.withMessageContaining("manager-a")
			.withMessageContaining(".data.color");
		KubernetesObject forced = writer.apply(applied("blue"), managerB.withForce(true));
		assertThat(forced.at("/data/color").asString()).isEqualTo("blue");
		// manager-a lost the field: applying its own value again conflicts now
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> writer.apply(applied("red"), ApplyOptions.DEFAULTS))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CONFLICT));
	}

	@Test
	void theStatusSubresourceOfADeployment() {
		ResourceWriter<KubernetesObject> writer = client
			.writer(new Resource("apps", "v1", "deployments", "Deployment", true, NAMESPACE), KubernetesObject.class)
			.withFieldManager("listwatch-it");
		KubernetesObject created = writer.create(object("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
				+ "\"metadata\":{\"name\":\"web\"},\"spec\":{\"replicas\":1,\"selector\":{\"matchLabels\":"
				+ "{\"app\":\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":"
				+ "{\"containers\":[{\"name\":\"web\",\"image\":\"nginx\"}]}}}}"));
		ObjectNode withStatus = (ObjectNode) created.toTree();
		withStatus.putObject("status").put("replicas", 1).put("updatedReplicas", 1).put("observedGeneration", 1);
		// an update of the object ignores its status
		KubernetesObject updated = writer.update(object(withStatus.toString()));
		assertThat(updated.at("/status/replicas").isMissingNode()).isTrue();
		withStatus.withObjectProperty("metadata").put("resourceVersion", updated.resourceVersion());
		KubernetesObject status = writer.updateStatus(object(withStatus.toString()));
		assertThat(status.at("/status/replicas").asInt()).isEqualTo(1);
		assertThat(status.at("/status/observedGeneration").asInt()).isEqualTo(1);
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> writer.updateStatus(object(withStatus.toString())))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CONFLICT))
			.withMessageStartingWith(
					"update status of deployments.apps/v1 " + NAMESPACE + "/web failed: 409 Conflict: ");
		KubernetesObject patched = writer.patchStatus(null, "web",
				Patch.merge("{\"status\":{\"availableReplicas\":1,\"readyReplicas\":1}}"));
		assertThat(patched.at("/status/readyReplicas").asInt()).isEqualTo(1);
		KubernetesObject applied = writer.applyStatus(
				object("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
						+ "\"metadata\":{\"name\":\"web\",\"namespace\":\"" + NAMESPACE + "\"},"
						+ "\"status\":{\"collisionCount\":2}}"),
				ApplyOptions.DEFAULTS.withFieldManager("status-applier"));
		assertThat(applied.at("/status/collisionCount").asInt()).isEqualTo(2);
		assertThat(applied.at("/status/replicas").asInt()).isEqualTo(1);
		assertThat(applied.at("/spec/replicas").asInt()).isEqualTo(1);
	}

	@Test
	void anInvalidObjectNamesTheFieldButNotTheValue() {
		String value = "not a valid label value!!";
		ResourceWriter<KubernetesObject> writer = client.writer(CONFIG_MAPS, KubernetesObject.class);
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> writer.create(
					object("{\"metadata\":{\"name\":\"invalid\",\"labels\":{\"app\":\"" + value + "\"}},\"data\":{}}")))
			.satisfies((ex) -> {
				assertThat(ex.kind()).isEqualTo(Kind.INVALID);
				assertThat(ex.code()).isEqualTo(422);
				assertThat(ex.status().message()).doesNotContain(value);
				assertThat(ex.toString()).doesNotContain(value);
			})
			.withMessageStartingWith("create configmaps.v1 " + NAMESPACE + "/invalid failed: 422 Invalid: ")
			.withMessageContaining("metadata.labels")
			.withMessageNotContaining(value);
		assertThat(writer.get(null, "invalid")).isEmpty();
	}

	private static KubernetesObject applied(String color) {
		return object("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"applied\","
				+ "\"namespace\":\"" + NAMESPACE + "\"},\"data\":{\"color\":\"" + color + "\"}}");
	}

	/** The object with {@code data.color} changed, its resourceVersion kept. */
	private static KubernetesObject with(KubernetesObject object, String color) {
		ObjectNode tree = (ObjectNode) object.toTree();
		tree.withObjectProperty("data").put("color", color);
		return object(tree.toString());
	}

	private static KubernetesObject object(String json) {
		return new ObjectDecoder<>(KubernetesObject.class, JsonMapper.shared(), false)
			.decodeObject(json.getBytes(StandardCharsets.UTF_8));
	}

	record ConfigMap(ObjectMeta metadata, Map<String, String> data) {
	}

}
