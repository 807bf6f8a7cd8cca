package dev.listwatch.informer;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;

import dev.listwatch.IndexFunction;
import dev.listwatch.Lister;
import dev.listwatch.ObjectList.Item;
import dev.listwatch.ObjectMeta;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchIndex;
import dev.listwatch.WatchStatus;
import org.jspecify.annotations.Nullable;

/**
 * The local cache of one watch: client-go's {@code threadSafeMap} with its indexers.
 * Objects are kept by key ({@code namespace/name}, or {@code name} for cluster-scoped
 * objects) together with their {@link ObjectMeta}, filed in the built-in
 * {@value WatchIndex#NAMESPACE} index and in the user indexes given at construction.
 * <p>
 * <b>Writers.</b> {@link #upsert}, {@link #delete} and {@link #replace} may be called
 * from any thread, but they are serialised: one write runs at a time. Index functions run
 * on the writing thread, before the change is published, once for each object that is
 * added or changed; the values an object was filed under are kept with it, and exactly
 * those are unfiled when it is changed or removed (the functions are never called again
 * on a previous state). A relist keeps what was filed for objects whose resourceVersion
 * is unchanged.
 * <p>
 * <b>A failing index function</b> never fails the write. When a user index function
 * throws a {@link RuntimeException}, a {@link LinkageError} (such as
 * {@link NoClassDefFoundError}) or a {@link StackOverflowError}, or returns a
 * {@code null} element, the object is still cached and filed in every other index, but
 * under no value of that index; the failure is counted in {@link #indexFailures()} and
 * the latest one kept in {@link #lastIndexFailure()}, by index, key and exception class,
 * never the exception's message (it may hold object values). The store logs nothing: the
 * caller reports. A relist calls the functions again for an unchanged object that one of
 * them failed for. Other errors ({@link OutOfMemoryError} and the other
 * {@link VirtualMachineError}s) propagate, and the store is then left unchanged by that
 * write.
 * <p>
 * <b>Readers.</b> Any thread may read, through {@link #lister()} or the accessors here.
 * Single-key reads ({@link #get}, {@link #meta}) take no lock. Reads over several objects
 * take a read lock that a writer holds only while it applies an already computed change:
 * a few map and index updates for one object, the updates of the objects that changed in
 * the relist of one namespace (of a namespace set), or a single reference swap for a
 * relist of the whole content. Readers therefore never see a half-applied change: an
 * index never names a key the map lacks, nor an object under a value it no longer has.
 * Reads never throw on the content (only on an unknown index name or a malformed
 * selector); an index entry without an object, which cannot happen, would be skipped.
 * <p>
 * <b>Parts.</b> The store holds the objects, the locks, the writes and the reads;
 * {@link Indexers} the names and functions of the indexes and their failures; a
 * {@link StoreIndex} the keys under each value of one index; {@link IndexSlots} what an
 * object is filed under, kept in its {@link Entry}; {@link StoreLister} the view.
 * Package-private: the {@link Informer} drives it, and applications read it through its
 * {@link Lister}.
 *
 * @param <T> the Java type of the cached objects
 */
final class Store<T> implements StoreLister.Reads<T> {

	/** The names and functions of the indexes, and the failures of the functions. */
	private final Indexers<T> indexers;

	/**
	 * Serialises writers; held while a change is computed, before the write lock is
	 * taken.
	 */
	private final ReentrantLock writerMutex = new ReentrantLock();

	/** Readers of several objects vs. the application of a change. */
	private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

	private volatile State<T> state;

	/**
	 * How many times a write filed an object in the indexes (one per object, whatever the
	 * indexes): the work of the writes, which tests read ({@link #filings()}) on the
	 * thread that wrote. Written under the writer mutex; not volatile, so that a watch
	 * event pays no fence for it.
	 */
	private long filings;

	/** Whether the watch has synced: kept by its status, the one record of it. */
	private volatile BooleanSupplier synced = () -> false;

	private final Lister<T> lister = new StoreLister<>(this);

	/**
	 * Creates a store with only the built-in namespace index.
	 */
	Store() {
		this(Map.of());
	}

