package dev.listwatch.informer;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.WatchEvent;

/**
 * What a {@link Reflector} reports about itself: written by its thread, read by health, metrics
 * and the actuator endpoint from any thread. {@link #snapshot()} gives a consistent-enough view.
 * <p>
 * <b>Failing.</b> A watch is failing from its first failure until it makes progress again: an
 * event or bookmark arrives, or a sync completes. Opening a watch counts as progress only after a
 * failure to reach the server (refused, 5xx, 429, 401/403, credentials): the server answers again.
 * After a failure on an open stream (a cut, undecodable bytes) a watch that opens and again
 * delivers nothing is still failing, so health can tell a watch that keeps reconnecting without
 * progress from a healthy one. A stream replaced for silence is not a failure: a watch of a quiet
 * resource is silent too; a half-open path fails the replacement's request instead. Durations are measured on a monotonic
 * {@link Ticker}; instants are for display.
 */
public final class ReflectorStatus {

	private volatile WatchState state = WatchState.STARTING;

	private volatile String lastResourceVersion;

	private volatile Instant lastEventTime;

	private volatile Instant lastSyncTime;

	private volatile Instant stateSince;

	private volatile boolean synced;

	private volatile Boolean streaming;

	private volatile ErrorInfo lastError;

	private volatile Instant failingSince;

	/** {@link Ticker} time of {@link #failingSince}; meaningful while it is not null. */
	private volatile long failingSinceNanos;

	/** Whether the last failure happened on an open stream (after the server had answered). */
	private volatile boolean lastFailureAfterConnect;

	/** {@link Ticker} time of the last event or of the opening of the current watch; 0 before. */
	private volatile long lastActivityNanos;

	private volatile boolean active;

	private final Clock clock;

	private final Ticker ticker;

	private final AtomicLong consecutiveFailures = new AtomicLong();

	private final LongAdder relists = new LongAdder();

	private final Map<String, LongAdder> restarts = new ConcurrentHashMap<>();

	private final Map<WatchEvent.Type, LongAdder> events = new EnumMap<>(WatchEvent.Type.class);

	private final CopyOnWriteArrayList<Listener> listeners = new CopyOnWriteArrayList<>();

	/**
	 * Makes a status.
	 * @param clock the wall clock, for the instants shown
	 * @param ticker the monotonic time source, for durations
	 */
	public ReflectorStatus(Clock clock, Ticker ticker) {
		this.clock = clock;
		this.ticker = ticker;
		this.stateSince = clock.instant();
		for (WatchEvent.Type type : WatchEvent.Type.values()) {
			this.events.put(type, new LongAdder());
		}
	}

	/**
	 * Adds a listener for what happens (metrics).
	 * @param listener the listener
	 */
	public void addListener(Listener listener) {
		this.listeners.add(listener);
	}

	void state(WatchState state) {
		if (this.state != state) {
			this.state = state;
			this.stateSince = this.clock.instant();
		}
	}

	void resourceVersion(String resourceVersion) {
		if (resourceVersion != null && !resourceVersion.isEmpty()) {
			this.lastResourceVersion = resourceVersion;
		}
	}

	/**
	 * An event (bookmarks included) arrived.
	 * @param type its type
	 * @param nanos when, on the {@link Ticker} (the reflector read it already)
	 */
	void received(WatchEvent.Type type, long nanos) {
		this.events.get(type).increment();
		this.lastEventTime = this.clock.instant();
		this.lastActivityNanos = nanos;
		this.active = true;
		for (Listener listener : this.listeners) {
			listener.received(type);
		}
	}

	void listed(Duration took, int objects) {
		for (Listener listener : this.listeners) {
			listener.listed(took, objects);
		}
	}

	void synced(Duration took, boolean streamingList) {
		this.synced = true;
		this.lastSyncTime = this.clock.instant();
		this.streaming = streamingList;
		progress();
		for (Listener listener : this.listeners) {
			listener.synced(took);
		}
	}

	void relisted() {
		this.relists.increment();
		for (Listener listener : this.listeners) {
			listener.relisted();
		}
	}

	void restarted(String reason) {
		this.restarts.computeIfAbsent(reason, (r) -> new LongAdder()).increment();
		for (Listener listener : this.listeners) {
			listener.restarted(reason);
		}
	}

	/**
	 * A failure: counted, kept as the last error, and the start of a failing period if none is
	 * under way.
	 * @param failure the failure (its message never holds secrets)
	 * @param afterConnect whether it happened on an open stream, after the server had answered
	 */
	void failed(KubernetesApiException failure, boolean afterConnect) {
		this.consecutiveFailures.incrementAndGet();
		this.lastError = new ErrorInfo(failure.reason(), failure.getMessage(), failure.code());
		// sticky until progress: a failure to reach the server between failures on open streams does
		// not make reconnecting count as progress
		this.lastFailureAfterConnect |= afterConnect;
		if (this.failingSince == null) {
			this.failingSinceNanos = this.ticker.nanoTime();
			this.failingSince = this.clock.instant();
		}
	}

