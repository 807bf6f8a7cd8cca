package dev.listwatch.controller;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectMeta;
import dev.listwatch.event.ResourceEvent;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What ties objects to the keys a controller reconciles, and which changes are worth a
 * reconcile: the pieces of {@link Controller#watch} and {@link Controller#filter} that
 * most controllers need.
 * <ul>
 * <li>{@link #owners(String, boolean)}: a change of an object owned by another (its
 * {@code metadata.ownerReferences}, as a Pod of a ReplicaSet) queues the owner's
 * key;</li>
 * <li>{@link #generationChanged()}: a modification is reconciled only when the object's
 * {@code metadata.generation} changed, so a status update alone, which the controller
 * itself may have written, does not reconcile again.</li>
 * </ul>
 * Both read an object's metadata from a {@link KubernetesObject}'s JSON, or from a typed
 * object turned into a JSON tree (which costs a conversion per change).
 */
public final class Relations {

	private Relations() {
	}

	/**
	 * The keys of an object's owners of one kind, from its
	 * {@code metadata.ownerReferences}: {@code namespace/name} of the owner in the owned
	 * object's namespace, or {@code name} for a cluster-scoped owner.
	 * @param <S> the Java type of the owned objects
	 * @param ownerKind the owner's kind, such as {@code ReplicaSet}
	 * @param clusterScopedOwner whether owners of that kind are cluster-scoped
	 * @return the mapping, for {@link Controller#watch}
	 */
	public static <S> Function<S, Collection<String>> owners(String ownerKind, boolean clusterScopedOwner) {
		Objects.requireNonNull(ownerKind, "ownerKind");
		return (object) -> {
			JsonNode tree = tree(object);
			JsonNode references = tree.path("metadata").path("ownerReferences");
			if (!references.isArray() || references.isEmpty()) {
				return List.of();
			}
			String namespace = tree.path("metadata").path("namespace").asString("");
			List<String> keys = new ArrayList<>(1);
			for (JsonNode reference : references) {
				String name = reference.path("name").asString("");
				if (ownerKind.equals(reference.path("kind").asString("")) && !name.isEmpty()) {
					keys.add((clusterScopedOwner || namespace.isEmpty()) ? name : ObjectMeta.key(namespace, name));
				}
			}
			return keys;
		};
	}

	/**
	 * Passes every change but a modification that left {@code metadata.generation} as it
	 * was (the API server raises the generation on a change of the spec, not of the
	 * status nor the metadata); objects without a generation always pass.
	 * @param <T> the Java type of the watch's objects
	 * @return the predicate, for {@link Controller#filter}
	 */
	public static <T> Predicate<ResourceEvent<T>> generationChanged() {
		return (event) -> {
			T old = event.oldObject();
			if (event.type() != ResourceEvent.Type.MODIFIED || old == null) {
				return true;
			}
			Long before = generation(old);
			Long now = generation(event.object());
			return before == null || now == null || !before.equals(now);
		};
	}

	private static @Nullable Long generation(Object object) {
		JsonNode generation = (object instanceof KubernetesObject kubernetes) ? kubernetes.at("/metadata/generation")
				: tree(object).path("metadata").path("generation");
		return generation.isNumber() ? generation.asLong() : null;
	}

	private static JsonNode tree(Object object) {
		return (object instanceof KubernetesObject kubernetes) ? kubernetes.toTree()
				: JsonMapper.shared().valueToTree(object);
	}

}