	/**
	 * Creates a store with user indexes.
	 * @param indexes index functions by index name; the name
	 * {@value WatchIndex#NAMESPACE} is reserved
	 */
	Store(Map<String, ? extends IndexFunction<? super T>> indexes) {
		this.indexers = new Indexers<>(indexes);
		this.state = new State<>(new ConcurrentHashMap<>(), this.indexers.newIndices());
	}

	/**
	 * Creates a store with the indexes declared for one watch.
	 * @param <T> the Java type of the cached objects
	 * @param watch the watch name
	 * @param declarations all index declarations; those of other watches are ignored
	 * @return the store
	 * @throws IllegalArgumentException if two declarations name the same index of this
	 * watch
	 */
	static <T> Store<T> forWatch(String watch, Collection<? extends WatchIndex<?>> declarations) {
		return new Store<>(Indexers.declaredFor(watch, declarations));
	}

	// ---------------------------------------------------------------- entries and
	// results

	/**
	 * A cached object with its metadata. Two entries are equal when their metadata and
	 * objects are.
	 *
	 * @param <T> the Java type of the object
	 */
	static final class Entry<T> {

		private final ObjectMeta meta;

		private final T object;

		/**
		 * What the object is filed under in the user indexes, read and built by
		 * {@link IndexSlots} only; {@code null} for nothing (always, without user
		 * indexes). The field costs nothing with compressed pointers: the object is 24
		 * bytes with it or without it.
		 */
		private final @Nullable Object filed;

		/**
		 * Creates an entry.
		 * @param meta the metadata
		 * @param object the object
		 */
		public Entry(ObjectMeta meta, T object) {
			this(meta, object, null);
		}

		private Entry(ObjectMeta meta, T object, @Nullable Object filed) {
			this.meta = meta;
			this.object = object;
			this.filed = filed;
		}

		/**
		 * The metadata.
		 * @return the metadata
		 */
		public ObjectMeta meta() {
			return this.meta;
		}

		/**
		 * The object.
		 * @return the object
		 */
		public T object() {
			return this.object;
		}

		/**
		 * The cache key.
		 * @return {@code namespace/name} or {@code name}
		 */
		public String key() {
			return Objects.requireNonNull(this.meta.key(), "only a BOOKMARK's metadata has no name");
		}

		@Override
		public boolean equals(Object other) {
			return (this == other) || (other instanceof Entry<?> entry && Objects.equals(this.meta, entry.meta)
					&& Objects.equals(this.object, entry.object));
		}

		@Override
		public int hashCode() {
			return 31 * Objects.hashCode(this.meta) + Objects.hashCode(this.object);
		}

		/**
		 * The key and resourceVersion only: an object's own toString may print its
		 * values.
		 */
		@Override
		public String toString() {
			return "Entry[" + key() + " resourceVersion=" + this.meta.resourceVersion() + "]";
		}

	}

	/**
	 * An object whose resourceVersion changed in a relist.
	 *
	 * @param <T> the Java type of the object
	 * @param oldEntry the state the cache held
	 * @param newEntry the state listed
	 */
	public record Update<T>(Entry<T> oldEntry, Entry<T> newEntry) {
	}

	/**
	 * What a {@link Store#replace relist} changed.
	 *
	 * @param <T> the Java type of the objects
	 * @param added objects whose keys were not cached, in list order
	 * @param modified objects cached under the same key with another resourceVersion (or
	 * without one to compare), in list order
	 * @param deleted the last known state of cached objects absent from the list, in key
	 * order; their final state is unknown
	 * @param unchanged how many listed objects had the same key and resourceVersion as
	 * cached
	 */
	public record Diff<T>(List<Entry<T>> added, List<Update<T>> modified, List<Entry<T>> deleted, int unchanged) {

		/**
		 * Whether the relist changed nothing.
		 * @return {@code true} without added, modified or deleted objects
		 */
		public boolean isEmpty() {
			return this.added.isEmpty() && this.modified.isEmpty() && this.deleted.isEmpty();
		}

	}

	// ---------------------------------------------------------------- writes

