package dev.listwatch;

/**
 * Lists and watches one kind of resource, in one namespace or in all: client-go's
 * {@code ListerWatcher}, the seed of every informer.
 * <p>
 * Implementations are thread-safe; each call is one request to the API server. Failures
 * are thrown as {@link KubernetesApiException} (or a subclass for the HTTP status), never
 * as a bare I/O exception.
 *
 * @param <T> the Java type the objects are bound to
 */
public interface ListerWatcher<T> {

	/**
	 * Lists one page.
	 * @param options selectors, paging and resourceVersion of the request
	 * @return the page, with its resourceVersion and continue token
	 */
	ObjectList<T> list(ListOptions options);

	/**
	 * Opens a watch. The connection stays open until the server ends it or the returned
	 * stream is closed.
	 * @param options selectors, the resourceVersion to start from, bookmarks and timeout
	 * @return the open stream
	 */
	WatchStream<T> watch(ListOptions options);

	/**
	 * What this lister-watcher lists and watches.
	 * @return the resource
	 */
	Resource resource();

}
