package dev.listwatch.informer;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import dev.listwatch.IndexFunction;
import dev.listwatch.ObjectMeta;
import dev.listwatch.WatchIndex;
import dev.listwatch.WatchStatus;
import org.jspecify.annotations.Nullable;

/**
 * The indexes of a {@link Store}, as client-go's {@code storeIndex} holds its indexers:
 * their names, the built-in {@value WatchIndex#NAMESPACE} index first (at {@code 0},
 * filed by the store from the metadata), then the user indexes (from {@code 1}) with
 * their functions. It calls the functions for an object, keeps what they file it under
 * ({@link IndexSlots}), records their failures, and files a key in the user indexes of a
 * set of {@link StoreIndex}es; the store's class description gives the contract (what a
 * failing function does to a write).
 * <p>
 * The names are fixed at construction. Everything else is called by the store's writers,
 * under its writer mutex, and filing under its write lock (or before it publishes the
 * indexes); the failure record is read from any thread.
 *
 * @param <T> the Java type of the indexed objects
 */
final class Indexers<T> {

	private static final String NULL_VALUE_ERROR = NullPointerException.class.getName();

	private final String[] names;

	private final IndexFunction<? super T>[] functions;

	/** The number of user indexes: the indexes after the built-in namespace index. */
	private final int userIndexes;

	private final Set<String> nameSet;

	/** Written by writers only, under the writer mutex. */
	private volatile long failures;

	/** Written by writers only, under the writer mutex, before {@link #failures}. */
	private volatile WatchStatus.@Nullable IndexFailure lastFailure;

	/**
	 * Creates the indexes of a store.
	 * @param indexes index functions by index name; the name
	 * {@value WatchIndex#NAMESPACE} is reserved
	 */
	@SuppressWarnings("unchecked")
	Indexers(Map<String, ? extends IndexFunction<? super T>> indexes) {
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
		this.names = ordered.keySet().toArray(new String[0]);
		this.functions = ordered.values().toArray(new IndexFunction[0]);
		this.userIndexes = this.names.length - 1;
		this.nameSet = Collections.unmodifiableSet(new LinkedHashSet<>(ordered.keySet()));
	}

	/**
	 * The index functions declared for one watch.
	 * @param <T> the Java type of the indexed objects
	 * @param watch the watch name
	 * @param declarations all index declarations; those of other watches are ignored
	 * @return the functions by index name, in declaration order
	 * @throws IllegalArgumentException if two declarations name the same index of this
	 * watch
	 */
	@SuppressWarnings("unchecked")
	static <T> Map<String, IndexFunction<? super T>> declaredFor(String watch,
			Collection<? extends WatchIndex<?>> declarations) {
		Map<String, IndexFunction<? super T>> indexes = new LinkedHashMap<>();
		for (WatchIndex<?> declaration : declarations) {
			if (declaration.watch().equals(watch)
					&& indexes.put(declaration.name(), (IndexFunction<? super T>) declaration.function()) != null) {
				throw new IllegalArgumentException(
						"Index '" + declaration.name() + "' of watch '" + watch + "' is declared more than once");
			}
		}
		return indexes;
	}

	/**
	 * The names of the indexes, the built-in {@value WatchIndex#NAMESPACE} index first.
	 * @return the names, unmodifiable
	 */
	Set<String> names() {
		return this.nameSet;
	}

	/**
	 * The position of an index.
	 * @param name the index
	 * @return the position, {@code 0} for the namespace index
	 * @throws IllegalArgumentException for an unknown index
	 */
	int indexOf(String name) {
		for (int i = 0; i < this.names.length; i++) {
			if (this.names[i].equals(name)) {
				return i;
			}
		}
		throw new IllegalArgumentException("No index named '" + name + "'; the indexes are " + this.nameSet);
	}

	/**
	 * New empty indexes, one per name, in order.
	 * @return the indexes
	 */
	StoreIndex[] newIndices() {
		StoreIndex[] indices = new StoreIndex[this.names.length];
		for (int i = 0; i < indices.length; i++) {
			indices[i] = new StoreIndex();
		}
		return indices;
	}

