package dev.listwatch.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The JDK client's HTTP/2 to one API server, with what the JDK client leaves to its user
 * when every watch shares one connection:
 * <ul>
 * <li><b>One connection, not one per request that found none.</b> The JDK client opens a
 * connection for every request that finds none in its pool, and keeps only one of those
 * that were opened at once; the others live as long as their first stream, which for a
 * watch is minutes. So while no connection is known to be up, requests go one at a time
 * (each waits at most the connect timeout, then goes anyway) until one has its response:
 * then the connection is in the pool and the others share it.</li>
 * <li><b>A half-open connection is given up.</b> client-go pings an HTTP/2 connection
 * that has been silent for 30 s and closes it after 15 s more without an answer; the JDK
 * client sends no PING and has no API for one, so a half-open connection would take every
 * new stream too, and a watch that the watchdog replaced would be replaced on the same
 * dead connection. Here, when a response is closed before its end (the watchdog gives up
 * a silent watch, or a watch is stopped) or a request is given up while waiting for its
 * answer, one small request ({@code GET /livez}, with the credentials the last request
 * carried) is sent over its connection as the ping, one at a time. {@code /livez} is
 * answered by the server's health handler and, by kube-apiserver's suggested flow schema
 * {@code probes} (a GET of exactly {@code /healthz}, {@code /readyz} or {@code /livez},
 * any user), is exempt from API Priority and Fairness: it never queues behind the
 * client's own requests, as {@code /version} did. Without an answer (any status) within
 * {@link #PING_TIMEOUT} (client-go's HTTP/2 ping timeout), and with no byte received on
 * the connection within that time either (a connection that delivers bytes is alive,
 * however slowly the server answers the ping), later requests go to a new client, and so
 * to a new connection, and the requests still waiting for their answer on the old one
 * fail (to be sent again). Responses streaming on the old connection stay there until
 * they end or their watchdog gives them up: a false alarm costs a connection, not the
 * watches.</li>
 * <li><b>Past the server's stream limit.</b> The JDK client fails a request beyond the
 * server's {@code SETTINGS_MAX_CONCURRENT_STREAMS} ("too many concurrent streams", on
 * Java 17 as on 25) instead of opening another connection; such a request is sent again
 * on an HTTP/1.1 client of its own.</li>
 * </ul>
 * Thread-safe.
 */
final class Http2Pool {

	/**
	 * How long a ping may go unanswered, with no byte received on the connection, before
	 * the connection is given up: client-go's HTTP/2 health check gives a PING 15 s
	 * ({@code HTTP2_PING_TIMEOUT_SECONDS}). The API server answers {@code /livez} in
	 * milliseconds when it is well; a server under load may take seconds.
	 */
	static final Duration PING_TIMEOUT = Duration.ofSeconds(15);

	/**
	 * What a ping asks for: exempt from API Priority and Fairness by kube-apiserver's
	 * suggested flow schema {@code probes} (a GET of exactly {@code /healthz},
	 * {@code /readyz} or {@code /livez}).
	 */
	static final String PING_PATH = "/livez";

	private static final Log logger = LogFactory.getLog(Http2Pool.class);

	private final URI server;

	private final URI ping;

	private final AtomicInteger pings = new AtomicInteger();

	private final Supplier<HttpClient> http2;

	private final Supplier<HttpClient> http1;

	private final long gateWaitNanos;

	private final Duration pingTimeout;

	private final ReentrantLock gate = new ReentrantLock();

	private final AtomicReference<Generation> current;

	private final AtomicInteger overflowed = new AtomicInteger();

	private volatile @Nullable HttpClient overflow;

	private volatile boolean closed;

	/**
	 * The {@code Authorization} header the last request carried, for the ping: never
	 * logged, never in a string of this class.
	 */
	private volatile @Nullable String authorization;

	/**
	 * A pool over HTTP/2 clients.
	 * @param server the API server's base URL
	 * @param http2 makes a client that speaks HTTP/2 (a new one after a silent
	 * connection)
	 * @param http1 makes the HTTP/1.1 client of requests past the stream limit (made on
	 * first need)
	 * @param gateWait how long a request waits for another to open the connection
	 */
	Http2Pool(URI server, Supplier<HttpClient> http2, Supplier<HttpClient> http1, Duration gateWait) {
		this(server, http2, http1, gateWait, PING_TIMEOUT);
	}

