package dev.listwatch.cache;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import dev.listwatch.IndexFunction;
import dev.listwatch.Lister;
import dev.listwatch.ObjectMeta;
import dev.listwatch.WatchIndex;

/**
 * The local cache of one watch: client-go's {@code threadSafeMap} with its indexers. Objects are
 * kept by key ({@code namespace/name}, or {@code name} for cluster-scoped objects) together with
 * their {@link ObjectMeta}, filed in the built-in {@value WatchIndex#NAMESPACE} index and in the
 * user indexes given at construction.
 * <p>
 * <b>Writers.</b> {@link #upsert}, {@link #delete} and {@link #replace} may be called from any
 * thread, but they are serialised: one write runs at a time. Index functions run on the writing
 * thread, before the change is published; if one throws, the write fails and the store is left
 * unchanged.
 * <p>
 * <b>Readers.</b> Any thread may read, through {@link #lister()} or the accessors here. Single-key
 * reads ({@link #get}, {@link #meta}) take no lock. Reads over several objects take a read lock
 * that a writer holds only while it applies an already computed change: a few map and index
 * updates for one object, or a single reference swap for a whole relist. Readers therefore never
 * see a half-applied change: an index never names a key the map lacks, nor an object under a
 * value it no longer has.
 * <p>
 * Public because the Reflector and Informer in other packages drive it; not part of the API
 * that applications use (they get a {@link Lister}).
 *
 * @param <T> the Java type of the cached objects
 */
public final class Store<T> {

	private static final String[] NO_VALUES = new String[0];

	private final String[] indexNames;

	private final IndexFunction<? super T>[] indexFunctions;

	private final Set<String> indexNameSet;

	/** Serialises writers; held while a change is computed, before the write lock is taken. */
	private final ReentrantLock writerMutex = new ReentrantLock();

	/** Readers of several objects vs. the application of a change. */
	private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

	private volatile State<T> state;

	private volatile boolean synced;

	private final Lister<T> lister = new StoreLister();

	/**
	 * Creates a store with only the built-in namespace index.
	 */
	public Store() {
		this(Map.of());
	}

	/**
	 * Creates a store with user indexes.
	 * @param indexes index functions by index name; the name {@value WatchIndex#NAMESPACE} is
	 * reserved
	 */
	@SuppressWarnings("unchecked")
	public Store(Map<String, ? extends IndexFunction<? super T>> indexes) {
		Map<String, IndexFunction<? super T>> ordered = new LinkedHashMap<>();
		ordered.put(WatchIndex.NAMESPACE, null); // built in, handled from the metadata
		indexes.forEach((name, function) -> {
			if (name == null || name.isEmpty()) {
				throw new IllegalArgumentException("Index name must not be empty");
			}
			if (WatchIndex.NAMESPACE.equals(name)) {
				throw new IllegalArgumentException(
						"Index name '" + WatchIndex.NAMESPACE + "' is reserved for the built-in namespace index");
			}
			ordered.put(name, Objects.requireNonNull(function, () -> "Index function of '" + name + "' is null"));
		});
		this.indexNames = ordered.keySet().toArray(new String[0]);
		this.indexFunctions = ordered.values().toArray(new IndexFunction[0]);
		this.indexNameSet = Collections.unmodifiableSet(new LinkedHashSet<>(ordered.keySet()));
		this.state = new State<>(new ConcurrentHashMap<>(), newIndices(this.indexNames.length));
	}

	/**
	 * Creates a store with the indexes declared for one watch.
	 * @param <T> the Java type of the cached objects
	 * @param watch the watch name
	 * @param declarations all index declarations; those of other watches are ignored
	 * @return the store
	 * @throws IllegalArgumentException if two declarations name the same index of this watch
	 */
	@SuppressWarnings("unchecked")
	public static <T> Store<T> forWatch(String watch, Collection<? extends WatchIndex<?>> declarations) {
		Map<String, IndexFunction<? super T>> indexes = new LinkedHashMap<>();
		for (WatchIndex<?> declaration : declarations) {
			if (declaration.watch().equals(watch)
					&& indexes.put(declaration.name(), (IndexFunction<? super T>) declaration.function()) != null) {
				throw new IllegalArgumentException(
						"Index '" + declaration.name() + "' of watch '" + watch + "' is declared more than once");
			}
		}
		return new Store<>(indexes);
	}

	// ---------------------------------------------------------------- entries and results

	/**
	 * A cached object with its metadata.
	 *
	 * @param <T> the Java type of the object
	 * @param meta the metadata
	 * @param object the object
	 */
	public record Entry<T>(ObjectMeta meta, T object) {

