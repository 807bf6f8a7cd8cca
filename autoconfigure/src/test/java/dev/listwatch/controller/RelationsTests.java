package dev.listwatch.controller;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectMeta;
import dev.listwatch.event.ResourceEvent;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Owner references mapped to owners' keys, and the generation-changed filter, on generic
 * and typed objects.
 */
class RelationsTests {

	@Test
	void anOwnedObjectMapsToItsOwnersOfTheKindInItsNamespace() {
		KubernetesObject pod = object("web-1", 1, """
				"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"u1"},
				{"apiVersion":"v1","kind":"ConfigMap","name":"other","uid":"u2"}]""");
		assertThat(Relations.<KubernetesObject>owners("ReplicaSet", false).apply(pod)).containsExactly("shop/web");
		assertThat(Relations.<KubernetesObject>owners("ReplicaSet", true).apply(pod)).containsExactly("web");
		assertThat(Relations.<KubernetesObject>owners("Deployment", false).apply(pod)).isEmpty();
		assertThat(Relations.<KubernetesObject>owners("ReplicaSet", false).apply(object("lonely", 1, null))).isEmpty();
	}

	@Test
	void aTypedObjectMapsToItsOwnersToo() {
		Owned owned = new Owned(new Owned.Meta("shop", "web-1",
				List.of(Map.of("kind", "ReplicaSet", "name", "web"), Map.of("kind", "ReplicaSet", "name", "web-old"))));
		assertThat(Relations.<Owned>owners("ReplicaSet", false).apply(owned)).containsExactly("shop/web",
				"shop/web-old");
	}

	@Test
	void aModificationPassesOnlyWhenTheGenerationChanged() {
		KubernetesObject first = object("web", 1, null);
		KubernetesObject statusOnly = object("web", 1, null);
		KubernetesObject specChanged = object("web", 2, null);
		var filter = Relations.<KubernetesObject>generationChanged();
		assertThat(filter.test(event(ResourceEvent.Type.MODIFIED, statusOnly, first))).isFalse();
		assertThat(filter.test(event(ResourceEvent.Type.MODIFIED, specChanged, first))).isTrue();
		assertThat(filter.test(event(ResourceEvent.Type.ADDED, first, null))).isTrue();
		assertThat(filter.test(event(ResourceEvent.Type.DELETED, first, null))).isTrue();
		// no generation (a ConfigMap): every change passes
		assertThat(filter.test(event(ResourceEvent.Type.MODIFIED, object("cm", -1, null), object("cm", -1, null))))
			.isTrue();
	}

	private static ResourceEvent<KubernetesObject> event(ResourceEvent.Type type, KubernetesObject object,
			KubernetesObject old) {
		return new ResourceEvent<>(new Object(), "test", type, object, old, object.metadata(), false, false,
				KubernetesObject.class);
	}

	private static KubernetesObject object(String name, long generation, String owners) {
		String json = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"namespace\":\"shop\",\"name\":\"" + name
				+ "\",\"resourceVersion\":\"1\"" + ((generation >= 0) ? ",\"generation\":" + generation : "")
				+ ((owners != null) ? "," + owners : "") + "}}";
		return KubernetesObject.of(new ObjectMeta("shop", name, "uid-" + name, "1", Map.of()), "v1", "Pod",
				json.getBytes(StandardCharsets.UTF_8));
	}

	record Owned(Meta metadata) {

		record Meta(String namespace, String name, List<Map<String, String>> ownerReferences) {

		}

	}

}
