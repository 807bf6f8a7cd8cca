package dev.listwatch.informer;

import java.util.List;

import dev.listwatch.ObjectList.Item;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;

/**
 * Where a {@link Reflector} delivers what it learns, on its own thread, one call at a
 * time and in the order it learned it.
 *
 * @param <T> the Java type of the objects
 */
interface ReflectorHandler<T> {

	/**
	 * The full state, after a list or the initial events of a streaming list: the handler
	 * makes its cache equal to it and reports the difference. The objects in
	 * {@code unbindable} exist on the server but could not be held: the handler must not
	 * take them for deleted.
	 * @param items the objects with their metadata
	 * @param unbindable the listed objects that could not be held
	 * @param initial whether this is the first sync of the watch (else a relist)
	 */
	void replace(List<Item<T>> items, List<UnbindableObject> unbindable, boolean initial);

	/**
	 * One change seen on the watch: ADDED, MODIFIED or DELETED. An event whose object
	 * could not be held has a {@code null} object and {@link WatchEvent#unbindable()}
	 * set: for ADDED and MODIFIED the object still exists on the server.
	 * @param event the event
	 */
	void apply(WatchEvent<T> event);

	/**
	 * The reflector is about to wait for the server (or stops reading): what
	 * {@link #apply} held back to hand over in one go must go now.
	 */
	default void release() {
	}

}
