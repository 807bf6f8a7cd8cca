package dev.listwatch.client;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Shares what repeats across the objects of one decoder: strings (namespaces, label keys
 * and values, kinds) and whole label sets (the Pods of one ReplicaSet), so that a cache
 * of many objects holds one copy of each. Bounded: once a pool holds {@value #POOL_LIMIT}
 * entries, new values are handed back as they are, unshared (a value already pooled is
 * still shared). Thread-safe.
 */
final class Interner {

	static final int POOL_LIMIT = 4096;

	/**
	 * Shares the strings that repeat across objects (namespaces, label keys and values,
	 * kinds).
	 */
	private final Map<String, String> pool = new ConcurrentHashMap<>();

	/** Shares the label sets that repeat across objects (the Pods of one ReplicaSet). */
	private final Map<Map<String, String>, Map<String, String>> labelPool = new ConcurrentHashMap<>();

	/**
	 * The shared instance of a string.
	 * @param value the string, or {@code null}
	 * @return an equal string, the same instance for equal strings while the pool has
	 * room; {@code null} for {@code null}
	 */
	@Nullable String intern(@Nullable String value) {
		if (value == null) {
			return null;
		}
		Map<String, String> pool = this.pool;
		String shared = pool.get(value);
		if (shared != null) {
			return shared;
		}
		if (pool.size() < POOL_LIMIT) {
			pool.putIfAbsent(value, value);
		}
		return value;
	}

	/**
	 * An object's labels as held: one immutable map for each set of labels that repeats.
	 * @param labels the labels read, or {@code null}
	 * @return an immutable map equal to them (empty for {@code null}), the same instance
	 * for equal label sets while the pool has room
	 */
	Map<String, String> labels(@Nullable Map<String, String> labels) {
		if (labels == null || labels.isEmpty()) {
			return Map.of();
		}
		// one immutable map for each set of labels that repeats (the Pods of one
		// ReplicaSet)
		Map<String, String> shared = this.labelPool.get(labels);
		if (shared == null) {
			shared = Map.copyOf(labels);
			if (this.labelPool.size() < POOL_LIMIT) {
				Map<String, String> raced = this.labelPool.putIfAbsent(shared, shared);
				shared = (raced != null) ? raced : shared;
			}
		}
		return shared;
	}

}
