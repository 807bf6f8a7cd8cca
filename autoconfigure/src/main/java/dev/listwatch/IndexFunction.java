package dev.listwatch;

import java.util.Collection;

/**
 * Computes the values under which an object is filed in one index of a watch's cache: client-go's
 * {@code IndexFunc}.
 * <p>
 * The cache calls the function on the thread that writes the cache (never on a reader), once
 * for each object that is added or replaced and once more on the previous state of an object that
 * is changed or removed, to find where it was filed. The function must therefore be
 * <em>deterministic</em> (same object, same values), fast, free of side effects, and must not
 * read the cache it indexes. An object may be filed under no value (an empty collection or
 * {@code null}), one, or several; duplicates are ignored, {@code null} elements are not allowed.
 * <p>
 * If the function throws, the write that called it fails with that exception and the cache is
 * left as it was before the write.
 *
 * @param <T> the Java type of the watch's objects
 * @see WatchIndex
 * @see Lister#byIndex(String, String)
 */
@FunctionalInterface
public interface IndexFunction<T> {

	/**
	 * The index values of an object.
	 * @param object the object
	 * @param meta its metadata (namespace, name, labels, ...)
	 * @return the values the object is filed under; empty or {@code null} for none
	 */
	Collection<String> values(T object, ObjectMeta meta);

}
