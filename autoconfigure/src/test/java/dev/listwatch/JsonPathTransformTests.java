package dev.listwatch;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link ObjectTransform#keeping} and {@link ObjectTransform#dropping}: the JSON paths of
 * a {@link KubernetesObject} kept or dropped, its identity always kept.
 */
class JsonPathTransformTests {

	private static final ObjectMeta META = new ObjectMeta("ns", "web-1", "uid-1", "42", Map.of("app", "web"));

	private static final KubernetesObject POD = KubernetesObject.of(META, "v1", "Pod", """
			{"apiVersion":"v1","kind":"Pod",
			 "metadata":{"name":"web-1","namespace":"ns","uid":"uid-1","resourceVersion":"42","labels":{"app":"web"}},
			 "spec":{"nodeName":"n1","template":{"a":1},"containers":[{"name":"c","image":"i"}]},
			 "status":{"phase":"Running"}}""".getBytes(StandardCharsets.UTF_8));

	@Test
	void droppingRemovesThePathsAndKeepsTheRest() {
		KubernetesObject dropped = ObjectTransform.dropping(List.of("status", "spec.containers", "spec.absent.x"))
			.transform(POD);
		assertThat(dropped.at("/status").isMissingNode()).isTrue();
		assertThat(dropped.at("/spec/containers").isMissingNode()).isTrue();
		assertThat(dropped.at("/spec/nodeName").asString()).isEqualTo("n1");
		assertThat(dropped.at("/metadata/labels/app").asString()).isEqualTo("web");
		assertThat(dropped.metadata()).isEqualTo(META);
		assertThat(dropped.apiVersion()).isEqualTo("v1");
		assertThat(dropped.kind()).isEqualTo("Pod");
	}

	@Test
	void keepingKeepsOnlyThePathsAndTheIdentity() {
		KubernetesObject kept = ObjectTransform.keeping(List.of("spec.template", "status.absent")).transform(POD);
		assertThat(kept.toTree().propertyNames()).containsExactly("apiVersion", "kind", "metadata", "spec");
		assertThat(kept.at("/spec").propertyNames()).containsExactly("template");
		assertThat(kept.at("/spec/template/a").asInt()).isEqualTo(1);
		assertThat(kept.at("/metadata/resourceVersion").asString()).isEqualTo("42");
		assertThat(kept.metadata()).isEqualTo(META);
	}

	@Test
	void metadataCannotBeDroppedNorAnEmptyPathGiven() {
		assertThatIllegalArgumentException().isThrownBy(() -> ObjectTransform.dropping(List.of("metadata.labels")))
			.withMessageContaining("always kept");
		assertThatIllegalArgumentException().isThrownBy(() -> ObjectTransform.keeping(List.of("spec..template")))
			.withMessageContaining("spec..template");
	}

	@Test
	void theTransformedObjectIsSmaller() {
		assertThat(ObjectTransform.keeping(List.of("spec.template")).transform(POD).jsonSize())
			.isLessThan(POD.jsonSize());
	}

}
