package dev.listwatch.etcd;

import java.time.Duration;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.listwatch.ListerWatcher;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.util.ClassUtils;

/**
 * The etcd client: makes a {@link ListerWatcher} per key prefix, so that an informer
 * keeps a cache of the keys under it, exactly as it keeps one of a Kubernetes resource
 * (see {@code EtcdListerWatcher}'s semantics in the package's lister-watchers: list = a
 * paged range read at one revision, watch = an etcd watch from the list's revision + 1,
 * progress notifications = bookmarks, a compacted revision = 410).
 * <p>
 * It speaks etcd's native gRPC API ({@code KV/Range}, {@code Watch/Watch},
 * {@code Auth/Authenticate}) when grpc-java and one of its transports (for example
 * {@code io.grpc:grpc-netty-shaded}) are on the class path, else etcd's JSON gateway
 * ({@code /v3/kv/range}, {@code /v3/watch}, {@code /v3/auth/authenticate}; served by etcd
 * 3.x on its client URLs) over the JDK HTTP client (see {@link Protocol}); both with the
 * TLS material of an {@code SslBundle}, the same semantics, and every failure surfacing
 * to the reflector, whose backoff, resume and relist rules apply as for the API server. A
 * watch that has heard nothing from etcd for 30 s asks etcd for progress on the open
 * watch, again 30 s later, and is given up after 90 s of silence, as a dead (half-open)
 * connection: the reflector resumes it from its last revision, without a relist. A watch
 * of a quiet prefix is answered each time with etcd's revision, so it moves on with
 * etcd's and stays open. It holds its connections and their threads; {@link #close()}
 * releases them. Thread-safe.
 */
public final class EtcdClient implements AutoCloseable {

	private static final String GRPC_CLASS = "io.grpc.ManagedChannelProvider";

	private static final AtomicInteger clients = new AtomicInteger();

	private final Transport transport;

	private final JsonMapper mapper;

	/** Reads the next page of a list while the informer files the one before. */
	private final ThreadPoolExecutor prefetcher;

	/** Finds watches whose connection died without a word. */
	private final WatchLiveness liveness;

	private EtcdClient(Transport transport, JsonMapper mapper, Duration watchTimeout) {
		this.transport = transport;
		this.mapper = mapper;
		this.liveness = new WatchLiveness(watchTimeout);
		String prefix = "listwatch-etcd-prefetch-" + clients.incrementAndGet() + "-";
		AtomicInteger count = new AtomicInteger();
		this.prefetcher = new ThreadPoolExecutor(0, 4, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), (runnable) -> {
			Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * How the client reaches etcd.
	 */
	public enum Protocol {

		/**
		 * gRPC when grpc-java and a transport for it are on the class path, else the JSON
		 * gateway.
		 */
		AUTO,

		/**
		 * etcd's native gRPC API: needs grpc-java and a transport for it (for example
		 * {@code io.grpc:grpc-netty-shaded}) on the class path. About 5x less etcd CPU
		 * per watch event than the gateway (see the README).
		 */
		GRPC,

		/**
		 * etcd's JSON gateway over the JDK HTTP client: no extra dependency.
		 */
		GATEWAY

	}

	/**
	 * Makes a client that uses gRPC when it can ({@link Protocol#AUTO}); sends no request
	 * (a user name is authenticated on the first request).
	 * @param connection where etcd is and how to log in
	 * @param mapper the mapper that binds values to Java types
	 * @return the client; the caller owns it and closes it
	 */
	public static EtcdClient create(EtcdConnection connection, JsonMapper mapper) {
		return create(connection, mapper, Protocol.AUTO);
	}

	/**
	 * Makes a client; sends no request (a user name is authenticated on the first
	 * request).
	 * @param connection where etcd is and how to log in
	 * @param mapper the mapper that binds values to Java types
	 * @param protocol how to reach etcd
	 * @return the client; the caller owns it and closes it
	 * @throws IllegalStateException when {@link Protocol#GRPC} is asked for and gRPC is
	 * not on the class path
	 */
	public static EtcdClient create(EtcdConnection connection, JsonMapper mapper, Protocol protocol) {
		return create(connection, mapper, protocol, WatchLiveness.DEFAULT_TIMEOUT);
	}

	/**
	 * Makes a client whose watches are given up after another silence than the default
	 * (the auto-configuration gives {@code listwatch.defaults.idle-timeout}).
	 * @param connection where etcd is and how to log in
	 * @param mapper the mapper that binds values to Java types
	 * @param protocol how to reach etcd
	 * @param watchTimeout how long a watch may stay silent while its reader waits, its
	 * progress requests (one after each third of it) unanswered, before it is given up as
	 * a dead connection; at least 3 ms
	 * @return the client; the caller owns it and closes it
	 * @throws IllegalStateException when {@link Protocol#GRPC} is asked for and gRPC is
	 * not on the class path
	 * @throws IllegalArgumentException when the timeout is below 3 ms
	 */
	public static EtcdClient create(EtcdConnection connection, JsonMapper mapper, Protocol protocol,
			Duration watchTimeout) {
		if (watchTimeout.toMillis() < 3) {
			throw new IllegalArgumentException("the watch timeout must be at least 3 ms, not " + watchTimeout);
		}
		boolean grpc = switch (protocol) {
			case GATEWAY -> false;
			case AUTO -> grpcAvailable();
			case GRPC -> {
				if (!grpcAvailable()) {
					throw new IllegalStateException("etcd over gRPC needs grpc-java and a transport for it on the "
							+ "class path: add io.grpc:grpc-netty-shaded (or grpc-okhttp)");
				}
				yield true;
			}
		};
		Transport transport = grpc ? GrpcTransport.create(connection) : new Gateway(connection, mapper);
		return new EtcdClient(transport, mapper, watchTimeout);
	}

	/**
	 * Whether etcd can be reached over gRPC: grpc-java and a transport for it are on the
	 * class path.
	 * @return whether it can
	 */
	public static boolean grpcAvailable() {
		return ClassUtils.isPresent(GRPC_CLASS, EtcdClient.class.getClassLoader()) && GrpcTransport.available();
	}

	/**
	 * How long a watch may stay silent while its reader waits, its progress requests
	 * unanswered, before it is given up as a dead connection.
	 * @return the timeout (90 s unless the client was made with another)
	 */
	public Duration watchTimeout() {
		return this.liveness.timeout();
	}

	/**
	 * The protocol this client speaks.
	 * @return {@link Protocol#GRPC} or {@link Protocol#GATEWAY}
	 */
	public Protocol protocol() {
		return (this.transport instanceof Gateway) ? Protocol.GATEWAY : Protocol.GRPC;
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
		return new EtcdListerWatcher<>(this.transport, this.prefetcher, prefix,
				new ValueDecoder<>(prefix, type, this.mapper, keepManagedFields, maxValueBytes), this.liveness);
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
	 * Releases the connections and their threads; open watches break off. Idempotent.
	 */
	@Override
	public void close() {
		this.prefetcher.shutdownNow();
		this.liveness.close();
		this.transport.close();
	}

	@Override
	public String toString() {
		return "EtcdClient[" + this.transport + "]";
	}

}