	/**
	 * Adds an object or replaces the one cached under the same key, and refiles it in the
	 * indexes: out of the values the previous state was filed under, into those of the
	 * new state. An index function that fails leaves the object under no value of that
	 * index (see the class description).
	 * @param meta the object's metadata
	 * @param object the object
	 * @return the object replaced, or {@code null} if the key was not cached
	 */
	public @Nullable T upsert(ObjectMeta meta, T object) {
		Objects.requireNonNull(meta, "meta must not be null");
		Objects.requireNonNull(object, "object must not be null");
		String key = Objects.requireNonNull(meta.key(), "only a BOOKMARK's metadata has no name");
		this.writerMutex.lock();
		try {
			State<T> current = this.state;
			Entry<T> old = current.items.get(key);
			Entry<T> entry = newEntry(meta, object, key);
			this.lock.writeLock().lock();
			try {
				current.items.put(key, entry);
				StoreIndex[] indices = current.indices;
				String namespace = namespaceValue(meta);
				if (old == null) {
					indices[0].file(namespace, key);
				}
				else {
					String oldNamespace = namespaceValue(old.meta());
					if (!oldNamespace.equals(namespace)) {
						indices[0].unfile(oldNamespace, key);
						indices[0].file(namespace, key);
					}
				}
				this.indexers.refile(indices, filed(old), entry.filed, key);
				this.filings++;
			}
			finally {
				this.lock.writeLock().unlock();
			}
			return (old != null) ? old.object() : null;
		}
		finally {
			this.writerMutex.unlock();
		}
	}

	/**
	 * Removes the object cached under a key, from the map and from every index value it
	 * was filed under.
	 * @param key the key
	 * @return the object removed, or {@code null} if the key was not cached
	 */
	public @Nullable T delete(String key) {
		this.writerMutex.lock();
		try {
			State<T> current = this.state;
			Entry<T> old = current.items.get(key);
			if (old == null) {
				return null;
			}
			this.lock.writeLock().lock();
			try {
				current.items.remove(key);
				StoreIndex[] indices = current.indices;
				indices[0].unfile(namespaceValue(old.meta()), key);
				this.indexers.unfile(indices, old.filed, key);
			}
			finally {
				this.lock.writeLock().unlock();
			}
			return old.object();
		}
		finally {
			this.writerMutex.unlock();
		}
	}

	/**
	 * Replaces the whole content with a fresh list (a relist), atomically for readers,
	 * and reports the difference. Objects whose key and resourceVersion are unchanged
	 * keep their cached instance and the index values they were filed under (their index
	 * functions are called again only if one failed for them). If the list holds a key
	 * twice, the later object wins.
	 * @param items the listed objects with their metadata
	 * @return the difference between the previous content and the list
	 */
	public Diff<T> replace(List<Item<T>> items) {
		return replace(items, null);
	}

	/**
	 * Replaces the content of one namespace with a fresh list of it (one namespace of a
	 * namespace set relisted), as {@link #replace(List)} does the whole content: the
	 * objects of other namespaces stay as they are, and are neither reported nor deleted.
	 * The work is that of the namespace's objects alone, whatever the other namespaces
	 * hold: only the objects that changed are refiled, in the indexes the store has, and
	 * the change is applied under the write lock, so that readers of several objects see
	 * the namespace before or after it, never in between.
	 * @param items the listed objects of the namespace with their metadata
	 * @param namespace the namespace listed, or {@code null} for the whole content
	 * @return the difference between the namespace's previous content and the list
	 */
	public Diff<T> replace(List<Item<T>> items, @Nullable String namespace) {
		return (namespace != null) ? replaceNamespace(items, namespace) : replaceAll(items);
	}

	private Diff<T> replaceAll(List<Item<T>> items) {
		this.writerMutex.lock();
		try {
			State<T> current = this.state;
			int n = items.size();
			ConcurrentHashMap<String, Entry<T>> entries = new ConcurrentHashMap<>(Math.max(16, (int) (n / 0.75f) + 1));
			Relist relist = new Relist();
			StoreIndex[] indices = this.indexers.newIndices();
			// backwards, so that the last object of a key is met first and earlier ones
			// skipped
			for (int i = n - 1; i >= 0; i--) {
				Item<T> item = items.get(i);
				ObjectMeta meta = item.meta();
				String key = Objects.requireNonNull(meta.key(), "only a BOOKMARK's metadata has no name");
				if (entries.containsKey(key)) {
					continue; // a later duplicate superseded it
				}
				Entry<T> old = current.items.get(key);
				Entry<T> entry = relist.entry(old, item, key);
				entries.put(key, entry);
				fileAll(indices, entry, key);
			}
			List<Entry<T>> deleted = new ArrayList<>();
			for (Map.Entry<String, Entry<T>> cached : current.items.entrySet()) {
				if (!entries.containsKey(cached.getKey())) {
					deleted.add(cached.getValue());
				}
			}
			deleted.sort(Comparator.comparing(Entry::key));
			State<T> next = new State<>(entries, indices);
			this.lock.writeLock().lock();
			try {
				this.state = next;
			}
			finally {
				this.lock.writeLock().unlock();
			}
			return relist.diff(deleted);
		}
		finally {
			this.writerMutex.unlock();
		}
	}

