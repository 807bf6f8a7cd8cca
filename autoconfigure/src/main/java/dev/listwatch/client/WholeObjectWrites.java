package dev.listwatch.client;

import java.util.function.Function;

import dev.listwatch.Resource;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * What a {@link ResourceWriter} asks before it writes a whole object ({@code update},
 * {@code updateStatus}): whether the object must not be written whole, as one read from a
 * watch whose objects are transformed ({@code keep}, {@code drop}, a
 * {@link dev.listwatch.WatchTransform}), which would remove on the server what the
 * transform left out. Set on the client with
 * {@link ApiServerClient#setWholeObjectWrites}; the auto-configuration sets one that
 * knows the declared watches.
 */
@FunctionalInterface
public interface WholeObjectWrites {

	/** Refuses nothing. */
	WholeObjectWrites ALLOWED = (write) -> null;

	/**
	 * Why a whole object must not be written.
	 * @param write the write about to be sent
	 * @return the reason (naming what the object comes from and the fix), or {@code null}
	 * to write it
	 */
	@Nullable String refusal(Write write);

	/**
	 * A whole-object write about to be sent.
	 *
	 * @param resource the resource written
	 * @param key the object's key: {@code namespace/name}, or {@code name} for a
	 * cluster-scoped object
	 * @param resourceVersion the object's {@code metadata.resourceVersion}, or
	 * {@code null}
	 * @param object the object as given to the writer
	 * @param copies reads a fresh copy of the object as a given type ({@code null} when
	 * it cannot be read as one)
	 * @param trees the JSON tree of an object, as the writer's mapper writes it
	 */
	record Write(Resource resource, String key, @Nullable String resourceVersion, Object object,
			Function<Class<?>, @Nullable Object> copies, Function<Object, JsonNode> trees) {

		/**
		 * A fresh copy of the object, as a given type.
		 * @param type the type
		 * @return the copy, or {@code null} when the object cannot be read as one
		 */
		public @Nullable Object copyAs(Class<?> type) {
			return this.copies.apply(type);
		}

		/**
		 * The JSON tree of an object.
		 * @param value the object
		 * @return its tree
		 */
		public JsonNode tree(Object value) {
			return this.trees.apply(value);
		}

	}

}
