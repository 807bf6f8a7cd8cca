package dev.listwatch.reflector;

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

	private final AtomicLong consecutiveFailures = new AtomicLong();

	private final LongAdder relists = new LongAdder();

	private final Map<String, LongAdder> restarts = new ConcurrentHashMap<>();

	private final Map<WatchEvent.Type, LongAdder> events = new EnumMap<>(WatchEvent.Type.class);

	private final CopyOnWriteArrayList<Listener> listeners = new CopyOnWriteArrayList<>();

	public ReflectorStatus(Instant now) {
		this.stateSince = now;
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

	void state(WatchState state, Instant now) {
		if (this.state != state) {
			this.state = state;
			this.stateSince = now;
		}
		if (state == WatchState.BACKOFF && this.failingSince == null && this.consecutiveFailures.get() > 0) {
			this.failingSince = now;
		}
	}

	void resourceVersion(String resourceVersion) {
		if (resourceVersion != null && !resourceVersion.isEmpty()) {
			this.lastResourceVersion = resourceVersion;
		}
	}

	void received(WatchEvent.Type type, Instant now) {
		this.events.get(type).increment();
		this.lastEventTime = now;
		for (Listener listener : this.listeners) {
			listener.received(type);
		}
	}

	void listed(Duration took, int objects) {
		for (Listener listener : this.listeners) {
			listener.listed(took, objects);
		}
	}

	void synced(Instant now, Duration took, boolean streamingList) {
		this.synced = true;
		this.lastSyncTime = now;
		this.streaming = streamingList;
		this.consecutiveFailures.set(0);
		this.failingSince = null;
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

	void failed(KubernetesApiException failure) {
		this.consecutiveFailures.incrementAndGet();
		this.lastError = new ErrorInfo(failure.reason(), failure.getMessage(), failure.code());
	}

	void healthy() {
		this.consecutiveFailures.set(0);
		this.failingSince = null;
	}

	/** A watch was opened: the API server answers again, whatever the failures before. */
	void connected() {
		this.failingSince = null;
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