	/**
	 * Replaces one namespace's content in place: the difference is computed first (index
	 * functions included) from the namespace's entries in the namespace index, then
	 * applied under the write lock; the other namespaces' entries are not visited.
	 */
	private Diff<T> replaceNamespace(List<Item<T>> items, String namespace) {
		this.writerMutex.lock();
		try {
			State<T> current = this.state;
			int n = items.size();
			HashSet<String> listed = new HashSet<>(Math.max(16, (int) (n / 0.75f) + 1));
			// the entries to write, their keys and what each replaces (null: none), in
			// the same order
			List<Entry<T>> writes = new ArrayList<>();
			List<String> keys = new ArrayList<>();
			List<@Nullable Entry<T>> replaced = new ArrayList<>();
			Relist relist = new Relist();
			// backwards, so that the last object of a key is met first and earlier ones
			// skipped
			for (int i = n - 1; i >= 0; i--) {
				Item<T> item = items.get(i);
				ObjectMeta meta = item.meta();
				String key = Objects.requireNonNull(meta.key(), "only a BOOKMARK's metadata has no name");
				if (!listed.add(key)) {
					continue; // a later duplicate superseded it
				}
				Entry<T> old = current.items.get(key);
				Entry<T> entry = relist.entry(old, item, key);
				if (entry != old) {
					writes.add(entry);
					keys.add(key);
					replaced.add(old);
				}
			}
			List<Entry<T>> deleted = new ArrayList<>();
			List<String> deletedKeys = new ArrayList<>();
			for (String key : current.indices[0].keys(namespace)) {
				if (!listed.contains(key)) {
					deletedKeys.add(key);
				}
			}
			deletedKeys.sort(Comparator.naturalOrder());
			for (String key : deletedKeys) {
				deleted.add(Objects.requireNonNull(current.items.get(key), "an index names only cached keys"));
			}
			this.lock.writeLock().lock();
			try {
				StoreIndex[] indices = current.indices;
				for (int i = 0; i < writes.size(); i++) {
					Entry<T> entry = writes.get(i);
					Entry<T> old = replaced.get(i);
					String key = keys.get(i);
					current.items.put(key, entry);
					String entryNamespace = namespaceValue(entry.meta());
					if (old == null) {
						indices[0].file(entryNamespace, key);
					}
					else if (!namespaceValue(old.meta()).equals(entryNamespace)) {
						indices[0].unfile(namespaceValue(old.meta()), key);
						indices[0].file(entryNamespace, key);
					}
					this.indexers.refile(indices, filed(old), entry.filed, key);
				}
				this.filings += writes.size();
				for (int i = 0; i < deleted.size(); i++) {
					Entry<T> gone = deleted.get(i);
					String key = deletedKeys.get(i);
					current.items.remove(key);
					indices[0].unfile(namespaceValue(gone.meta()), key);
					this.indexers.unfile(indices, gone.filed, key);
				}
			}
			finally {
				this.lock.writeLock().unlock();
			}
			return relist.diff(deleted);
		}
		finally {
			this.writerMutex.unlock();
		}
	}

	/**
	 * What a relist finds, object by object: the entry each listed object leaves in the
	 * cache, and whether it was added, modified or unchanged. Listed objects are met last
	 * first (see the callers), and the difference is put back in list order.
	 */
	private final class Relist {

		private final List<Entry<T>> added = new ArrayList<>();

		private final List<Update<T>> modified = new ArrayList<>();

		private int unchanged;

