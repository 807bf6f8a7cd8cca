package dev.listwatch.informer;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import dev.listwatch.ObjectList.Item;
import dev.listwatch.ObjectMeta;
import dev.listwatch.ObjectTransform;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.event.WatchSyncedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Writes what an informer's reflectors hand on into its {@link Store}, and queues the
 * difference for its {@link Listeners}: client-go's {@code processDeltas}. A list
 * replaces the cache (of its namespace, for a namespace set) and publishes what was
 * added, modified and deleted; a watch event is applied and published unless the cache
 * holds it already (an event sent again by a watch resumed from before its revision).
 * Objects the watch cannot hold are never taken for deleted: their last state that could
 * be held stays cached and they are listed apart until they bind again or are deleted.
 * <p>
 * Not thread-safe: the informer calls every method but {@link #unbindable()} under its
 * lock of changes, so that the cache and the events queued change together.
 *
 * @param <T> the Java type of the objects
 */
final class CacheWriter<T> {

	// the informer's category: what it logs of a watch's life stays under one name
	private static final Log logger = LogFactory.getLog("dev.listwatch.informer.Informer");

	private final Object source;

	private final String watch;

	private final Class<T> type;

	private final Store<T> store;

	private final Listeners<T> listeners;

	/** Whether the informer has synced: every namespace, since its current start. */
	private final BooleanSupplier synced;

	/**
	 * The objects the server has that the watch cannot hold, by key; read from any
	 * thread.
	 */
	private final Map<String, UnbindableObject> unbindable = new ConcurrentHashMap<>();

	/** What reshapes each object before it is cached, or {@code null}. */
	private volatile @Nullable ObjectTransform<T> transform;

	/** Whether the watch's first sync was announced ({@link WatchSyncedEvent}). */
	private boolean syncAnnounced;

	/** The index failures of the store already logged. */
	private long indexFailuresLogged;

	/**
	 * Makes the writer of an informer.
	 * @param source the informer, the source of the events
	 * @param watch the watch's name
	 * @param type the Java type of the objects
	 * @param store the cache
	 * @param listeners where the events go
	 * @param synced whether the informer has synced
	 */
	CacheWriter(Object source, String watch, Class<T> type, Store<T> store, Listeners<T> listeners,
			BooleanSupplier synced) {
		this.source = source;
		this.watch = watch;
		this.type = type;
		this.store = store;
		this.listeners = listeners;
		this.synced = synced;
	}

	/**
	 * Replaces the objects of a feed (its namespace, or all) with a list, and publishes
	 * the difference; after the first list of the feed, marks it synced and announces the
	 * sync once every feed has synced.
	 * @param feed the feed that listed
	 * @param items the objects listed
	 * @param unbindable the objects listed that the watch cannot hold
	 * @param initial whether this is the feed's first list of its run
	 */
	void replace(Feed<T> feed, List<Item<T>> items, List<UnbindableObject> unbindable, boolean initial) {
		// after a stop and start the cache is whole already: this is a relist
		boolean first = initial && !feed.status.hasSynced();
		ObjectTransform<T> transform = this.transform;
		if (transform != null) {
			List<Item<T>> transformed = new ArrayList<>(items.size());
			List<UnbindableObject> failed = new ArrayList<>(unbindable);
			for (Item<T> item : items) {
				Object result = transform(transform, item.meta(), item.object());
				if (result instanceof UnbindableObject cannotHold) {
					failed.add(cannotHold);
				}
				else {
					transformed.add(new Item<>(item.meta(), this.type.cast(result)));
				}
			}
			items = transformed;
			unbindable = failed;
		}
		if (!unbindable.isEmpty()) {
			// the server has them: keep the last state that could be held, so none is
			// taken for deleted
			items = new ArrayList<>(items);
			for (UnbindableObject object : unbindable) {
				Store.Entry<T> cached = this.store.entry(object.key());
				if (cached != null) {
					items.add(new Item<>(cached.meta(), cached.object()));
				}
			}
		}
		Store.Diff<T> diff = this.store.replace(items, feed.namespace);
		reportIndexFailures();
		if (feed.namespace == null) {
			this.unbindable.keySet().retainAll(unbindable.stream().map(UnbindableObject::key).toList());
		}
		else {
			Set<String> listed = unbindable.stream().map(UnbindableObject::key).collect(Collectors.toSet());
			this.unbindable.values()
				.removeIf(
						(object) -> feed.namespace.equals(object.meta().namespace()) && !listed.contains(object.key()));
		}
		for (UnbindableObject object : unbindable) {
			this.unbindable.put(object.key(), object);
		}
		for (Store.Entry<T> added : diff.added()) {
			publish(ResourceEvent.Type.ADDED, added.object(), null, added.meta(), first, false, false);
		}
		for (Store.Update<T> modified : diff.modified()) {
			publish(ResourceEvent.Type.MODIFIED, modified.newEntry().object(), modified.oldEntry().object(),
					modified.newEntry().meta(), first, false, false);
		}
		for (Store.Entry<T> deleted : diff.deleted()) {
			publish(ResourceEvent.Type.DELETED, deleted.object(), null, deleted.meta(), first, true, false);
		}
		String name = feed.name(this.watch);
		if (first) {
			feed.status.markSynced();
			logger.info("Watch " + name + " synced: " + items.size() + " objects of " + feed.listerWatcher.resource()
					+ (unbindable.isEmpty() ? "" : "; " + unbindable.size() + " more that it cannot hold"));
			announceSync();
		}
		else {
			if (!diff.isEmpty()) {
				logger.info("Watch " + name + " relisted: " + diff.added().size() + " added, " + diff.modified().size()
						+ " modified, " + diff.deleted().size() + " deleted");
			}
			if (feed.freshSync) {
				// the fresh sync of a run (a leader-only watch's term): synced again,
				// after its difference
				feed.freshSync = false;
				feed.status.markSynced();
				announceSync();
			}
		}
	}

	/**
	 * Applies a watch event to the cache and publishes the change.
	 * @param event the event
	 * @param hold whether what it publishes may wait for {@link Listeners#release()}
	 */
	void apply(WatchEvent<T> event, boolean hold) {
		WatchEvent.Type type = event.type();
		if (type != WatchEvent.Type.ADDED && type != WatchEvent.Type.MODIFIED && type != WatchEvent.Type.DELETED) {
			return;
		}
		String key = Store.key(event);
		ObjectMeta meta = Objects.requireNonNull(event.meta());
		switch (type) {
			case ADDED, MODIFIED -> {
				if (event.unbindable() != null) {
					// it exists, in a state the watch cannot hold: keep the last one,
					// publish nothing
					this.unbindable.put(key, event.unbindable());
					return;
				}
				if (!this.unbindable.isEmpty()) {
					this.unbindable.remove(key);
				}
				ObjectMeta cached = this.store.meta(key);
				if (cached != null && isReplay(cached, meta)) {
					// the same key at the same resourceVersion: a change the cache holds
					// already, sent again by a watch resumed from before its revision
					// (see Reflector#consume)
					return;
				}
				T object = Objects.requireNonNull(event.object(), "an event not unbindable has its object");
				ObjectTransform<T> transform = this.transform;
				if (transform != null) {
					Object result = transform(transform, meta, object);
					if (result instanceof UnbindableObject cannotHold) {
						// as one that does not bind: keep the last state, publish nothing
						this.unbindable.put(key, cannotHold);
						return;
					}
					object = this.type.cast(result);
				}
				T old = this.store.upsert(meta, object);
				reportIndexFailures();
				publish((old == null) ? ResourceEvent.Type.ADDED : ResourceEvent.Type.MODIFIED, object, old, meta,
						false, false, hold);
			}
			case DELETED -> {
				boolean wasUnbindable = !this.unbindable.isEmpty() && this.unbindable.remove(key) != null;
				T old = this.store.delete(key);
				if (old == null && !wasUnbindable) {
					// the cache holds nothing under the key: a delete it applied already,
					// sent again by a watch resumed from before its revision
					return;
				}
				T last = (event.object() != null) ? transformDeleted(event.object(), meta, old) : old;
				if (last != null) {
					publish(ResourceEvent.Type.DELETED, last, null, meta, false, false, hold);
				}
			}
			default -> {
			}
		}
	}

	/**
	 * Sets the transform applied to each object before it is cached; before the informer
	 * starts.
	 * @param transform the transform, or {@code null} for none
	 */
	void transform(@Nullable ObjectTransform<T> transform) {
		this.transform = transform;
	}

	/**
	 * The transform applied to each object before it is cached.
	 * @return the transform, or {@code null} for none
	 */
	@Nullable ObjectTransform<T> transform() {
		return this.transform;
	}

	/**
	 * Transforms an object.
	 * @return the object transformed, or the {@link UnbindableObject} that reports the
	 * transform's failure
	 */
	private Object transform(ObjectTransform<T> transform, ObjectMeta meta, T object) {
		String failure;
		try {
			T result = transform.transform(object);
			if (result != null && this.type.isInstance(result)) {
				return result;
			}
			failure = (result == null) ? "the transform returned null"
					: "the transform returned a " + result.getClass().getName();
		}
		catch (RuntimeException | LinkageError | StackOverflowError ex) {
			// the class alone: a message may quote the object's values
			failure = "the transform threw " + ex.getClass().getName();
		}
		UnbindableObject cannotHold = new UnbindableObject(meta, "", this.type.getName(), failure);
		logger.warn("Watch " + this.watch + ": " + cannotHold.key() + " (resourceVersion " + meta.resourceVersion()
				+ ") is not cached in its new state: " + failure);
		return cannotHold;
	}

	/** The last state of a deleted object, transformed; the cached one if that fails. */
	private @Nullable T transformDeleted(T object, ObjectMeta meta, @Nullable T old) {
		ObjectTransform<T> transform = this.transform;
		if (transform == null) {
			return object;
		}
		Object result = transform(transform, meta, object);
		return (result instanceof UnbindableObject) ? old : this.type.cast(result);
	}

	/**
	 * Publishes the whole cache again, as MODIFIED events flagged resync (the same object
	 * as old and new), without a request.
	 */
	void resync() {
		for (Store.Entry<T> entry : this.store.entries()) {
			this.listeners.enqueue(new ResourceEvent<>(this.source, this.watch, ResourceEvent.Type.MODIFIED,
					entry.object(), entry.object(), entry.meta(), false, false, true, this.type), false);
		}
	}

	/**
	 * Adds a listener in code, which first receives the cache as it is (and the sync,
	 * when it was announced), then every change.
	 * @param listener the listener
	 * @param running whether the informer runs
	 * @return the listener added
	 */
	Listeners.Added<T> subscribe(Consumer<? super ResourceEvent<T>> listener, boolean running) {
		List<ResourceEvent<T>> snapshot = new ArrayList<>(this.store.size());
		for (Store.Entry<T> entry : this.store.entries()) {
			snapshot.add(new ResourceEvent<>(this.source, this.watch, ResourceEvent.Type.ADDED, entry.object(), null,
					entry.meta(), true, false, this.type));
		}
		WatchSyncedEvent synced = this.syncAnnounced ? new WatchSyncedEvent(this.source, this.watch, this.store.size())
				: null;
		return this.listeners.add(listener, running, snapshot, synced);
	}

	/** Publishes the {@link WatchSyncedEvent} once every namespace has synced. */
	private void announceSync() {
		if (!this.syncAnnounced && this.synced.getAsBoolean()) {
			this.syncAnnounced = true;
			this.listeners.enqueueAfterAll(new WatchSyncedEvent(this.source, this.watch, this.store.size()));
		}
	}

	/**
	 * Lets the next sync be announced again: a new run of a watch that syncs afresh each
	 * run.
	 */
	void forgetSync() {
		this.syncAnnounced = false;
	}

	/**
	 * The objects the server has that this watch cannot hold, in key order; from any
	 * thread.
	 */
	List<UnbindableObject> unbindable() {
		if (this.unbindable.isEmpty()) {
			return List.of();
		}
		List<UnbindableObject> objects = new ArrayList<>(this.unbindable.values());
		objects.sort(Comparator.comparing(UnbindableObject::key));
		return objects;
	}

	/**
	 * Whether a change is one the cache holds already: same resourceVersion, which is
	 * never empty.
	 */
	private static boolean isReplay(ObjectMeta cached, ObjectMeta changed) {
		String version = changed.resourceVersion();
		return version != null && !version.isEmpty() && version.equals(cached.resourceVersion());
	}

	private void reportIndexFailures() {
		long failures = this.store.indexFailures();
		if (failures != this.indexFailuresLogged) {
			WatchStatus.IndexFailure last = Objects.requireNonNull(this.store.lastIndexFailure(),
					"recorded before the count of failures grows (Indexers)");
			logger.warn("Watch " + this.watch + ": index function '" + last.index() + "' failed for " + last.key()
					+ " with " + last.error() + " (" + (failures - this.indexFailuresLogged)
					+ " new failures); the object is cached without values in that index");
			this.indexFailuresLogged = failures;
		}
	}

	private void publish(ResourceEvent.Type type, T object, @Nullable T old, ObjectMeta meta, boolean initial,
			boolean finalStateUnknown, boolean hold) {
		this.listeners.enqueue(new ResourceEvent<>(this.source, this.watch, type, object, old, meta, initial,
				finalStateUnknown, this.type), hold);
	}

}
