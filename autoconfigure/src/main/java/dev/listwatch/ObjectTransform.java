package dev.listwatch;

import java.util.List;

/**
 * Reshapes or strips an object of a watch before it is cached and published: client-go's
 * {@code SetTransform}. Every object the watch takes in (watch events, lists, relists and
 * streaming lists alike) goes through the transform once; the cache, the lister and the
 * events hold only what it returns, and the old object of a MODIFIED event is the
 * transformed previous state.
 * <p>
 * The transform runs on the thread that writes the watch's cache, so it must be fast,
 * free of side effects, and must not read the cache. It must keep the object's metadata
 * name, namespace and resourceVersion: the cache keys the object by the metadata the
 * server sent, whatever the transform returns.
 * <p>
 * If the transform throws (a RuntimeException, a LinkageError, a StackOverflowError) or
 * returns {@code null} for an object, that object is handled as one the watch cannot hold
 * (see {@link UnbindableObject}): the cache keeps its last state (if any), no event is
 * published for it and it is never taken for deleted; the watch reports it with the
 * exception's class, never its message. The watch goes on.
 *
 * @param <T> the Java type of the watch's objects
 * @see WatchTransform
 */
@FunctionalInterface
public interface ObjectTransform<T> {

	/**
	 * Transforms one object.
	 * @param object the object as the server sent it
	 * @return the object to cache and publish
	 */
	T transform(T object);

	/**
	 * A transform of {@link KubernetesObject}s that keeps only some JSON paths (and
	 * {@code apiVersion}, {@code kind} and {@code metadata}, always), for example
	 * {@code spec.template}.
	 * @param paths dot-separated paths of object fields
	 * @return the transform
	 * @throws IllegalArgumentException when a path is empty or has an empty segment
	 */
	static ObjectTransform<KubernetesObject> keeping(List<String> paths) {
		return new JsonPathTransform(paths, true);
	}

	/**
	 * A transform of {@link KubernetesObject}s that drops some JSON paths, for example
	 * {@code status}; {@code metadata} and what it holds cannot be dropped.
	 * @param paths dot-separated paths of object fields
	 * @return the transform
	 * @throws IllegalArgumentException when a path is empty, has an empty segment, or is
	 * {@code metadata} or under it
	 */
	static ObjectTransform<KubernetesObject> dropping(List<String> paths) {
		return new JsonPathTransform(paths, false);
	}

}