		/**
		 * The entry a listed object leaves under its key: the cached one when its
		 * resourceVersion is the same (filed again only if an index function failed for
		 * it), else a new one.
		 */
		Entry<T> entry(@Nullable Entry<T> old, Item<T> item, String key) {
			if (old != null && sameVersion(old.meta(), item.meta())) {
				this.unchanged++;
				return Store.this.indexers.hasFailure(old.filed) ? newEntry(old.meta(), old.object(), key) : old;
			}
			Entry<T> entry = newEntry(item.meta(), item.object(), key);
			if (old == null) {
				this.added.add(entry);
			}
			else {
				this.modified.add(new Update<>(old, entry));
			}
			return entry;
		}

		Diff<T> diff(List<Entry<T>> deleted) {
			Collections.reverse(this.added);
			Collections.reverse(this.modified);
			return new Diff<>(immutable(this.added), immutable(this.modified), immutable(deleted), this.unchanged);
		}

	}

	/**
	 * Files an entry in the namespace index and its values in every user index, under the
	 * key instance the map holds (one string per object, not one more per index).
	 */
	private void fileAll(StoreIndex[] indices, Entry<T> entry, String key) {
		indices[0].file(namespaceValue(entry.meta()), key);
		this.indexers.file(indices, entry.filed, key);
		this.filings++;
	}

	/**
	 * How many times the writes so far filed an object in the indexes: an upsert files
	 * one, a relist of all namespaces every object listed, a relist of one namespace the
	 * objects of that namespace that it adds or changes.
	 * @return the count
	 */
	long filings() {
		return this.filings;
	}

	/**
	 * The objects of one namespace, from the namespace index.
	 * @param namespace the namespace
	 * @return how many are cached
	 */
	int countIn(String namespace) {
		this.lock.readLock().lock();
		try {
			return this.state.indices[0].count(namespace);
		}
		finally {
			this.lock.readLock().unlock();
		}
	}

	/**
	 * Names where {@link Lister#hasSynced()} reads from: the watch's status.
	 * @param synced whether the watch has synced
	 */
	void syncedBy(BooleanSupplier synced) {
		this.synced = synced;
	}

	@Override
	public boolean hasSynced() {
		return this.synced.getAsBoolean();
	}

	// ---------------------------------------------------------------- reads

	/**
	 * The object cached under a key. Takes no lock.
	 * @param key the key
	 * @return the object, or {@code null}
	 */
	@Override
	public @Nullable T get(String key) {
		Entry<T> entry = this.state.items.get(key);
		return (entry != null) ? entry.object() : null;
	}

	/**
	 * The entry (metadata and object) cached under a key. Takes no lock.
	 * @param key the key
	 * @return the entry, or {@code null}
	 */
	public @Nullable Entry<T> entry(String key) {
		return this.state.items.get(key);
	}

	/**
	 * The metadata of the object cached under a key. Takes no lock.
	 * @param key the key
	 * @return the metadata, or {@code null}
	 */
	public @Nullable ObjectMeta meta(String key) {
		Entry<T> entry = this.state.items.get(key);
		return (entry != null) ? entry.meta() : null;
	}

	/**
	 * The number of cached objects; under the read lock, as the relist of one namespace
	 * changes the map object by object.
	 * @return the size
	 */
	@Override
	public int size() {
		this.lock.readLock().lock();
		try {
			return this.state.items.size();
		}
		finally {
			this.lock.readLock().unlock();
		}
	}

	/**
	 * A snapshot of the cached keys.
	 * @return the keys, unmodifiable
	 */
	@Override
	public Set<String> keys() {
		this.lock.readLock().lock();
		try {
			return Set.copyOf(this.state.items.keySet());
		}
		finally {
			this.lock.readLock().unlock();
		}
	}

	/**
	 * A snapshot of the cached entries.
	 * @return the entries, unmodifiable, in no particular order
	 */
	public List<Entry<T>> entries() {
		this.lock.readLock().lock();
		try {
			return immutable(new ArrayList<>(this.state.items.values()));
		}
		finally {
			this.lock.readLock().unlock();
		}
	}

	/**
	 * The names of the indexes, the built-in {@value WatchIndex#NAMESPACE} index first.
	 * @return the names, unmodifiable
	 */
	@Override
	public Set<String> indexNames() {
		return this.indexers.names();
	}

