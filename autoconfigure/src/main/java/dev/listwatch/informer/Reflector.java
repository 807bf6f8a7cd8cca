package dev.listwatch.informer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList.Item;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus.State;
import dev.listwatch.WatchStream;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Keeps a {@link ReflectorHandler} in step with the API server: one list (or streaming
 * list), then a watch from its resourceVersion; after a dropped connection or a server
 * timeout the watch resumes from the last resourceVersion without a new list; after 410
 * Gone it relists and the handler turns the difference into events. Failures wait out an
 * exponential backoff with jitter ({@code Retry-After} honoured, up to the longest
 * delay). A watch that delivers nothing for the idle timeout is closed by
 * {@link #checkIdle()} and replaced.
 * <p>
 * Failure paths, each one bounded: an object the watch cannot hold (it does not bind to
 * the Java type, or is too large) is handed to the handler as an
 * {@link dev.listwatch.UnbindableObject}, never dropped from a list; how the loop goes on
 * after any other failure (resume, relist, resync, at once or after the backoff) is
 * {@link Restarts}' decision; a streaming list that fails falls back to a paged list
 * ({@link StreamingLists}); an {@link Error} on the loop's thread (OutOfMemoryError, a
 * LinkageError from user code) marks the watch {@link State#FAILED} until a sync
 * completes; a refusal under {@link InformerOptions.OnRefusal#FAIL} ends the loop.
 * <p>
 * {@link #run()} runs the loop on the calling thread until {@link #stop()}; the handler
 * is called on that thread only, never with part of a list. A call that had begun when
 * {@code stop()} was called may still run to its end: a handler that must not be written
 * after a stop guards itself (the informer does).
 *
 * @param <T> the Java type of the objects
 */
final class Reflector<T> implements Runnable {

	private static final Log logger = LogFactory.getLog(Reflector.class);

	private final String name;

	private final ListerWatcher<T> listerWatcher;

	private final ReflectorHandler<T> handler;

	private final InformerOptions options;

	private final Ticker ticker;

	private final RandomGenerator random;

	private final ReflectorStatus status;

	private final Backoff backoff;

	/** Decides how the loop goes on after each turn. */
	private final Restarts restarts;

	private final RestartLog restartLog;

	private final CountDownLatch stopped = new CountDownLatch(1);

	/** Gives up a stream silent, or a request unanswered, for the idle timeout. */
	private final Watchdog<T> watchdog;

	private @Nullable String lastResourceVersion;

	/**
	 * Whether the watch being consumed delivered an event (or bookmark) before it ended.
	 */
	private boolean watchDelivered;

	/**
	 * Whether the loop is reading an open stream (so a failure now happened after the
	 * server answered).
	 */
	private boolean reading;

	/** Whether its syncs try streaming lists. */
	private final StreamingLists streaming;

	/**
	 * Whether this run holds a resourceVersion of a whole list (its own, or one to resume
	 * from).
	 */
	private boolean listed;

	/**
	 * The resourceVersion the handler's cache is at when this run must list first all the
	 * same (see {@link #relistNoOlderThan}), or {@code null}: its first list is then no
	 * older than it.
	 */
	private @Nullable String cachedResourceVersion;

	/** Whether the next turn must sync (list) first; read by the informer at a stop. */
	private volatile boolean needSync = true;

	/** Whether the last stream to end was held open ({@link ReflectorStatus#HELD}). */
	private boolean lastStreamHeld;

	/**
	 * Whether an {@link Error} struck the loop and no sync has completed since: the watch
	 * is FAILED.
	 */
	private boolean fatal;

	/**
	 * Makes a reflector.
	 * @param name the watch's name, for logs
	 * @param listerWatcher what lists and watches
	 * @param handler where what is learned goes
	 * @param options how to list and watch
	 * @param ticker the monotonic time source (idle watches, backoff)
	 * @param random the source of jitter and watch timeouts
	 * @param status where the reflector reports about itself
	 */
	Reflector(String name, ListerWatcher<T> listerWatcher, ReflectorHandler<T> handler, InformerOptions options,
			Ticker ticker, RandomGenerator random, ReflectorStatus status) {
		this.name = name;
		this.listerWatcher = listerWatcher;
		this.handler = handler;
		this.options = options;
		this.ticker = ticker;
		this.random = random;
		this.status = status;
		this.backoff = new Backoff(options.backoff(), ticker, random);
		this.restarts = new Restarts(options.onRefusal());
		this.restartLog = new RestartLog(name, options.idleTimeout());
		this.watchdog = new Watchdog<>(ticker, options.idleTimeout().toNanos(), this::isStopped);
		this.streaming = new StreamingLists(name, options.streamingList());
	}

	public ReflectorStatus status() {
		return this.status;
	}

	/**
	 * @return the watch's name in logs (with its namespace, for one of a namespace set)
	 */
	String name() {
		return this.name;
	}

	/**
	 * Makes {@link #run()} resume with a watch from {@code resourceVersion} instead of
	 * listing first: for a handler whose cache is whole up to it (a watch started again
	 * after a stop). A resourceVersion too old by now ends in 410 and a relist, as any
	 * resume does. Call before {@code run()}.
	 * @param resourceVersion the resourceVersion the handler's cache is at, or
	 * {@code null} to list
	 */
	public void resumeFrom(@Nullable String resourceVersion) {
		this.lastResourceVersion = resourceVersion;
		this.listed = resourceVersion != null;
	}

	/**
	 * Makes {@link #run()} list first, as without {@link #resumeFrom}, but no older than
	 * the resourceVersion the handler's cache is at: for a cache that is whole up to it
	 * yet must be resynced (a watch started again after a stop with a resync pending). A
	 * list from any freshness ({@code resourceVersion=0}) could be served by an API
	 * server whose watch cache lags behind the one this cache came from (an HA control
	 * plane), and its difference would move objects back in time; as client-go relists
	 * from its last synced resourceVersion, the list asks for
	 * {@code resourceVersionMatch=NotOlderThan}. Call before {@code run()}.
	 * @param resourceVersion the resourceVersion the cache is at, or {@code null}
	 */
	public void relistNoOlderThan(@Nullable String resourceVersion) {
		this.cachedResourceVersion = resourceVersion;
	}

	/**
	 * Whether the loop, had it gone on, would have listed first: after a failure of the
	 * handler or an {@link Error}, whose resync a later start must not skip. Any thread.
	 * @return whether a resync is pending
	 */
	public boolean needsResync() {
		return this.needSync;
	}

	@Override
	public void run() {
		this.status.claim(this);
		this.watchdog.bindReader();
		this.needSync = this.lastResourceVersion == null;
		if (!this.needSync) {
			state(State.WATCHING);
		}
		boolean afterGone = false;
		while (!isStopped()) {
			this.reading = false;
			this.lastStreamHeld = false;
			Restarts.Restart restart;
			try {
				long watchStarted;
				if (this.needSync) {
					state(State.SYNCING);
					WatchStream<T> stream = sync(afterGone);
					this.needSync = false;
					afterGone = false;
					this.status.state(State.WATCHING);
					watchStarted = this.ticker.nanoTime();
					consume((stream != null) ? stream : openWatch());
				}
				else {
					watchStarted = this.ticker.nanoTime();
					consume(openWatch());
				}
				if (isStopped()) {
					break;
				}
				restart = this.restarts.ended(turn(), since(watchStarted), this.name);
			}
			catch (Stopped ex) {
				break;
			}
			catch (HandlerFailure ex) {
				if (isStopped()) {
					break;
				}
				logger.error("Watch " + this.name + " failed while handling an event; resyncing", ex.getCause());
				restart = this.restarts.handlerFailed(new KubernetesApiException(Kind.OTHER,
						"Watch " + this.name + " failed while handling an event: " + ex.getCause(), ex.getCause()));
			}
			catch (KubernetesApiException ex) {
				if (isStopped()) {
					break;
				}
				restart = this.restarts.failed(ex, turn());
			}
			catch (RuntimeException ex) {
				if (isStopped()) {
					break;
				}
				// a lister-watcher that threw something other than its documented
				// exception: a request failure all the same, not a reason to relist
				restart = this.restarts.failed(
						new KubernetesApiException(Kind.OTHER, "Watch " + this.name + ": "
								+ this.listerWatcher.resource() + " request failed: " + ex.getClass().getName(), ex),
						turn());
			}
			catch (Error ex) {
				if (isStopped()) {
					break;
				}
				this.fatal = true;
				this.status.fatal(ex);
				logger.error("Watch " + this.name + " failed with " + ex.getClass().getName()
						+ "; it is FAILED until a resync succeeds", ex);
				restart = this.restarts.fatal();
			}
			if (restart.next() == Restarts.Next.FAIL) {
				// a refusal retrying will not mend (on-refusal: fail): FAILED, not
				// STOPPED
				this.status.refused(Objects.requireNonNull(restart.error(), "a refusal has its error"),
						restart.reason());
				this.restartLog.restarted(restart, null, this.lastResourceVersion, this.status.consecutiveFailures());
				return;
			}
			if (restart.next() != Restarts.Next.GO_ON) {
				this.needSync = true;
				afterGone |= restart.next() == Restarts.Next.RELIST;
			}
			restart(restart);
		}
		this.status.stopped(this);
	}

	/** What the loop knows as a turn ends. */
	private Restarts.Turn turn() {
		return new Restarts.Turn(this.needSync, this.reading, this.lastStreamHeld, this.watchDelivered,
				this.watchdog.fired(), this.lastResourceVersion);
	}

	/** Reports a turn's end as decided, and waits out the backoff when it says so. */
	private void restart(Restarts.Restart restart) {
		if (restart.held()) {
			this.status.streamHeld();
		}
		KubernetesApiException error = restart.error();
		if (restart.failing() && error != null) {
			this.status.failed(error, restart.reason(), restart.afterConnect());
		}
		this.status.restarted(restart.reason());
		if (restart.what() == Restarts.What.GONE) {
			this.status.relisted();
		}
		this.watchdog.clear();
		this.watchDelivered = false;
		if (restart.resetsBackoff()) {
			this.backoff.reset();
		}
		Duration delay = null;
		if (restart.backsOff()) {
			delay = this.backoff.next((restart.failing() && error != null) ? error.retryAfter() : null);
		}
		this.restartLog.restarted(restart, delay, this.lastResourceVersion, this.status.consecutiveFailures());
		if (delay != null) {
			pause(delay);
		}
	}

	/**
	 * Stops the loop: closes the open watch and aborts a request in flight (a list page,
	 * a watch being opened) at once, so the loop's thread ends promptly. Idempotent; any
	 * thread; does not wait for the loop to end.
	 */
	public void stop() {
		this.stopped.countDown();
		this.watchdog.abort();
	}

	/**
	 * Closes the open watch if it has delivered nothing for the idle timeout, and
	 * abandons a request left unanswered for as long; the loop then resumes from the last
	 * resourceVersion. Measured on the monotonic ticker. Any thread.
	 * @return whether a watch was closed or a request abandoned
	 */
	public boolean checkIdle() {
		return this.watchdog.check();
	}

	/**
	 * Fills the handler: a streaming list where served (returning the stream, now
	 * watching), else a paged list (returning {@code null}). A streaming list that fails
	 * in any way falls back to a paged list at once.
	 */
	private @Nullable WatchStream<T> sync(boolean afterGone) {
		long start = this.ticker.nanoTime();
		if (this.streaming.tried()) {
			try {
				WatchStream<T> stream = streamingSync(afterGone, start);
				if (stream != null) {
					this.streaming.completed();
					return stream;
				}
			}
			catch (Stopped | HandlerFailure ex) {
				throw ex;
			}
			catch (KubernetesApiException ex) {
				if (isStopped()) {
					throw new Stopped();
				}
				if (!this.reading && ex.kind() != Kind.DECODE && ex.kind() != Kind.OTHER
						&& ex.kind() != Kind.CONFLICT) {
					// the server cannot be reached or refuses (throttled, 5xx,
					// credentials): a list at once would only add to it; the backoff
					// paces the next attempt
					throw ex;
				}
				this.streaming.failed(ex, this.reading);
			}
			catch (RuntimeException ex) {
				if (isStopped()) {
					throw new Stopped();
				}
				this.streaming.failed(ex, this.reading);
			}
			finally {
				this.reading = false;
			}
		}
		List<Item<T>> items = new ArrayList<>();
		List<UnbindableObject> unbindable = new ArrayList<>();
		String resourceVersion = listAll(afterGone, items, unbindable);
		this.status.listed(since(start));
		replace(items, unbindable);
		completeSync(resourceVersion, start, false);
		return null;
	}

	private String listAll(boolean afterGone, List<Item<T>> items, List<UnbindableObject> unbindable) {
		ListOptions base = this.options.listRequest();
		if (!afterGone && this.lastResourceVersion == null) {
			// "0" lets the API server answer the first list from its watch cache; a cache
			// that holds a list already must not go back in time (after 410 the list is
			// fresh: consistent)
			base = (this.cachedResourceVersion != null) ? base.withResourceVersion(this.cachedResourceVersion)
				.withResourceVersionMatch(ListOptions.NOT_OLDER_THAN) : base.withResourceVersion("0");
		}
		String resourceVersion = Pager.listAll(this.name, base, (page) -> request(() -> this.listerWatcher.list(page)),
				this::isStopped, items, unbindable);
		if (resourceVersion == null) {
			throw new Stopped();
		}
		return resourceVersion;
	}

	/**
	 * Opens a watch with {@code sendInitialEvents=true} and consumes the initial events
	 * up to the bookmark that ends them. Returns {@code null} (and remembers it) when the
	 * server refuses streaming lists; throws when the streaming list fails otherwise,
	 * including a stream that ends before the initial events did, or that sends no object
	 * for the idle timeout before they end (plain bookmarks do not count: a server that
	 * ignores {@code sendInitialEvents} sends the objects, then only bookmarks, and would
	 * keep the watch here for ever).
	 */
	private @Nullable WatchStream<T> streamingSync(boolean afterGone, long start) {
		ListOptions options = this.options.watchRequest(this.random)
			.withSendInitialEvents(true)
			.withResourceVersionMatch(ListOptions.NOT_OLDER_THAN)
			.withResourceVersion(afterGone ? null
					: (this.lastResourceVersion != null) ? this.lastResourceVersion : this.cachedResourceVersion);
		WatchStream<T> stream;
		try {
			stream = request(() -> this.listerWatcher.watch(options));
		}
		catch (KubernetesApiException ex) {
			if (ex.kind() == Kind.BAD_REQUEST || ex.kind() == Kind.INVALID) {
				this.streaming.refused(ex);
				return null;
			}
			throw ex;
		}
		if (opened(stream)) {
			throw new Stopped();
		}
		this.reading = true;
		// by key, in the order first seen (a change keeps the place, a delete and re-add
		// goes last)
		Map<String, Item<T>> items = new LinkedHashMap<>();
		Map<String, UnbindableObject> unbindable = new LinkedHashMap<>();
		try {
			while (stream.hasNext()) {
				WatchEvent<T> event = stream.next();
				long bookmarkedAt = this.watchdog.lastActivity();
				long now = this.ticker.nanoTime();
				this.watchdog.activity(now);
				this.status.received(event.type(), now);
				switch (event.type()) {
					case ADDED, MODIFIED -> {
						String key = Store.key(event);
						UnbindableObject cannotHold = event.unbindable();
						if (cannotHold != null) {
							items.remove(key);
							unbindable.put(key, cannotHold);
							continue;
						}
						unbindable.remove(key);
						items.put(key, new Item<>(Objects.requireNonNull(event.meta()),
								Objects.requireNonNull(event.object(), "an event not unbindable has its object")));
					}
					case DELETED -> {
						String key = Store.key(event);
						unbindable.remove(key);
						items.remove(key);
					}
					case BOOKMARK -> {
						if (!event.initialEventsEnd()) {
							// not activity: a server that ignores sendInitialEvents sends
							// the objects, then only bookmarks; the watchdog must see it
							// silent and end the wait
							this.watchdog.activity(bookmarkedAt);
							continue;
						}
						this.status.listed(since(start));
						replace(new ArrayList<>(items.values()), new ArrayList<>(unbindable.values()));
						completeSync(event.resourceVersion(), start, true);
						return stream;
					}
					case ERROR -> throw KubernetesApiException.of("watch " + this.listerWatcher.resource(),
							Objects.requireNonNull(event.status(), "an ERROR event has its status"), null);
				}
			}
		}
		catch (RuntimeException | Error ex) {
			stream.close();
			closed();
			throw ex;
		}
		stream.close();
		closed();
		if (isStopped()) {
			throw new Stopped();
		}
		throw new KubernetesApiException(Kind.CONNECTION, "watch " + this.listerWatcher.resource()
				+ (this.watchdog.fired() ? " went silent" : " ended") + " before its initial events did", null);
	}

	private void replace(List<Item<T>> items, List<UnbindableObject> unbindable) {
		if (isStopped()) {
			throw new Stopped();
		}
		try {
			this.handler.replace(items, unbindable, !this.listed);
		}
		catch (RuntimeException ex) {
			throw new HandlerFailure(ex);
		}
	}

	private void completeSync(@Nullable String resourceVersion, long start, boolean streaming) {
		this.lastResourceVersion = resourceVersion;
		this.cachedResourceVersion = null;
		this.restarts.synced();
		this.status.resourceVersion(resourceVersion);
		this.listed = true;
		this.fatal = false;
		this.status.synced(since(start), streaming);
	}

	private WatchStream<T> openWatch() {
		ListOptions options = this.options.watchRequest(this.random).withResourceVersion(this.lastResourceVersion);
		WatchStream<T> stream = request(() -> this.listerWatcher.watch(options));
		if (opened(stream)) {
			throw new Stopped();
		}
		return stream;
	}

	/**
	 * Makes a newly opened watch the current one, for {@link #stop()} and
	 * {@link #checkIdle}.
	 * @return whether the reflector was stopped meanwhile (the stream is then closed)
	 */
	private boolean opened(WatchStream<T> stream) {
		this.status.connected();
		this.watchdog.opened(stream);
		if (isStopped()) {
			stream.close();
			closed();
			return true;
		}
		return false;
	}

	/**
	 * The current stream ended, however: the watchdog lets it go, the status learns
	 * whether it held.
	 */
	private void closed() {
		this.watchdog.closed();
		this.lastStreamHeld = this.status.streamClosed();
	}

	/**
	 * Hands the events of an open watch to the handler until it ends. The resourceVersion
	 * to resume from is that of the last revision known complete: events of one revision
	 * (an etcd txn) come together, and one whose next event is already buffered may share
	 * its revision with it, so the resume point moves to an event's resourceVersion only
	 * once nothing more is buffered or a later revision begins. A stop or a cut in
	 * between resumes from before the revision, and the handler takes what it applied
	 * already for replays.
	 */
	private void consume(WatchStream<T> stream) {
		this.watchDelivered = false;
		this.reading = true;
		// the resourceVersion of the last event applied, whose revision may not be
		// complete yet
		String applied = null;
		try (stream) {
			boolean first = true;
			while (stream.hasNext()) {
				WatchEvent<T> event = stream.next();
				this.watchDelivered = event.type() != WatchEvent.Type.ERROR;
				long now = this.ticker.nanoTime();
				this.watchdog.activity(now);
				this.status.received(event.type(), now);
				if (first && this.watchDelivered) {
					first = false;
					this.status.progress();
				}
				switch (event.type()) {
					case ADDED, MODIFIED, DELETED -> {
						if (isStopped()) {
							return;
						}
						try {
							this.handler.apply(event);
						}
						catch (RuntimeException ex) {
							throw new HandlerFailure(ex);
						}
						if (event.unbindable() != null) {
							logger.warn("Watch " + this.name + " cannot hold " + event.type() + " of "
									+ event.unbindable() + "; it keeps the object's last state and goes on");
						}
						String version = event.resourceVersion();
						if (applied != null && !applied.equals(version)) {
							// a later revision began: the one before is complete
							this.lastResourceVersion = applied;
						}
						applied = version;
						if (!stream.hasBuffered()) {
							this.lastResourceVersion = version;
						}
						this.status.resourceVersion(this.lastResourceVersion);
					}
					case BOOKMARK -> {
						applied = null;
						this.lastResourceVersion = event.resourceVersion();
						this.status.resourceVersion(this.lastResourceVersion);
					}
					case ERROR -> throw KubernetesApiException.of("watch " + this.listerWatcher.resource(),
							Objects.requireNonNull(event.status(), "an ERROR event has its status"), null);
				}
				if (!stream.hasBuffered()) {
					this.handler.release();
				}
			}
		}
		finally {
			this.handler.release();
			closed();
		}
	}

	/**
	 * Sends a request through the {@link Watchdog}, which abandons it if it stays without
	 * an answer for the idle timeout, and which {@link #stop()} aborts.
	 */
	private <R> R request(Supplier<R> request) {
		try {
			if (isStopped()) {
				throw new Stopped();
			}
			return this.watchdog.request(request);
		}
		catch (RuntimeException ex) {
			if (isStopped()) {
				throw new Stopped();
			}
			throw ex;
		}
	}

	private void pause(Duration delay) {
		state(State.BACKOFF);
		try {
			this.stopped.await(delay.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			// the watchdog's interrupt of an abandoned request may arrive late; it is not
			// a stop
			if (isStopped()) {
				Thread.currentThread().interrupt();
			}
		}
		if (!isStopped()) {
			state(this.listed ? State.WATCHING : State.SYNCING);
		}
	}

	/** Enters a state; FAILED (after an Error) holds until a sync completes. */
	private void state(State state) {
		this.status.state(this.fatal ? State.FAILED : state);
	}

	private Duration since(long start) {
		return Duration.ofNanos(this.ticker.nanoTime() - start);
	}

	private boolean isStopped() {
		return this.stopped.getCount() == 0;
	}

	@Override
	public String toString() {
		return "Reflector[" + this.name + " " + this.listerWatcher.resource() + "]";
	}

	/** The reflector was stopped: the loop ends without another word. */
	private static final class Stopped extends RuntimeException {

		Stopped() {
			super(null, null, false, false);
		}

	}

	/**
	 * The handler failed (the cache or what feeds listeners): the cache must be resynced.
	 */
	private static final class HandlerFailure extends RuntimeException {

		HandlerFailure(RuntimeException cause) {
			super(cause.toString(), cause, false, false);
		}

	}

}
