package dev.listwatch;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The read-only view of one watch's local cache: the {@code <watch>Lister} bean,
 * client-go's {@code GenericLister} and {@code Indexer} read side.
 * <p>
 * <b>Consistency.</b> Every call sees the cache in a state it actually had: a change made
 * by the watch (one event, or a whole relist) is visible entirely or not at all, and the
 * objects a call returns agree with each other and with the indexes. Two calls may see
 * different states. The cache lags the API server by the watch's latency, and before
 * {@link #hasSynced()} it may hold only part of the initial list.
 * <p>
 * <b>Threads.</b> Any thread may call any method. Reads never wait for a network
 * operation; they wait at most for one in-memory change of the cache (a single object, or
 * the swap of a relisted content) to be applied. {@link #get(String)} does not wait at
 * all.
 * <p>
 * <b>Results.</b> Returned lists are unmodifiable snapshots, in no particular order; they
 * do not change when the cache changes afterwards. The objects in them are the cached
 * instances themselves, shared with every other reader and with event listeners: treat
 * them as immutable.
 * <p>
 * <b>Namespaces.</b> A {@code null} or empty namespace means all namespaces, except in
 * {@link #get(String, String)}, where it means a cluster-scoped object. Cluster-scoped
 * objects are filed under the empty namespace in the {@value WatchIndex#NAMESPACE} index.
 * <p>
 * <b>Selectors.</b> Label selectors use the Kubernetes syntax ({@code app=web},
 * {@code tier!=db}, {@code env in (prod,staging)}, {@code env notin (dev)}, {@code app},
 * {@code !canary}, joined by commas meaning AND); an empty or {@code null} selector
 * matches everything. A malformed selector throws {@link IllegalArgumentException} saying
 * where it is wrong.
 *
 * @param <T> the Java type of the watch's objects
 */
public interface Lister<T> {

	/**
	 * The object with the given namespace and name.
	 * @param namespace the namespace, {@code null} or empty for a cluster-scoped object
	 * @param name the name
	 * @return the cached object, or empty if the cache holds none with that key
	 */
	Optional<T> get(@Nullable String namespace, String name);

	/**
	 * The object with the given cache key.
	 * @param key {@code namespace/name}, or {@code name} for a cluster-scoped object
	 * @return the cached object, or empty if the cache holds none with that key
	 */
	Optional<T> get(String key);

	/**
	 * All cached objects.
	 * @return a snapshot of the cache's objects
	 */
	List<T> list();

	/**
	 * The cached objects of one namespace.
	 * @param namespace the namespace; {@code null} or empty for all namespaces
	 * @return a snapshot of the matching objects
	 */
	List<T> list(@Nullable String namespace);

	/**
	 * The cached objects of one namespace whose labels match a selector.
	 * @param namespace the namespace; {@code null} or empty for all namespaces
	 * @param labelSelector the label selector; {@code null} or empty for all
	 * @return a snapshot of the matching objects
	 * @throws IllegalArgumentException if the selector is malformed
	 */
	List<T> list(@Nullable String namespace, @Nullable String labelSelector);

	/**
	 * The cached objects, in all namespaces, whose labels match a selector.
	 * @param labelSelector the label selector; {@code null} or empty for all
	 * @return a snapshot of the matching objects
	 * @throws IllegalArgumentException if the selector is malformed
	 */
	List<T> listByLabels(@Nullable String labelSelector);

	/**
	 * The cached objects filed under a value of an index: the built-in
	 * {@value WatchIndex#NAMESPACE} index or one declared with a {@link WatchIndex}.
	 * @param indexName the index name
	 * @param indexedValue the value
	 * @return a snapshot of the objects filed under that value; empty if none
	 * @throws IllegalArgumentException if the cache has no index with that name
	 */
	List<T> byIndex(String indexName, String indexedValue);

	/**
	 * The names of the cache's indexes, the built-in {@value WatchIndex#NAMESPACE} index
	 * included.
	 * @return the index names, unmodifiable
	 */
	Set<String> indexNames();

	/**
	 * The keys of the cached objects ({@code namespace/name}, or {@code name} for a
	 * cluster-scoped object), as a snapshot: client-go's {@code ListKeys}.
	 * @return the keys, unmodifiable
	 */
	Set<String> keys();

	/**
	 * The number of cached objects.
	 * @return the size
	 */
	int size();

	/**
	 * Whether the cache has been filled by the watch's first complete list. It stays
	 * {@code true} afterwards, through reconnects and relists.
	 * @return {@code true} once synced
	 */
	boolean hasSynced();

}