	/**
	 * The values of an index that have objects filed under them.
	 * @param indexName the index
	 * @return a snapshot of the values
	 * @throws IllegalArgumentException for an unknown index
	 */
	public Set<String> indexValues(String indexName) {
		int i = this.indexers.indexOf(indexName);
		this.lock.readLock().lock();
		try {
			return this.state.indices[i].values();
		}
		finally {
			this.lock.readLock().unlock();
		}
	}

	/**
	 * How many times a user index function failed for an object (threw, or returned a
	 * {@code null} element) since the store was created. Each failure left that object
	 * under no value of that index; the writes went on.
	 * @return the count
	 */
	public long indexFailures() {
		return this.indexers.failures();
	}

	/**
	 * The latest failure of a user index function.
	 * @return the failure, or {@code null} if none failed
	 */
	public WatchStatus.@Nullable IndexFailure lastIndexFailure() {
		return this.indexers.lastFailure();
	}

	/**
	 * The read-only view of this store.
	 * @return the lister
	 */
	public Lister<T> lister() {
		return this.lister;
	}

	// ---------------------------------------------------------------- internals

	/**
	 * The content: the map and its indexes, the namespace index first. The map is
	 * concurrent so that single-key reads need no lock; the indexes are read under the
	 * read lock only. A relist builds a new State and swaps it in.
	 */
	private record State<T>(ConcurrentHashMap<String, Entry<T>> items, StoreIndex[] indices) {
	}

	/**
	 * Creates the entry of an object, calling the user index functions; on the writing
	 * thread.
	 */
	private Entry<T> newEntry(ObjectMeta meta, T object, String key) {
		return new Entry<>(meta, object, this.indexers.filed(object, meta, key));
	}

	/** What an entry is filed under in the user indexes (see {@link Entry#filed}). */
	private static @Nullable Object filed(@Nullable Entry<?> entry) {
		return (entry != null) ? entry.filed : null;
	}

	private static String namespaceValue(ObjectMeta meta) {
		String namespace = meta.namespace();
		return (namespace != null) ? namespace : "";
	}

	@Override
	public int indexOf(String indexName) {
		return this.indexers.indexOf(indexName);
	}

	private static boolean sameVersion(ObjectMeta cached, ObjectMeta listed) {
		String version = listed.resourceVersion();
		return version != null && !version.isEmpty() && version.equals(cached.resourceVersion());
	}

	private static <E> List<E> immutable(List<E> list) {
		return list.isEmpty() ? List.of() : Collections.unmodifiableList(list);
	}

	/** The object under a key if the selector matches its labels, else {@code null}. */
	private static <T> @Nullable T select(ConcurrentHashMap<String, Entry<T>> items, LabelSelector selector,
			String key) {
		Entry<T> entry = items.get(key);
		if (entry == null) {
			// cannot happen: writers unfile what they filed; a read never throws for it
			return null;
		}
		return selector.matches(entry.meta().labels()) ? entry.object() : null;
	}

	@Override
	public List<T> listAll(LabelSelector selector) {
		this.lock.readLock().lock();
		try {
			Collection<Entry<T>> entries = this.state.items.values();
			List<T> objects = new ArrayList<>(selector.isEverything() ? entries.size() : 16);
			for (Entry<T> entry : entries) {
				if (selector.matches(entry.meta().labels())) {
					objects.add(entry.object());
				}
			}
			return immutable(objects);
		}
		finally {
			this.lock.readLock().unlock();
		}
	}

	@Override
	public List<T> listFiled(int index, String value, LabelSelector selector) {
		this.lock.readLock().lock();
		try {
			State<T> current = this.state;
			return current.indices[index].read(value, current.items, selector, Store::select);
		}
		finally {
			this.lock.readLock().unlock();
		}
	}

	/**
	 * The cache key of an object event (ADDED, MODIFIED, DELETED), whose metadata has a
	 * name (only a BOOKMARK's metadata has none).
	 * @param event the event
	 * @return its object's key
	 */
	static String key(WatchEvent<?> event) {
		ObjectMeta meta = Objects.requireNonNull(event.meta(), "an object event has its object's metadata");
		return Objects.requireNonNull(meta.key(), "only a BOOKMARK's metadata has no name");
	}

}