	// ---------------------------------------------------------------- index functions

	/**
	 * What an object is filed under in the user indexes, calling their functions; a
	 * failure is recorded and leaves the object under no value of that index. Under the
	 * writer mutex.
	 * @param object the object
	 * @param meta its metadata
	 * @param key its key
	 * @return what it is filed under (see {@link IndexSlots}); {@code null} without user
	 * indexes
	 */
	@Nullable Object filed(T object, ObjectMeta meta, String key) {
		Object filed = null;
		for (int i = 1; i <= this.userIndexes; i++) {
			filed = IndexSlots.with(filed, i, this.userIndexes, slot(i, object, meta, key));
		}
		return filed;
	}

	/** The slot of an object in one user index, a failure recorded. */
	private @Nullable Object slot(int index, T object, ObjectMeta meta, String key) {
		try {
			Object slot = IndexSlots.of(this.functions[index].values(object, meta));
			return IndexSlots.isFailed(slot) ? failed(index, key, NULL_VALUE_ERROR) : slot;
		}
		catch (RuntimeException | LinkageError | StackOverflowError ex) {
			// the class name only: a message may hold values of the object
			return failed(index, key, ex.getClass().getName());
		}
	}

	/** Records a failure; under the writer mutex. */
	private Object failed(int index, String key, String error) {
		this.lastFailure = new WatchStatus.IndexFailure(this.names[index], key, error);
		this.failures = this.failures + 1; // after the failure, for readers of both
		return IndexSlots.failed();
	}

	/**
	 * Whether a function failed for an object (which a relist then calls again).
	 * @param filed what the object is filed under
	 * @return {@code true} if one of the user indexes failed for it
	 */
	boolean hasFailure(@Nullable Object filed) {
		return IndexSlots.hasFailure(filed, this.userIndexes);
	}

	/**
	 * How many times a user index function failed for an object since the indexes were
	 * created.
	 * @return the count
	 */
	long failures() {
		return this.failures;
	}

	/**
	 * The latest failure of a user index function.
	 * @return the failure, or {@code null} if none failed
	 */
	WatchStatus.@Nullable IndexFailure lastFailure() {
		return this.lastFailure;
	}

	// ---------------------------------------------------------------- filing in the user
	// indexes

	/**
	 * Files a key in the user indexes under what its object is filed under.
	 * @param indices the indexes, as made by {@link #newIndices()}
	 * @param filed what the object is filed under
	 * @param key the key
	 */
	void file(StoreIndex[] indices, @Nullable Object filed, String key) {
		for (int i = 1; i <= this.userIndexes; i++) {
			indices[i].fileSlot(IndexSlots.slot(filed, i, this.userIndexes), key);
		}
	}

	/**
	 * Unfiles a key from the user indexes: from what its object was filed under.
	 * @param indices the indexes
	 * @param filed what the object was filed under
	 * @param key the key
	 */
	void unfile(StoreIndex[] indices, @Nullable Object filed, String key) {
		for (int i = 1; i <= this.userIndexes; i++) {
			indices[i].unfileSlot(IndexSlots.slot(filed, i, this.userIndexes), key);
		}
	}

	/**
	 * Moves a key in the user indexes from what the previous state of its object was
	 * filed under to what the new state is: out of the values it left, into those it
	 * gained.
	 * @param indices the indexes
	 * @param before what the previous state was filed under ({@code null} for no previous
	 * state)
	 * @param after what the new state is filed under
	 * @param key the key
	 */
	void refile(StoreIndex[] indices, @Nullable Object before, @Nullable Object after, String key) {
		for (int i = 1; i <= this.userIndexes; i++) {
			indices[i].refile(IndexSlots.slot(before, i, this.userIndexes), IndexSlots.slot(after, i, this.userIndexes),
					key);
		}
	}

}
