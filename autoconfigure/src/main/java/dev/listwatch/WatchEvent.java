package dev.listwatch;

/**
 * One event of a watch stream.
 * <p>
 * For {@link Type#ADDED}, {@link Type#MODIFIED} and {@link Type#DELETED}, {@link #object()} is
 * the object (for DELETED, its last state) and {@link #meta()} its metadata. For
 * {@link Type#BOOKMARK}, only {@code meta().resourceVersion()} (and
 * {@link #initialEventsEnd()}) mean anything and {@code object()} is {@code null}. For
 * {@link Type#ERROR}, {@link #status()} is the API {@link Status} and the other fields are
 * {@code null}. An ADDED, MODIFIED or DELETED event whose object could not be bound to the Java
 * type has a {@code null} object, its {@link #meta()}, and a status with reason
 * {@link #UNBINDABLE} saying why.
 *
 * @param <T> the Java type of the objects
 * @param type the event type
 * @param object the object, or {@code null} for BOOKMARK and ERROR
 * @param meta the object's metadata, or {@code null} for ERROR
 * @param status the status of an ERROR event, else {@code null}
 * @param initialEventsEnd whether this BOOKMARK carries the annotation
 * {@code k8s.io/initial-events-end: "true"} that ends the initial events of a streaming list
 */
public record WatchEvent<T>(Type type, T object, ObjectMeta meta, Status status, boolean initialEventsEnd) {

	/** The status reason of an event whose object does not bind to the watch's Java type. */
	public static final String UNBINDABLE = "Unbindable";

	/**
	 * The event types of a watch stream, as the API names them ({@code watch.EventType}).
	 */
	public enum Type {

		ADDED, MODIFIED, DELETED, BOOKMARK, ERROR

	}

	/**
	 * The resourceVersion this event brings the watch to.
	 * @return the resourceVersion, or {@code null} for an ERROR event
	 */
	public String resourceVersion() {
		return (this.meta != null) ? this.meta.resourceVersion() : null;
	}

	@Override
	public String toString() {
		return "WatchEvent[" + this.type + ((this.meta != null) ? " " + this.meta.key() + " rv=" + this.meta.resourceVersion() : "")
				+ ((this.status != null) ? " " + this.status : "") + "]";
	}

}