	/**
	 * A pool over HTTP/2 clients, with a ping timeout of its own (for tests).
	 * @param server the API server's base URL
	 * @param http2 makes a client that speaks HTTP/2
	 * @param http1 makes the HTTP/1.1 client of requests past the stream limit
	 * @param gateWait how long a request waits for another to open the connection
	 * @param pingTimeout how long a ping may go unanswered
	 */
	Http2Pool(URI server, Supplier<HttpClient> http2, Supplier<HttpClient> http1, Duration gateWait,
			Duration pingTimeout) {
		this.server = server;
		this.ping = URI.create(server + PING_PATH);
		this.pingTimeout = pingTimeout;
		this.http2 = http2;
		this.http1 = http1;
		this.gateWaitNanos = gateWait.toNanos();
		this.current = new AtomicReference<>(new Generation(http2.get(), 0));
	}

	/**
	 * The client new requests go to.
	 * @return the current generation
	 */
	Generation current() {
		return Objects.requireNonNull(this.current.get(), "a pool always has a generation");
	}

	/**
	 * Remembers the {@code Authorization} header a request carries, so that a ping
	 * carries it too, as any request to the API server does (kube-apiserver's
	 * UnauthenticatedHTTP2DOSMitigation asks for an HTTP/2 connection to be closed after
	 * a request it takes for anonymous or refuses).
	 * @param value the header's value, or {@code null} when the request carried none
	 */
	void authorization(@Nullable String value) {
		if (value != null) {
			this.authorization = value;
		}
	}