	/**
	 * The reading thread failed with an {@link Error}: the watch is {@link WatchState#FAILED} until
	 * a sync completes again. Called by the reflector, or by the thread that ran it when something
	 * escaped its loop.
	 * @param error what was thrown (only its class is kept: a message may hold anything)
	 */
	public void fatal(Throwable error) {
		failed(new KubernetesApiException(KubernetesApiException.Kind.OTHER,
				"The watch's thread failed with " + error.getClass().getName(), null), true);
		state(WatchState.FAILED);
	}

	/** The watch made progress (an event arrived, a sync completed): it is not failing. */
	void progress() {
		this.consecutiveFailures.set(0);
		this.failingSince = null;
		this.lastFailureAfterConnect = false;
	}

	/**
	 * A stream stayed open without an error until it was replaced for silence: the server and the
	 * path to it held, which ends a failing period (a watch of a resource that does not change gets
	 * no bookmark to show progress). A half-open path shows as a replacement that cannot connect.
	 */
	void streamHeld() {
		this.failingSince = null;
		this.lastFailureAfterConnect = false;
	}

	/**
	 * A watch was opened. After a failure to reach the API server, that it answers again ends the
	 * failing period; after a failure on an open stream, only progress does.
	 */
	void connected() {
		this.lastActivityNanos = this.ticker.nanoTime();
		this.active = true;
		if (!this.lastFailureAfterConnect) {
			this.failingSince = null;
		}
	}

	public WatchState state() {
		return this.state;
	}

	public boolean hasSynced() {
		return this.synced;
	}

	/**
	 * Failures since the last success.
	 * @return the count
	 */
	public long consecutiveFailures() {
		return this.consecutiveFailures.get();
	}

	/**
	 * Since when the watch has been failing: the first backoff after a failure, cleared once a
	 * watch opens or a sync completes again. Health compares it with a grace period.
	 * @return the time, or {@code null} when the watch is not failing
	 */
	public Instant failingSince() {
		return this.failingSince;
	}

	/**
	 * How long the watch has been failing, on the monotonic ticker.
	 * @return the duration, or {@code null} when the watch is not failing
	 */
	public Duration failingFor() {
		if (this.failingSince == null) {
			return null;
		}
		return Duration.ofNanos(Math.max(0, this.ticker.nanoTime() - this.failingSinceNanos));
	}

	/**
	 * How long since the last event (bookmarks included) or since the current watch opened,
	 * whichever is later, on the monotonic ticker.
	 * @return the duration, or {@code null} before the first watch opened
	 */
	public Duration silentFor() {
		if (!this.active) {
			return null;
		}
		return Duration.ofNanos(Math.max(0, this.ticker.nanoTime() - this.lastActivityNanos));
	}

	/**
	 * A snapshot of the status.
	 * @return the snapshot
	 */
	public Snapshot snapshot() {
		Map<String, Long> restartsByReason = new TreeMap<>();
		this.restarts.forEach((reason, count) -> restartsByReason.put(reason, count.sum()));
		Map<WatchEvent.Type, Long> eventsByType = new EnumMap<>(WatchEvent.Type.class);
		this.events.forEach((type, count) -> eventsByType.put(type, count.sum()));
		return new Snapshot(this.state, this.stateSince, this.synced, this.lastResourceVersion, this.lastEventTime,
				this.lastSyncTime, restartsByReason, this.relists.sum(), this.consecutiveFailures.get(), this.lastError,
				this.streaming, eventsByType);
	}

	/**
	 * The last failure: its reason and message (which never hold secrets) and HTTP code.
	 *
	 * @param reason the reason, for example {@code Forbidden} or {@code CONNECTION}
	 * @param message the message
	 * @param code the HTTP code, 0 when none
	 */
	public record ErrorInfo(String reason, String message, int code) {
	}

	/**
	 * A watch's status at one moment.
	 *
	 * @param state the state
	 * @param stateSince when it entered that state
	 * @param synced whether the initial sync has completed
	 * @param lastResourceVersion the last resourceVersion seen
	 * @param lastEventTime when the last event (bookmarks included) arrived
	 * @param lastSyncTime when the last full sync (list or streaming list) completed
	 * @param restarts watch restarts by reason
	 * @param relists relists after the first list
	 * @param consecutiveFailures failures since the last success
	 * @param lastError the last failure, or {@code null}
	 * @param streaming whether the last sync used a streaming list ({@code null} before the first)
	 * @param events events received by type
	 */
	public record Snapshot(WatchState state, Instant stateSince, boolean synced, String lastResourceVersion,
			Instant lastEventTime, Instant lastSyncTime, Map<String, Long> restarts, long relists,
			long consecutiveFailures, ErrorInfo lastError, Boolean streaming, Map<WatchEvent.Type, Long> events) {

		/**
		 * All restarts, whatever the reason.
		 * @return the count
		 */
		public long totalRestarts() {
			return this.restarts.values().stream().mapToLong(Long::longValue).sum();
		}

	}

	/**
	 * Hears what happens to a reflector, on its thread; for metrics. Must be quick.
	 */
	public interface Listener {

		default void received(WatchEvent.Type type) {
		}

		default void listed(Duration took, int objects) {
		}

		default void synced(Duration took) {
		}

		default void relisted() {
		}

		default void restarted(String reason) {
		}

	}

}
