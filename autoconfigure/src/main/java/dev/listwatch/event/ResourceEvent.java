package dev.listwatch.event;

import java.util.Objects;

import dev.listwatch.ObjectMeta;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEvent;
import org.springframework.core.ResolvableType;
import org.springframework.core.ResolvableTypeProvider;

/**
 * A change to an object of a declared watch, published as a Spring
 * {@link ApplicationEvent} after the watch's cache holds it.
 * <p>
 * Guarantees: events of one object arrive in the order they happened; they are published
 * on a dispatch thread, never on the thread that reads the watch, so a slow listener does
 * not stall it. When listeners fall behind, several MODIFIED events of one object may
 * arrive as one (its {@link #oldObject()} the state before the first, its
 * {@link #object()} the latest); the last state of every object and every DELETED are
 * always delivered.
 * <p>
 * The event resolves its generic type to the watch's Java type, so
 * {@code @EventListener void on(ResourceEvent<MyConfigMap> event)} receives only watches
 * bound to {@code MyConfigMap};
 * {@code @EventListener(condition = "#event.watch == 'configmaps'")} picks one watch.
 *
 * @param <T> the Java type of the watch's objects
 */
public final class ResourceEvent<T> extends ApplicationEvent implements ResolvableTypeProvider {

	/**
	 * {@code ResourceEvent<type>} per watched type, made once: Spring asks every event
	 * for its type and looks its listeners up by it, so a new instance per event would
	 * cost a generic resolution and a hash per event.
	 */
	private static final ClassValue<ResolvableType> TYPES = new ClassValue<>() {
		@Override
		protected ResolvableType computeValue(Class<?> type) {
			return ResolvableType.forClassWithGenerics(ResourceEvent.class, type);
		}
	};

	private final String watch;

	private final Type type;

	private final transient T object;

	private final transient @Nullable T oldObject;

	private final ObjectMeta meta;

	private final boolean initialList;

	private final boolean finalStateUnknown;

	private final boolean resync;

	private final transient Class<?> objectType;

	/**
	 * What happened to the object.
	 */
	public enum Type {

		/** The object appeared: created, or found by a list. */
		ADDED,
		/** The object changed. */
		MODIFIED,
		/** The object is gone. */
		DELETED

	}

	/**
	 * Makes an event that is not a resync.
	 * @param source the publisher (the informer)
	 * @param watch the watch's name
	 * @param type what happened
	 * @param object the object (for DELETED, its last known state)
	 * @param oldObject the state before, for MODIFIED; else {@code null}
	 * @param meta the object's metadata
	 * @param initialList whether the event comes from the watch's initial list
	 * @param finalStateUnknown whether a DELETED was inferred by a relist (the object
	 * vanished while the watch was broken, so its final state is unknown)
	 * @param objectType the watch's Java type
	 */
	public ResourceEvent(Object source, String watch, Type type, T object, @Nullable T oldObject, ObjectMeta meta,
			boolean initialList, boolean finalStateUnknown, Class<?> objectType) {
		this(source, watch, type, object, oldObject, meta, initialList, finalStateUnknown, false, objectType);
	}

	/**
	 * Makes an event.
	 * @param source the publisher (the informer)
	 * @param watch the watch's name
	 * @param type what happened
	 * @param object the object (for DELETED, its last known state)
	 * @param oldObject the state before, for MODIFIED; else {@code null}
	 * @param meta the object's metadata
	 * @param initialList whether the event comes from the watch's initial list
	 * @param finalStateUnknown whether a DELETED was inferred by a relist (the object
	 * vanished while the watch was broken, so its final state is unknown)
	 * @param resync whether it is a MODIFIED of the periodic resync: the cached state
	 * delivered again, the same object as old and new, not a change
	 * @param objectType the watch's Java type
	 */
	public ResourceEvent(Object source, String watch, Type type, T object, @Nullable T oldObject, ObjectMeta meta,
			boolean initialList, boolean finalStateUnknown, boolean resync, Class<?> objectType) {
		super(source);
		this.watch = watch;
		this.type = type;
		this.object = object;
		this.oldObject = oldObject;
		this.meta = meta;
		this.initialList = initialList;
		this.finalStateUnknown = finalStateUnknown;
		this.resync = resync;
		this.objectType = objectType;
	}

	/**
	 * @return the name of the watch, as declared under {@code listwatch.watches}
	 */
	public String watch() {
		return this.watch;
	}

	/**
	 * @return the name of the watch, for SpEL conditions ({@code #event.watch})
	 */
	public String getWatch() {
		return this.watch;
	}

	/**
	 * @return what happened
	 */
	public Type type() {
		return this.type;
	}

	/**
	 * @return what happened, for SpEL conditions ({@code #event.type})
	 */
	public Type getType() {
		return this.type;
	}

	/**
	 * @return the object, never {@code null}; for DELETED its last known state
	 */
	public T object() {
		return this.object;
	}

	/**
	 * @return the previous state for MODIFIED, else {@code null}
	 */
	public @Nullable T oldObject() {
		return this.oldObject;
	}

	/**
	 * @return the object's metadata (namespace, name, uid, resourceVersion, labels)
	 */
	public ObjectMeta meta() {
		return this.meta;
	}

	/**
	 * @return the cache key, {@code namespace/name}, or {@code name} for a cluster-scoped
	 * object
	 */
	public String key() {
		return Objects.requireNonNull(this.meta.key(), "only a BOOKMARK's metadata has no name");
	}

	/**
	 * @return whether the event comes from the watch's initial list
	 */
	public boolean initialList() {
		return this.initialList;
	}

	/**
	 * @return whether this DELETED was inferred on relist, the object's final state
	 * unknown
	 */
	public boolean finalStateUnknown() {
		return this.finalStateUnknown;
	}

	/**
	 * Whether this MODIFIED comes from the periodic resync ({@code resync-period}): the
	 * cached state delivered again, {@link #object()} and {@link #oldObject()} the same,
	 * not a change on the server (client-go's resync). A resync folded with a real change
	 * is a real change.
	 * @return whether it is a resync
	 */
	public boolean resync() {
		return this.resync;
	}

	/**
	 * The event's type with its generic resolved to the watch's Java type, so that Spring
	 * delivers it only to listeners of that type.
	 * @return {@code ResourceEvent<watch's type>}
	 */
	@Override
	public ResolvableType getResolvableType() {
		return TYPES.get(this.objectType);
	}

	@Override
	public String toString() {
		return "ResourceEvent[" + this.watch + " " + this.type + " " + this.meta.key() + " rv="
				+ this.meta.resourceVersion() + (this.initialList ? " initial" : "")
				+ (this.finalStateUnknown ? " final-state-unknown" : "") + (this.resync ? " resync" : "") + "]";
	}

}