		/**
		 * The cache key.
		 * @return {@code namespace/name} or {@code name}
		 */
		public String key() {
			return this.meta.key();
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
	 * @param modified objects cached under the same key with another resourceVersion (or without
	 * one to compare), in list order
	 * @param deleted the last known state of cached objects absent from the list, in key order;
	 * their final state is unknown
	 * @param unchanged how many listed objects had the same key and resourceVersion as cached
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
	 * Adds an object or replaces the one cached under the same key, and refiles it in the indexes.
	 * @param meta the object's metadata
	 * @param object the object
	 * @return the object replaced, or {@code null} if the key was not cached
	 */
	public T upsert(ObjectMeta meta, T object) {
		Objects.requireNonNull(meta, "meta must not be null");
		Objects.requireNonNull(object, "object must not be null");
		String key = meta.key();
		Entry<T> entry = new Entry<>(meta, object);
		this.writerMutex.lock();
		try {
			State<T> current = this.state;
			Entry<T> old = current.items.get(key);
			String[][] newValues = indexValues(entry);
			String[][] oldValues = (old != null) ? indexValues(old) : null;
			this.lock.writeLock().lock();
			try {
				current.items.put(key, entry);
				for (int i = 0; i < newValues.length; i++) {
					HashMap<String, Object> index = current.indices[i];
					String[] before = (oldValues != null) ? oldValues[i] : NO_VALUES;
					for (String value : before) {
						if (!contains(newValues[i], value)) {
							unfile(index, value, key);
						}
					}
					for (String value : newValues[i]) {
						if (!contains(before, value)) {
							file(index, value, key);
						}
					}
				}
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
	 * Removes the object cached under a key, from the map and every index.
	 * @param key the key
	 * @return the object removed, or {@code null} if the key was not cached
	 */
	public T delete(String key) {
		this.writerMutex.lock();
		try {
			State<T> current = this.state;
			Entry<T> old = current.items.get(key);
			if (old == null) {
				return null;
			}
			String[][] oldValues = indexValues(old);
			this.lock.writeLock().lock();
			try {
				current.items.remove(key);
				for (int i = 0; i < oldValues.length; i++) {
					for (String value : oldValues[i]) {
						unfile(current.indices[i], value, key);
					}
				}
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
	 * Replaces the whole content with a fresh list (a relist), atomically for readers, and
	 * reports the difference. Objects whose key and resourceVersion are unchanged keep their
	 * cached instance. If the list holds a key twice, the later object wins.
	 * @param metas the metadata of the listed objects
	 * @param objects the listed objects, index for index with {@code metas}
	 * @return the difference between the previous content and the list
	 */
	public Diff<T> replace(List<ObjectMeta> metas, List<T> objects) {
		if (metas.size() != objects.size()) {
			throw new IllegalArgumentException(
					"metas and objects differ in size: " + metas.size() + " != " + objects.size());
		}
		this.writerMutex.lock();
		try {
			State<T> current = this.state;
			int n = metas.size();
			ConcurrentHashMap<String, Entry<T>> items = new ConcurrentHashMap<>(Math.max(16, (int) (n / 0.75f) + 1));
			List<Entry<T>> listed = new ArrayList<>(n);
			for (int i = 0; i < n; i++) {
				ObjectMeta meta = Objects.requireNonNull(metas.get(i), "meta must not be null");
				T object = Objects.requireNonNull(objects.get(i), "object must not be null");
				String key = meta.key();
				Entry<T> old = current.items.get(key);
				Entry<T> entry = (old != null && sameVersion(old.meta(), meta)) ? old : new Entry<>(meta, object);
				items.put(key, entry);
				listed.add(entry);
			}
			List<Entry<T>> added = new ArrayList<>();
			List<Update<T>> modified = new ArrayList<>();
			int unchanged = 0;
			HashMap<String, Object>[] indices = newIndices(this.indexNames.length);
			for (Entry<T> entry : listed) {
				String key = entry.key();
				if (items.get(key) != entry) {
					continue; // a later duplicate superseded it
				}
				String[][] values = indexValues(entry);
				for (int i = 0; i < values.length; i++) {
					for (String value : values[i]) {
						file(indices[i], value, key);
					}
				}
				Entry<T> old = current.items.get(key);
				if (old == null) {
					added.add(entry);
				}
				else if (old == entry) {
					unchanged++;
				}
				else {
					modified.add(new Update<>(old, entry));
				}
			}
			List<Entry<T>> deleted = new ArrayList<>();
			for (Map.Entry<String, Entry<T>> cached : current.items.entrySet()) {
				if (!items.containsKey(cached.getKey())) {
					deleted.add(cached.getValue());
				}
			}
			deleted.sort(Comparator.comparing(Entry::key));
			State<T> next = new State<>(items, indices);
			this.lock.writeLock().lock();
			try {
				this.state = next;
			}
			finally {
				this.lock.writeLock().unlock();
			}
			return new Diff<>(immutable(added), immutable(modified), immutable(deleted), unchanged);
		}
		finally {
			this.writerMutex.unlock();
		}
	}

	/**
	 * Marks the store as filled by the watch's first complete list; {@link #hasSynced()} then
	 * stays {@code true}.
	 */
	public void markSynced() {
		this.synced = true;
	}

	// ---------------------------------------------------------------- reads

	/**
	 * Whether {@link #markSynced()} was called.
	 * @return {@code true} once synced
	 */
	public boolean hasSynced() {
		return this.synced;
	}

	/**
	 * The object cached under a key. Takes no lock.
	 * @param key the key
	 * @return the object, or {@code null}
	 */
	public T get(String key) {
		Entry<T> entry = this.state.items.get(key);
		return (entry != null) ? entry.object() : null;
	}

	/**
	 * The entry (metadata and object) cached under a key. Takes no lock.
	 * @param key the key
	 * @return the entry, or {@code null}
	 */
	public Entry<T> entry(String key) {
		return this.state.items.get(key);
	}

	/**
	 * The metadata of the object cached under a key. Takes no lock.
	 * @param key the key
	 * @return the metadata, or {@code null}
	 */
	public ObjectMeta meta(String key) {
		Entry<T> entry = this.state.items.get(key);
		return (entry != null) ? entry.meta() : null;
	}

	/**
	 * The number of cached objects.
	 * @return the size
	 */
	public int size() {
		return this.state.items.size();
	}

	/**
	 * A snapshot of the cached keys.
	 * @return the keys, unmodifiable
	 */
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
	public Set<String> indexNames() {
		return this.indexNameSet;
	}

	/**
	 * The values of an index that have objects filed under them.
	 * @param indexName the index
	 * @return a snapshot of the values
	 * @throws IllegalArgumentException for an unknown index
	 */
	public Set<String> indexValues(String indexName) {
		int i = indexOf(indexName);
		this.lock.readLock().lock();
		try {
			return Set.copyOf(this.state.indices[i].keySet());
		}
		finally {
			this.lock.readLock().unlock();
		}
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
	 * The content: the map and, per index, value -> key (a {@code String} when a single key is
	 * filed under the value, else a {@code HashSet<String>}). The map is concurrent so that
	 * single-key reads need no lock; the indices are read under the read lock only. A relist
	 * builds a new State and swaps it in.
	 */
	private record State<T>(ConcurrentHashMap<String, Entry<T>> items, HashMap<String, Object>[] indices) {
	}

	@SuppressWarnings("unchecked")
	private static HashMap<String, Object>[] newIndices(int count) {
		HashMap<String, Object>[] indices = new HashMap[count];
		for (int i = 0; i < count; i++) {
			indices[i] = new HashMap<>();
		}
		return indices;
	}

	private String[][] indexValues(Entry<T> entry) {
		String[][] values = new String[this.indexNames.length][];
		String namespace = entry.meta().namespace();
		values[0] = new String[] { (namespace != null) ? namespace : "" };
		for (int i = 1; i < values.length; i++) {
			Collection<String> computed;
			try {
				computed = this.indexFunctions[i].values(entry.object(), entry.meta());
			}
			catch (RuntimeException ex) {
				throw new IllegalStateException(
						"Index function '" + this.indexNames[i] + "' failed for " + entry.key() + ": " + ex, ex);
			}
			values[i] = distinct(computed, i, entry);
		}
		return values;
	}

	private String[] distinct(Collection<String> computed, int index, Entry<T> entry) {
		if (computed == null || computed.isEmpty()) {
			return NO_VALUES;
		}
		String[] values = new String[computed.size()];
		int count = 0;
		for (String value : computed) {
			if (value == null) {
				throw new IllegalStateException(
						"Index function '" + this.indexNames[index] + "' returned a null value for " + entry.key());
			}
			if (!contains(values, count, value)) {
				values[count++] = value;
			}
		}
		return (count == values.length) ? values : java.util.Arrays.copyOf(values, count);
	}

	private static boolean contains(String[] values, String value) {
		return contains(values, values.length, value);
	}

	private static boolean contains(String[] values, int count, String value) {
		for (int i = 0; i < count; i++) {
			if (values[i].equals(value)) {
				return true;
			}
		}
		return false;
	}

	@SuppressWarnings("unchecked")
	private static void file(HashMap<String, Object> index, String value, String key) {
		Object current = index.get(value);
		if (current == null) {
			index.put(value, key);
		}
		else if (current instanceof String single) {
			if (!single.equals(key)) {
				HashSet<String> keys = new HashSet<>(4);
				keys.add(single);
				keys.add(key);
				index.put(value, keys);
			}
		}
		else {
			((HashSet<String>) current).add(key);
		}
	}

	@SuppressWarnings("unchecked")
	private static void unfile(HashMap<String, Object> index, String value, String key) {
		Object current = index.get(value);
		if (current instanceof String single) {
			if (single.equals(key)) {
				index.remove(value);
			}
		}
		else if (current != null) {
			HashSet<String> keys = (HashSet<String>) current;
			keys.remove(key);
			if (keys.size() == 1) {
				index.put(value, keys.iterator().next());
			}
			else if (keys.isEmpty()) {
				index.remove(value);
			}
		}
	}

	private int indexOf(String indexName) {
		for (int i = 0; i < this.indexNames.length; i++) {
			if (this.indexNames[i].equals(indexName)) {
				return i;
			}
		}
		throw new IllegalArgumentException(
				"No index named '" + indexName + "'; the indexes are " + this.indexNameSet);
	}

	private static boolean sameVersion(ObjectMeta cached, ObjectMeta listed) {
		String version = listed.resourceVersion();
		return version != null && !version.isEmpty() && version.equals(cached.resourceVersion());
	}

	private static <E> List<E> immutable(List<E> list) {
		return list.isEmpty() ? List.of() : Collections.unmodifiableList(list);
	}

	/** Objects filed under one value of one index; call under the read lock. */
	@SuppressWarnings("unchecked")
	private List<T> filed(State<T> current, int index, String value, LabelSelector selector) {
		Object filed = current.indices[index].get(value);
		if (filed == null) {
			return List.of();
		}
		if (filed instanceof String single) {
			T object = select(current, single, selector);
			return (object != null) ? List.of(object) : List.of();
		}
		HashSet<String> keys = (HashSet<String>) filed;
		List<T> objects = new ArrayList<>(keys.size());
		for (String key : keys) {
			T object = select(current, key, selector);
			if (object != null) {
				objects.add(object);
			}
		}
		return immutable(objects);
	}

	private T select(State<T> current, String key, LabelSelector selector) {
		Entry<T> entry = current.items.get(key);
		if (entry == null) {
			throw new IllegalStateException("Cache index names key " + key + " that the cache does not hold");
		}
		return selector.matches(entry.meta().labels()) ? entry.object() : null;
	}

	private List<T> listAll(LabelSelector selector) {
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

	private List<T> listFiled(int index, String value, LabelSelector selector) {
		this.lock.readLock().lock();
		try {
			return filed(this.state, index, value, selector);
		}
		finally {
			this.lock.readLock().unlock();
		}
	}

	private final class StoreLister implements Lister<T> {

		@Override
		public Optional<T> get(String namespace, String name) {
			return Optional.ofNullable(Store.this.get(ObjectMeta.key(namespace, name)));
		}

		@Override
		public Optional<T> get(String key) {
			return Optional.ofNullable(Store.this.get(key));
		}

		@Override
		public List<T> list() {
			return listAll(LabelSelector.everything());
		}

		@Override
		public List<T> list(String namespace) {
			return list(namespace, null);
		}

		@Override
		public List<T> list(String namespace, String labelSelector) {
			LabelSelector selector = LabelSelector.parse(labelSelector);
			if (namespace == null || namespace.isEmpty()) {
				return listAll(selector);
			}
			return listFiled(0, namespace, selector);
		}

		@Override
		public List<T> listByLabels(String labelSelector) {
			return listAll(LabelSelector.parse(labelSelector));
		}

		@Override
		public List<T> byIndex(String indexName, String indexedValue) {
			return listFiled(indexOf(indexName), indexedValue, LabelSelector.everything());
		}

		@Override
		public Set<String> indexNames() {
			return Store.this.indexNameSet;
		}

		@Override
		public int size() {
			return Store.this.size();
		}

		@Override
		public boolean hasSynced() {
			return Store.this.synced;
		}

		@Override
		public String toString() {
			return "Lister[" + Store.this.size() + " objects, indexes " + Store.this.indexNameSet + "]";
		}

	}

}
