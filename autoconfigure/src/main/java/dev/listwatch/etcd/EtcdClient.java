package dev.listwatch.etcd;

import dev.listwatch.ListerWatcher;
import tools.jackson.databind.json.JsonMapper;

/**
 * The etcd client: makes a {@link ListerWatcher} per key prefix, so that an informer
 * keeps a cache of the keys under it, exactly as it keeps one of a Kubernetes resource
 * (see {@code EtcdListerWatcher}'s semantics in the package's lister-watchers: list = a
 * paged range read at one revision, watch = an etcd watch from the list's revision + 1,
 * progress notifications = bookmarks, a compacted revision = 410).
 * <p>
 * It speaks etcd's JSON gateway ({@code /v3/kv/range}, {@code /v3/watch},
 * {@code /v3/auth/authenticate}; served by etcd 3.x on its client URLs) over the JDK HTTP
 * client: no gRPC stack, the TLS material of an {@code SslBundle}, and every failure
 * surfaces to the reflector, whose backoff, resume and relist rules apply as for the API
 * server. It holds one HTTP client and its few threads; {@link #close()} releases them.
 * Thread-safe.
 */
public final class EtcdClient implements AutoCloseable {

	private final Gateway gateway;

	private final JsonMapper mapper;

	private EtcdClient(Gateway gateway, JsonMapper mapper) {
		this.gateway = gateway;
		this.mapper = mapper;
	}

	/**
	 * Makes a client; sends no request (a user name is authenticated on the first
	 * request).
	 * @param connection where etcd is and how to log in
	 * @param mapper the mapper that binds values to Java types
	 * @return the client; the caller owns it and closes it
	 */
	public static EtcdClient create(EtcdConnection connection, JsonMapper mapper) {
		return new EtcdClient(new Gateway(connection, mapper), mapper);
	}

	/**
	 * A lister-watcher of the keys under a prefix.
	 * @param <T> the Java type of the objects
	 * @param keyPrefix the prefix, for example {@code /config/}; a {@code /} is added
	 * when it does not end with one, so that {@code /config} does not take in
	 * {@code /configuration/x}
	 * @param type the Java type values are bound to
	 * ({@code dev.listwatch.KubernetesObject} keeps each value's JSON as it is)
	 * @param keepManagedFields whether {@code KubernetesObject}s keep
	 * {@code metadata.managedFields}
	 * @param maxValueBytes the largest value held; a larger one is reported as one that
	 * cannot be held
	 * @return the lister-watcher
	 * @throws IllegalArgumentException when the prefix is blank
	 */
	public <T> ListerWatcher<T> listerWatcher(String keyPrefix, Class<T> type, boolean keepManagedFields,
			int maxValueBytes) {
		String prefix = normalize(keyPrefix);
		return new EtcdListerWatcher<>(this.gateway, prefix,
				new ValueDecoder<>(prefix, type, this.mapper, keepManagedFields, maxValueBytes));
	}

	/**
	 * The prefix a lister-watcher uses for a declared key prefix: surrounding whitespace
	 * dropped, a {@code /} added at the end when missing.
	 * @param keyPrefix the declared prefix
	 * @return the prefix
	 * @throws IllegalArgumentException when it is blank
	 */
	public static String normalize(String keyPrefix) {
		if (keyPrefix == null || keyPrefix.isBlank()) {
			throw new IllegalArgumentException("the key prefix is blank: give one, e.g. /config/");
		}
		String prefix = keyPrefix.strip();
		return prefix.endsWith("/") ? prefix : prefix + "/";
	}

	/**
	 * Releases the HTTP client's threads; open watches break off. Idempotent.
	 */
	@Override
	public void close() {
		this.gateway.close();
	}

	@Override
	public String toString() {
		return "EtcdClient[" + this.gateway + "]";
	}

}
