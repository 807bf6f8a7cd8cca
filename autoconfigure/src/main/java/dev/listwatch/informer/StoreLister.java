package dev.listwatch.informer;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import dev.listwatch.Lister;
import dev.listwatch.ObjectMeta;
import org.jspecify.annotations.Nullable;

/**
 * The read-only view of a {@link Store} that applications get: a {@link Lister} made of
 * the store's reads, holding nothing of its own, so that it sees each write as soon as
 * the store publishes it. Its reads are the store's (a key without a lock, a list under
 * the read lock); lists are unmodifiable snapshots.
 * <p>
 * It reads through {@link Reads}, which the store implements: the store makes its view,
 * and the view does not depend on the store's class (as client-go's listers read through
 * an {@code Indexer}).
 *
 * @param <T> the Java type of the cached objects
 */
final class StoreLister<T> implements Lister<T> {

	private final Reads<T> store;

	/**
	 * Creates the view of a store.
	 * @param store the store's reads
	 */
	StoreLister(Reads<T> store) {
		this.store = store;
	}

	@Override
	public Optional<T> get(@Nullable String namespace, String name) {
		return Optional.ofNullable(this.store.get(ObjectMeta.key(namespace, name)));
	}

	@Override
	public Optional<T> get(String key) {
		return Optional.ofNullable(this.store.get(key));
	}

	@Override
	public List<T> list() {
		return this.store.listAll(LabelSelector.everything());
	}

	@Override
	public List<T> list(@Nullable String namespace) {
		return list(namespace, null);
	}

	@Override
	public List<T> list(@Nullable String namespace, @Nullable String labelSelector) {
		LabelSelector selector = LabelSelector.parse(labelSelector);
		if (namespace == null || namespace.isEmpty()) {
			return this.store.listAll(selector);
		}
		return this.store.listFiled(0, namespace, selector);
	}

	@Override
	public List<T> listByLabels(@Nullable String labelSelector) {
		return this.store.listAll(LabelSelector.parse(labelSelector));
	}

	@Override
	public List<T> byIndex(String indexName, String indexedValue) {
		return this.store.listFiled(this.store.indexOf(indexName), indexedValue, LabelSelector.everything());
	}

	@Override
	public Set<String> indexNames() {
		return this.store.indexNames();
	}

	@Override
	public Set<String> keys() {
		return this.store.keys();
	}

	@Override
	public int size() {
		return this.store.size();
	}

	@Override
	public boolean hasSynced() {
		return this.store.hasSynced();
	}

	@Override
	public String toString() {
		return "Lister[" + this.store.size() + " objects, indexes " + this.store.indexNames() + "]";
	}

	/**
	 * The reads of a store that its view is made of.
	 *
	 * @param <T> the Java type of the cached objects
	 */
	interface Reads<T> {

		/**
		 * The object cached under a key. Takes no lock.
		 * @param key the key
		 * @return the object, or {@code null}
		 */
		@Nullable T get(String key);

		/**
		 * The objects whose labels a selector matches.
		 * @param selector the selector
		 * @return the objects, unmodifiable, in no particular order
		 */
		List<T> listAll(LabelSelector selector);

		/**
		 * The objects filed under one value of one index whose labels a selector matches.
		 * @param index the index's position in {@link #indexNames()}, the namespace index
		 * being {@code 0}
		 * @param value the value
		 * @param selector the selector
		 * @return the objects, unmodifiable, in no particular order
		 */
		List<T> listFiled(int index, String value, LabelSelector selector);

		/**
		 * The position of an index in {@link #indexNames()}.
		 * @param indexName the index
		 * @return the position
		 * @throws IllegalArgumentException for an unknown index
		 */
		int indexOf(String indexName);

		/**
		 * The names of the indexes, the built-in namespace index first.
		 * @return the names, unmodifiable
		 */
		Set<String> indexNames();

		/**
		 * A snapshot of the cached keys.
		 * @return the keys, unmodifiable
		 */
		Set<String> keys();

		/**
		 * The number of cached objects.
		 * @return the size
		 */
		int size();

		/**
		 * Whether the watch has synced, as its status keeps it (see
		 * {@link Lister#hasSynced()}).
		 * @return {@code true} once synced
		 */
		boolean hasSynced();

	}

}
