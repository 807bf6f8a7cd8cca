package dev.listwatch;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * An object the API server has, but that this watch cannot hold: it does not bind to the
 * watch's Java type (a value the type cannot take), or it is larger than
 * {@code max-event-size}. Such an object is never reported deleted while the server has
 * it: the cache keeps its last state that could be held (if any), no event is published
 * for the change it could not take, and the watch reports it (health, the
 * {@code listwatch} endpoint, the {@code listwatch.unbindable} gauge) until a later state
 * binds again or the object is deleted.
 * <p>
 * Nothing here holds a value of the object: {@link #path()} says where binding failed,
 * never what was there, so that a watch of Secrets cannot leak them through logs or
 * health.
 *
 * @param meta the object's metadata (its key and resourceVersion)
 * @param path the JSON pointer of the value that could not be bound, for example
 * {@code /spec/mode}, or {@code ""} when the object as a whole was refused (too large)
 * @param targetType the Java type it was bound to, for example
 * {@code com.example.MyConfigMap}
 * @param reason why, without the value, for example {@code not a valid value of Mode} or
 * {@code larger than max-event-size (1048576 bytes)}
 */
public record UnbindableObject(ObjectMeta meta, String path, String targetType, String reason) {

	/**
	 * Makes a report; {@code null} texts are taken as empty.
	 * @param meta the object's metadata
	 * @param path the JSON pointer of the value that could not be bound, {@code ""} or
	 * {@code null} for the object as a whole
	 * @param targetType the Java type it was bound to, or {@code null}
	 * @param reason why, without the value, or {@code null}
	 * @throws NullPointerException when {@code meta} is {@code null}
	 */
	public UnbindableObject(ObjectMeta meta, @Nullable String path, @Nullable String targetType,
			@Nullable String reason) {
		this.meta = Objects.requireNonNull(meta, "meta must not be null");
		this.path = (path != null) ? path : "";
		this.targetType = (targetType != null) ? targetType : "";
		this.reason = (reason != null) ? reason : "";
	}

	/**
	 * The object's cache key.
	 * @return {@code namespace/name}, or {@code name} for a cluster-scoped object
	 */
	public String key() {
		return Objects.requireNonNull(this.meta.key(), "only a BOOKMARK's metadata has no name");
	}

	@Override
	public String toString() {
		return key() + " (resourceVersion " + this.meta.resourceVersion() + ") does not bind to " + this.targetType
				+ (this.path.isEmpty() ? "" : " at " + this.path) + ": " + this.reason;
	}

}
