package dev.listwatch.reflector;

import java.util.List;

import dev.listwatch.ObjectMeta;
import dev.listwatch.WatchEvent;

/**
 * Where a {@link Reflector} delivers what it learns, on its own thread, one call at a time and in
 * the order it learned it.
 *
 * @param <T> the Java type of the objects
 */
public interface ReflectorHandler<T> {

	/**
	 * The full state, after a list or the initial events of a streaming list: the handler makes its
	 * cache equal to it and reports the difference.
	 * @param metas the metadata of each object
	 * @param objects the objects, index for index
	 * @param initial whether this is the first sync of the watch (else a relist after 410)
	 */
	void replace(List<ObjectMeta> metas, List<T> objects, boolean initial);

	/**
	 * One change seen on the watch: ADDED, MODIFIED or DELETED.
	 * @param event the event
	 */
	void apply(WatchEvent<T> event);

}