	/**
	 * Waits, while the generation has no connection up, for the request that opens it.
	 * @param generation the generation the request goes to
	 * @return whether the caller holds the gate (then it calls {@link #leave})
	 * @throws InterruptedIOException when interrupted while waiting
	 */
	boolean enter(Generation generation) throws InterruptedIOException {
		if (generation.up) {
			return false;
		}
		boolean held;
		try {
			held = this.gate.tryLock(this.gateWaitNanos, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new InterruptedIOException("interrupted while waiting for the connection to the API server");
		}
		if (held && generation.up) {
			this.gate.unlock();
			return false;
		}
		return held;
	}

	/**
	 * Ends what {@link #enter} started.
	 * @param held what enter answered
	 */
	void leave(boolean held) {
		if (held) {
			this.gate.unlock();
		}
	}

	/**
	 * A response came over the generation's connection: it is in the client's pool. Logs,
	 * once per client, which version the server took.
	 * @param generation the generation
	 * @param version the response's HTTP version
	 */
	void connected(Generation generation, HttpClient.Version version) {
		generation.received();
		generation.up = true;
		if (!generation.logged && logger.isInfoEnabled()) {
			generation.logged = true;
			if (version == HttpClient.Version.HTTP_2) {
				logger.info("The API server " + this.server
						+ " speaks HTTP/2: every watch and request to it is a stream" + " of one connection"
						+ ((generation.number > 0) ? " (a new one: the last went silent)" : ""));
			}
			else {
				logger.info("The API server " + this.server + " did not take HTTP/2 (ALPN): HTTP/1.1, one connection"
						+ " per open watch");
			}
		}
	}

	/**
	 * A request or response of the generation failed: its connection may be gone, so the
	 * next requests open one one at a time.
	 * @param generation the generation
	 */
	void broken(Generation generation) {
		generation.up = false;
	}

	/**
	 * A response of the generation was closed before its end: pings its connection
	 * (unless a ping is under way), and gives it up (later requests go to a new client)
	 * when the ping goes unanswered.
	 * @param generation the generation
	 * @return the ping's outcome: whether the connection was given up; {@code false} at
	 * once when no ping was sent
	 */
	CompletableFuture<Boolean> closedEarly(Generation generation) {
		if (this.closed || generation != this.current.get() || !generation.pinging.compareAndSet(false, true)) {
			return CompletableFuture.completedFuture(false);
		}
		this.pings.incrementAndGet();
		Duration timeout = this.pingTimeout;
		HttpRequest.Builder builder = HttpRequest.newBuilder(this.ping).timeout(timeout).GET();
		String authorization = this.authorization;
		if (authorization != null) {
			builder.header("Authorization", authorization);
		}
		HttpRequest request = builder.build();
		CompletableFuture<Boolean> given;
		try {
			given = generation.client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
				.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
				.handle((response, failure) -> {
					generation.pinging.set(false);
					if (failure == null || (unwrap(failure) instanceof IOException io && refusedForStreams(io))) {
						// answered, or refused for the server's stream limit: the
						// connection is up, with as many streams as the server allows
						return false;
					}
					long silentNanos = System.nanoTime() - generation.lastReceived;
					if (silentNanos < timeout.toNanos()) {
						// a stream of the connection received bytes while the ping
						// waited: the connection is alive, the server slow to answer
						if (logger.isDebugEnabled()) {
							logger.debug("The ping of the HTTP/2 connection to " + this.server + " went unanswered for "
									+ timeout.toSeconds() + " s, but bytes arrived on it "
									+ TimeUnit.NANOSECONDS.toMillis(silentNanos) + " ms ago: kept");
						}
						return false;
					}
					return replace(generation);
				});
		}
		catch (RuntimeException ex) {
			// the transport is closed
			generation.pinging.set(false);
			return CompletableFuture.completedFuture(false);
		}
		return given;
	}

	private static Throwable unwrap(Throwable failure) {
		return (failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null)
				? failure.getCause() : failure;
	}

	private boolean replace(Generation generation) {
		if (this.closed) {
			return false;
		}
		try {
			if (!this.current.compareAndSet(generation, new Generation(this.http2.get(), generation.number + 1))) {
				return false;
			}
			// the requests waiting for an answer on it would wait forever: they fail
			// now, and are sent again on the new connection
			generation.aborts.forEach(Runnable::run);
			return true;
		}
		catch (RuntimeException ex) {
			// the transport is closed: nothing to replace
			return false;
		}
	}

	/**
	 * Stops pinging and replacing: the transport is closed.
	 */
	void close() {
		this.closed = true;
	}

	/**
	 * How many pings were sent (for tests).
	 * @return the count
	 */
	int pings() {
		return this.pings.get();
	}

	/**
	 * The HTTP/1.1 client for requests the HTTP/2 connection refused.
	 * @return the client, made on first call
	 */
	HttpClient overflow() {
		HttpClient client = this.overflow;
		if (client == null) {
			synchronized (this) {
				client = this.overflow;
				if (client == null) {
					client = this.http1.get();
					this.overflow = client;
				}
			}
		}
		this.overflowed.incrementAndGet();
		return client;
	}

	/**
	 * How many requests went to the HTTP/1.1 client (for tests).
	 * @return the count
	 */
	int overflowed() {
		return this.overflowed.get();
	}

	/**
	 * Whether a request failed because the connection has as many streams as the server
	 * allows.
	 * @param ex the failure
	 * @return whether the JDK client refused it for the stream limit
	 */
	static boolean refusedForStreams(IOException ex) {
		String message = ex.getMessage();
		return message != null && message.contains("too many concurrent streams");
	}

	/**
	 * Whether a request failed because its connection received a GOAWAY (Java 17's client
	 * fails every stream of such a connection, those the server answered too).
	 * @param ex the failure
	 * @return whether the connection went away
	 */
	static boolean goneAway(IOException ex) {
		String message = ex.getMessage();
		return message != null && message.contains("GOAWAY");
	}

	/**
	 * One HTTP/2 client and whether a connection of it is known to be up.
	 */
	static final class Generation {

		final HttpClient client;

		final int number;

		final AtomicBoolean pinging = new AtomicBoolean();

		/** Cancel the requests waiting for their answer on this client's connection. */
		final Set<Runnable> aborts = ConcurrentHashMap.newKeySet();

		volatile boolean up;

		volatile boolean logged;

		/** When bytes last arrived on the connection ({@link System#nanoTime()}). */
		volatile long lastReceived = System.nanoTime() - TimeUnit.DAYS.toNanos(1);

		Generation(HttpClient client, int number) {
			this.client = client;
			this.number = number;
		}

		/** Bytes arrived on the connection (response headers, or a body's buffers). */
		void received() {
			this.lastReceived = System.nanoTime();
		}

	}

}
