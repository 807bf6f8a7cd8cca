package dev.listwatch.reflector;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.ObjectMeta;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStream;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Keeps a {@link ReflectorHandler} in step with the API server: one list (or streaming list), then
 * a watch from its resourceVersion; after a dropped connection or a server timeout the watch
 * resumes from the last resourceVersion without a new list; after 410 Gone it relists and the
 * handler turns the difference into events. Failures wait out an exponential backoff with jitter
 * ({@code Retry-After} honoured). A watch that delivers nothing for the idle timeout is closed by
 * {@link #checkIdle(Instant)} and replaced.
 * <p>
 * {@link #run()} runs the loop on the calling thread until {@link #stop()}; the handler is called
 * on that thread only.
 *
 * @param <T> the Java type of the objects
 */
public final class Reflector<T> implements Runnable {

	private static final Log logger = LogFactory.getLog(Reflector.class);

	private static final Duration SHORT_WATCH = Duration.ofSeconds(1);

	private final String name;

	private final ListerWatcher<T> listerWatcher;

	private final ReflectorHandler<T> handler;

	private final ReflectorOptions options;

	private final Clock clock;

	private final RandomGenerator random;

	private final ReflectorStatus status;

	private final Backoff backoff;

	private final CountDownLatch stopped = new CountDownLatch(1);

	private volatile WatchStream<T> current;

	private volatile Instant lastActivity;

	private volatile boolean idleClosed;

	/** When the request under way (a list page or a watch being opened) was sent, or null. */
	private volatile Instant requestSince;

	/** The thread running the loop. */
	private volatile Thread runner;

	private String lastResourceVersion;

	/** Whether the watch being consumed delivered an event (or bookmark) before it ended. */
	private boolean watchDelivered;

	private boolean streamingUnsupported;

	private boolean synced;

	public Reflector(String name, ListerWatcher<T> listerWatcher, ReflectorHandler<T> handler, ReflectorOptions options,
			Clock clock, RandomGenerator random, ReflectorStatus status) {
		this.name = name;
		this.listerWatcher = listerWatcher;
		this.handler = handler;
		this.options = options;
		this.clock = clock;
		this.random = random;
		this.status = status;
		this.backoff = new Backoff(options.backoff(), clock, random);
		this.streamingUnsupported = !options.streamingList();
	}

	public ReflectorStatus status() {
		return this.status;
	}

	@Override
	public void run() {
		this.runner = Thread.currentThread();
		boolean needSync = true;
		boolean afterGone = false;
		int gonesInARow = 0;
		while (!isStopped()) {
			try {
				Instant watchStarted;
				if (needSync) {
					this.status.state(WatchState.SYNCING, this.clock.instant());
					WatchStream<T> stream = sync(afterGone);
					needSync = false;
					afterGone = false;
					this.status.state(WatchState.WATCHING, this.clock.instant());
					watchStarted = this.clock.instant();
					consume((stream != null) ? stream : openWatch());
				}
				else {
					watchStarted = this.clock.instant();
					consume(openWatch());
				}
				gonesInARow = 0;
				// it ended normally: only a watch that breaks may start the backoff over
				this.watchDelivered = false;
				if (isStopped()) {
					break;
				}
				boolean idle = this.idleClosed;
				this.status.restarted(idle ? "idle" : "ended");
				if (idle) {
					logger.warn("Watch " + this.name + " delivered nothing for " + this.options.idleTimeout()
							+ "; replacing it from resourceVersion " + this.lastResourceVersion);
				}
				else if (Duration.between(watchStarted, this.clock.instant()).compareTo(SHORT_WATCH) < 0) {
					// a watch that ends at once, again and again, must not become a tight loop
					pause(this.backoff.next(null));
				}
			}
			catch (KubernetesApiException ex) {
				if (isStopped()) {
					break;
				}
				if (ex.isGone()) {
					gonesInARow++;
					needSync = true;
					afterGone = true;
					this.status.relisted();
					this.status.restarted("expired");
					logger.info("Watch " + this.name + ": resourceVersion " + this.lastResourceVersion
							+ " is too old; relisting (" + ex.getMessage() + ")");
					if (gonesInARow > 1) {
						pause(this.backoff.next(null));
					}
					continue;
				}
				this.status.failed(ex);
				this.status.restarted((this.idleClosed && ex.kind() == Kind.CONNECTION) ? "idle" : reason(ex));
				this.idleClosed = false;
				if (ex.kind() == Kind.CONNECTION && this.watchDelivered) {
					// the watch had been delivering: the server is there, the connection broke (as
					// client-go, which resumes at once then). Start the backoff over, so that a network
					// that cuts watches now and then is not answered with ever longer waits
					this.backoff.reset();
				}
				this.watchDelivered = false;
				Duration delay = this.backoff.next(ex.retryAfter());
				String message = "Watch " + this.name + " failed, retrying in " + delay.toMillis() + " ms: "
						+ ex.getMessage();
				if (this.status.consecutiveFailures() <= 1) {
					logger.warn(message);
				}
				else {
					logger.debug(message);
				}
				pause(delay);
			}
			catch (RuntimeException ex) {
				if (isStopped()) {
					break;
				}
				this.status.failed(new KubernetesApiException(Kind.OTHER,
						"Watch " + this.name + " failed while handling an event: " + ex, ex));
				this.status.restarted("handler");
				logger.error("Watch " + this.name + " failed while handling an event; resyncing", ex);
				needSync = true;
				pause(this.backoff.next(null));
			}
		}
		this.status.state(WatchState.STOPPED, this.clock.instant());
	}

	/**
	 * Stops the loop and closes the open watch, if any, at once. Idempotent; any thread.
	 */
	public void stop() {
		this.stopped.countDown();
		WatchStream<T> stream = this.current;
		if (stream != null) {
			stream.close();
		}
	}

	/**
	 * Closes the open watch if it has delivered nothing since {@code now - idleTimeout}; the loop then
	 * resumes from the last resourceVersion. Any thread.
	 * @param now the time now
	 * @return whether the watch was closed
	 */
	public boolean checkIdle(Instant now) {
		Instant sent = this.requestSince;
		Thread thread = this.runner;
		if (sent != null && thread != null
				&& Duration.between(sent, now).compareTo(this.options.idleTimeout()) > 0) {
			// a request without an answer (a half-open connection): abandon it; the JDK client's
			// blocking calls end on an interrupt
			this.requestSince = null;
			this.idleClosed = true;
			thread.interrupt();
			return true;
		}
		WatchStream<T> stream = this.current;
		Instant last = this.lastActivity;
		if (stream != null && last != null
				&& Duration.between(last, now).compareTo(this.options.idleTimeout()) > 0) {
			this.idleClosed = true;
			stream.close();
			return true;
		}
		return false;
	}

	/**
	 * Fills the handler: a streaming list where served (returning the stream, now watching), else
	 * a paged list (returning {@code null}).
	 */
	private WatchStream<T> sync(boolean afterGone) {
		Instant start = this.clock.instant();
		if (!this.streamingUnsupported) {
			WatchStream<T> stream = streamingSync(afterGone, start);
			if (stream != null) {
				return stream;
			}
		}
		List<ObjectMeta> metas = new ArrayList<>();
		List<T> objects = new ArrayList<>();
		String resourceVersion = listAll(afterGone, metas, objects);
		this.status.listed(Duration.between(start, this.clock.instant()), objects.size());
		this.handler.replace(metas, objects, !this.synced);
		completeSync(resourceVersion, start, false);
		return null;
	}

	private String listAll(boolean afterGone, List<ObjectMeta> metas, List<T> objects) {
		ListOptions base = ListOptions.none()
			.withLabelSelector(this.options.labelSelector())
			.withFieldSelector(this.options.fieldSelector())
			// "0" lets the API server answer the first list from its watch cache; after 410 the
			// list must be fresh (consistent) instead
			.withResourceVersion((afterGone || this.lastResourceVersion != null) ? null : "0")
			.withLimit(this.options.pageSize());
		ListOptions options = base;
		String resourceVersion = null;
		while (true) {
			ObjectList<T> page;
			try {
				ListOptions pageOptions = options;
				page = request(() -> this.listerWatcher.list(pageOptions));
			}
			catch (KubernetesApiException ex) {
				if (ex.isGone() && options.continueToken() != null) {
					// the continue token expired mid-list: fall back to one full list
					logger.info("Watch " + this.name + ": list continue token expired; listing in one request");
					metas.clear();
					objects.clear();
					options = base.withLimit(null).withResourceVersion(null);
					resourceVersion = null;
					continue;
				}
				throw ex;
			}
			if (resourceVersion == null) {
				resourceVersion = page.resourceVersion();
			}
			metas.addAll(page.metas());
			objects.addAll(page.items());
			if (!page.hasMore() || isStopped()) {
				return resourceVersion;
			}
			// the continue token carries the list's resourceVersion; like client-go's pager, send
			// only the token
			options = options.withContinueToken(page.continueToken())
				.withResourceVersion(null)
				.withResourceVersionMatch(null);
		}
	}

	/**
	 * Opens a watch with {@code sendInitialEvents=true} and consumes the initial events up to the
	 * bookmark that ends them. Returns {@code null} (and remembers it) when the server refuses
	 * streaming lists.
	 */
	private WatchStream<T> streamingSync(boolean afterGone, Instant start) {
		ListOptions options = watchOptions().withSendInitialEvents(true)
			.withResourceVersionMatch(ListOptions.NOT_OLDER_THAN)
			.withResourceVersion(afterGone ? null : this.lastResourceVersion);
		WatchStream<T> stream;
		try {
			stream = request(() -> this.listerWatcher.watch(options));
		}
		catch (KubernetesApiException ex) {
			if (ex.kind() == Kind.BAD_REQUEST || ex.kind() == Kind.INVALID) {
				this.streamingUnsupported = true;
				logger.info("Watch " + this.name + ": the API server does not serve streaming lists ("
						+ ex.getMessage() + "); using list + watch");
				return null;
			}
			throw ex;
		}
		if (opened(stream)) {
			return stream;
		}
		Map<String, Integer> index = new LinkedHashMap<>();
		List<ObjectMeta> metas = new ArrayList<>();
		List<T> objects = new ArrayList<>();
		try {
			while (stream.hasNext()) {
				WatchEvent<T> event = stream.next();
				this.lastActivity = this.clock.instant();
				this.status.received(event.type(), this.lastActivity);
				switch (event.type()) {
					case ADDED, MODIFIED -> {
						if (event.object() == null) {
							unbindable(event);
							continue;
						}
						Integer at = index.putIfAbsent(event.meta().key(), objects.size());
						if (at == null) {
							metas.add(event.meta());
							objects.add(event.object());
						}
						else {
							metas.set(at, event.meta());
							objects.set(at, event.object());
						}
					}
					case DELETED -> {
						Integer at = index.remove(event.meta().key());
						if (at != null) {
							metas.set(at, null);
							objects.set(at, null);
						}
					}
					case BOOKMARK -> {
						if (event.initialEventsEnd()) {
							List<ObjectMeta> liveMetas = new ArrayList<>(index.size());
							List<T> liveObjects = new ArrayList<>(index.size());
							for (int i = 0; i < metas.size(); i++) {
								if (metas.get(i) != null) {
									liveMetas.add(metas.get(i));
									liveObjects.add(objects.get(i));
								}
							}
							this.status.listed(Duration.between(start, this.clock.instant()), liveObjects.size());
							this.handler.replace(liveMetas, liveObjects, !this.synced);
							completeSync(event.resourceVersion(), start, true);
							return stream;
						}
					}
					case ERROR -> throw KubernetesApiException.of("watch " + this.listerWatcher.resource(),
							event.status(), null);
				}
			}
		}
		catch (RuntimeException ex) {
			stream.close();
			throw ex;
		}
		// ended before the initial events did
		if (isStopped()) {
			return stream;
		}
		throw new KubernetesApiException(Kind.CONNECTION, "watch " + this.listerWatcher.resource()
				+ " ended before its initial events did", null);
	}

	private void completeSync(String resourceVersion, Instant start, boolean streaming) {
		this.lastResourceVersion = resourceVersion;
		this.status.resourceVersion(resourceVersion);
		this.synced = true;
		this.status.synced(this.clock.instant(), Duration.between(start, this.clock.instant()), streaming);
	}

	private WatchStream<T> openWatch() {
		ListOptions options = watchOptions().withResourceVersion(this.lastResourceVersion);
		WatchStream<T> stream = request(() -> this.listerWatcher.watch(options));
		opened(stream);
		return stream;
	}

	/**
	 * Makes a newly opened watch the current one, for {@link #stop()} and {@link #checkIdle}.
	 * @return whether the reflector was stopped meanwhile (the stream is then closed)
	 */
	private boolean opened(WatchStream<T> stream) {
		this.status.connected();
		this.current = stream;
		this.idleClosed = false;
		this.lastActivity = this.clock.instant();
		if (isStopped()) {
			stream.close();
			return true;
		}
		return false;
	}

	private ListOptions watchOptions() {
		long min = this.options.minWatchTimeout().toMillis();
		long max = Math.max(min, this.options.maxWatchTimeout().toMillis());
		long timeout = min + (long) (this.random.nextDouble() * (max - min));
		return ListOptions.none()
			.withLabelSelector(this.options.labelSelector())
			.withFieldSelector(this.options.fieldSelector())
			.withAllowWatchBookmarks(true)
			.withTimeout(Duration.ofMillis(timeout));
	}

	/** Hands the events of an open watch to the handler until it ends. */
	private void consume(WatchStream<T> stream) {
		this.watchDelivered = false;
		try (stream) {
			boolean first = true;
			while (stream.hasNext()) {
				WatchEvent<T> event = stream.next();
				this.watchDelivered = event.type() != WatchEvent.Type.ERROR;
				Instant now = this.clock.instant();
				this.lastActivity = now;
				this.status.received(event.type(), now);
				if (first) {
					first = false;
					this.status.healthy();
				}
				switch (event.type()) {
					case ADDED, MODIFIED, DELETED -> {
						if (event.object() != null || event.type() == WatchEvent.Type.DELETED) {
							this.handler.apply(event);
						}
						if (event.unbindable() != null) {
							unbindable(event);
						}
						this.lastResourceVersion = event.resourceVersion();
						this.status.resourceVersion(this.lastResourceVersion);
					}
					case BOOKMARK -> {
						this.lastResourceVersion = event.resourceVersion();
						this.status.resourceVersion(this.lastResourceVersion);
					}
					case ERROR -> throw KubernetesApiException.of("watch " + this.listerWatcher.resource(),
							event.status(), null);
				}
			}
		}
		finally {
			this.current = null;
		}
	}

	/** An object that does not bind to the Java type: reported, skipped, and the watch goes on. */
	private void unbindable(WatchEvent<T> event) {
		KubernetesApiException failure = new KubernetesApiException(Kind.DECODE,
				"Watch " + this.name + " skipped " + event.type() + " of " + event.meta().key() + ": "
						+ event.unbindable(),
				event.status(), null, null);
		this.status.failed(failure);
		logger.error(failure.getMessage());
	}

	private static String reason(KubernetesApiException ex) {
		return switch (ex.kind()) {
			case CONNECTION -> "disconnected";
			case DECODE -> "bad-data";
			case TOO_MANY_REQUESTS -> "throttled";
			case UNAUTHORIZED -> "unauthorized";
			case FORBIDDEN -> "forbidden";
			case SERVER_ERROR -> "server-error";
			default -> "error";
		};
	}

	/**
	 * Sends a request that {@link #checkIdle} abandons if it stays without an answer for the idle
	 * timeout.
	 */
	private <R> R request(java.util.function.Supplier<R> request) {
		this.requestSince = this.clock.instant();
		try {
			return request.get();
		}
		finally {
			this.requestSince = null;
			// an abandoned request leaves the interrupt set (the JDK client restores it); only
			// stop() ends the loop
			if (!isStopped()) {
				Thread.interrupted();
			}
		}
	}

	private void pause(Duration delay) {
		this.status.state(WatchState.BACKOFF, this.clock.instant());
		try {
			this.stopped.await(delay.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			// the watchdog's interrupt of an abandoned request may arrive late; it is not a stop
			if (isStopped()) {
				Thread.currentThread().interrupt();
			}
		}
		if (!isStopped()) {
			this.status.state(this.synced ? WatchState.WATCHING : WatchState.SYNCING, this.clock.instant());
		}
	}

	private boolean isStopped() {
		return this.stopped.getCount() == 0;
	}

	@Override
	public String toString() {
		return "Reflector[" + this.name + " " + this.listerWatcher.resource() + "]";
	}

}
