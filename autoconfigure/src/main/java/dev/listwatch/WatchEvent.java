package dev.listwatch;

import org.jspecify.annotations.Nullable;

/**
 * One event of a watch stream.
 * <p>
 * For {@link Type#ADDED}, {@link Type#MODIFIED} and {@link Type#DELETED},
 * {@link #object()} is the object (for DELETED, its last state) and {@link #meta()} its
 * metadata. For {@link Type#BOOKMARK}, only {@code meta().resourceVersion()} (and
 * {@link #initialEventsEnd()}) mean anything and {@code object()} is {@code null}. For
 * {@link Type#ERROR}, {@link #status()} is the API {@link Status} and the other fields
 * are {@code null}. An ADDED, MODIFIED or DELETED event whose object could not be bound
 * to the Java type (or was larger than the size limit) has a {@code null} object, its
 * {@link #meta()}, and {@link #unbindable()} saying where and why, never with the value.
 *
 * @param <T> the Java type of the objects
 * @param type the event type
 * @param object the object, or {@code null} for BOOKMARK and ERROR and for an event whose
 * object could not be held
 * @param meta the object's metadata (for a BOOKMARK, one with a resourceVersion only), or
 * {@code null} for ERROR
 * @param status the status of an ERROR event, else {@code null}
 * @param initialEventsEnd whether this BOOKMARK carries the annotation
 * {@code k8s.io/initial-events-end: "true"} that ends the initial events of a streaming
 * list
 * @param unbindable for an ADDED, MODIFIED or DELETED event whose object could not be
 * held, what could not be bound (then {@code object} is {@code null}); else {@code null}
 */
public record WatchEvent<T>(Type type, @Nullable T object, @Nullable ObjectMeta meta, @Nullable Status status,
		boolean initialEventsEnd, @Nullable UnbindableObject unbindable) {

	/**
	 * An event whose object could be held (or a BOOKMARK or ERROR).
	 * @param type the event type
	 * @param object the object, or {@code null} for BOOKMARK and ERROR
	 * @param meta the object's metadata, or {@code null} for ERROR
	 * @param status the status of an ERROR event, else {@code null}
	 * @param initialEventsEnd whether this BOOKMARK ends the initial events of a
	 * streaming list
	 */
	public WatchEvent(Type type, @Nullable T object, @Nullable ObjectMeta meta, @Nullable Status status,
			boolean initialEventsEnd) {
		this(type, object, meta, status, initialEventsEnd, null);
	}

	/**
	 * An ADDED, MODIFIED or DELETED event whose object could not be held.
	 * @param <T> the Java type of the objects
	 * @param type the event type
	 * @param unbindable what could not be bound, and where
	 * @return the event, with a {@code null} object
	 */
	public static <T> WatchEvent<T> unbindable(Type type, UnbindableObject unbindable) {
		return new WatchEvent<>(type, null, unbindable.meta(), null, false, unbindable);
	}

	/**
	 * The event types of a watch stream, as the API names them ({@code watch.EventType}).
	 */
	public enum Type {

		/**
		 * An object appeared: created, or (in a streaming list) part of the current
		 * state.
		 */
		ADDED,
		/** An object changed. */
		MODIFIED,
		/** An object was deleted; the event carries its last state. */
		DELETED,
		/**
		 * No change: the stream has reached a resourceVersion (and may end initial
		 * events).
		 */
		BOOKMARK,
		/** The server reports a failure on the stream, as a {@link Status}. */
		ERROR

	}

	/**
	 * The resourceVersion this event brings the watch to.
	 * @return the resourceVersion, or {@code null} for an ERROR event
	 */
	public @Nullable String resourceVersion() {
		return (this.meta != null) ? this.meta.resourceVersion() : null;
	}

	@Override
	public String toString() {
		return "WatchEvent[" + this.type
				+ ((this.meta != null) ? " " + this.meta.key() + " rv=" + this.meta.resourceVersion() : "")
				+ ((this.status != null) ? " " + this.status : "") + ((this.unbindable != null) ? " unbindable" : "")
				+ "]";
	}

}
