package dev.listwatch;

import java.util.Collection;

import org.jspecify.annotations.Nullable;

/**
 * Computes the values under which an object is filed in one index of a watch's cache:
 * client-go's {@code IndexFunc}.
 * <p>
 * The cache calls the function on the thread that writes the cache (never on a reader),
 * once for each state of an object that is added or replaced; it remembers the values it
 * filed and unfiles exactly those when the object changes or goes. The function should be
 * fast, free of side effects, and must not read the cache it indexes. An object may be
 * filed under no value (an empty collection or {@code null}), one, or several; duplicates
 * are ignored.
 * <p>
 * If the function throws (a RuntimeException, a LinkageError, a StackOverflowError) or
 * returns a {@code null} element for an object, that object is cached all the same and
 * filed under no value of this index; the failure is counted and reported (the log, the
 * watch's health, the {@code listwatch} endpoint, the {@code listwatch.index.failures}
 * meter) with the index, the object's key and the exception's class, never its message.
 * The watch goes on.
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
	 * @return the values the object is filed under; empty or {@code null} for none; a
	 * {@code null} element is a failure, as described above
	 */
	@Nullable Collection<String> values(T object, ObjectMeta meta);

}
