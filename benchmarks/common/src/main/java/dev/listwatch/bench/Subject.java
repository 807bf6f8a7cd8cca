package dev.listwatch.bench;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * One client under test: starts an informer with a handler and reads what the benchmarks
 * need from its objects. Implemented once per client, in that client's own JVM and
 * classpath.
 *
 * @param <T> the client's object type
 */
public interface Subject<T> {

	/**
	 * Where and what to inform on.
	 *
	 * @param server a plain-HTTP API server URL, or {@code null} to use
	 * {@code kubeconfig}
	 * @param kubeconfig a kubeconfig file (when {@code server} is {@code null})
	 * @param resource {@code pods} or {@code configmaps} (core v1)
	 * @param namespace the namespace, or {@code null} for all
	 * @param pageSize the list page size the client should ask for (if it can)
	 * @param namespaces a namespace set instead of {@code namespace} (one watch of each,
	 * as one informer where the client can), or empty
	 */
	record Target(String server, String kubeconfig, String resource, String namespace, long pageSize,
			List<String> namespaces) {

		public Target(String server, String kubeconfig, String resource, String namespace, long pageSize) {
			this(server, kubeconfig, resource, namespace, pageSize, List.of());
		}

	}

	/** A started informer. */
	interface Running extends AutoCloseable {

		/** Waits until the informer reports its initial list in its cache. */
		boolean awaitSynced(Duration timeout) throws Exception;

		/** Objects in the cache. */
		int cacheSize();

		@Override
		void close() throws Exception;

	}

	/** The client's name in the tables. */
	String name();

	/**
	 * Starts an informer whose handler calls {@code onUpsert} for every ADDED and
	 * MODIFIED notification (a no-op handler apart from that call).
	 */
	Running start(Target target, Consumer<T> onUpsert) throws Exception;

	String resourceVersion(T object);

	String name(T object);

	/** A label's value, or {@code null}. */
	String label(T object, String key);

}
