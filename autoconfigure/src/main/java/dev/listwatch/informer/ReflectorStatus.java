package dev.listwatch.informer;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.WatchStatus.State;
import org.jspecify.annotations.Nullable;

/**
 * The one place a watch's status is kept: written by its {@link Reflector}'s thread (and
 * by the {@link Informer} for the sync), read from any thread as an immutable
 * {@link WatchStatus}. Health, metrics and the endpoint read only that snapshot.
 * <p>
 * <b>Failing.</b> A watch is failing from its first failure until it makes progress
 * again: an event or bookmark arrives, a sync completes, or a stream is <b>held</b>: open
 * for {@link #HELD} without an error. Opening a watch counts as progress at once after a
 * failure to reach the server (refused, 5xx, 429, 401/403, credentials): the server
 * answers again. After a failure on an open stream (a cut, undecodable bytes, an ERROR
 * event) a watch must hold its next stream, or deliver on it, so that health can tell a
 * watch that fails at once, again and again (say on the same event), from a healthy one.
 * A held stream counts while it is still open (read at the snapshot), and when it ends,
 * however it ends: a quiet resource sends nothing, and a proxy that closes idle
 * connections cuts its stream, yet every change arrives and the cache is exact. Durations
 * are measured on a monotonic {@link Ticker}; instants are for display.
 */
final class ReflectorStatus {

	/**
	 * How long a stream stays open without an error to count as progress: client-go's
	 * reflector takes a watch that ends sooner without an event for a failure ("very
	 * short watch"), and any other end, a cut stream included, for a normal one.
	 */
	static final Duration HELD = Duration.ofSeconds(1);

	private volatile State state = State.STARTING;

	private volatile @Nullable String lastResourceVersion;

	private volatile @Nullable Instant lastEventTime;

	private volatile @Nullable Instant lastSyncTime;

	private volatile Instant stateSince;

	/**
	 * Counted down once, by the first sync: the one record of "the cache held a whole
	 * list once".
	 */
	private final CountDownLatch synced = new CountDownLatch(1);

	/**
	 * Counted down by the first sync of the current start, for a start that must sync
	 * afresh ({@link #syncAfresh()}); else the same as {@link #synced}. What "synced"
	 * means to the application: {@link WatchStatus#synced()}, the lister's
	 * {@code hasSynced()}, awaitSynced.
	 */
	private volatile CountDownLatch syncedSinceStart = this.synced;

	private volatile @Nullable Boolean streaming;

	private volatile WatchStatus.@Nullable Failure lastError;

	/** The restart reason of {@link #lastError}, or {@code null}. */
	private volatile @Nullable RestartReason lastFailureReason;

	private volatile @Nullable Instant failingSince;

	/** {@link Ticker} time of {@link #failingSince}; meaningful while it is not null. */
	private volatile long failingSinceNanos;

	/**
	 * Whether the last failure happened on an open stream (after the server had
	 * answered).
	 */
	private volatile boolean lastFailureAfterConnect;

	/**
	 * {@link Ticker} time of the last event or of the opening of the current watch; 0
	 * before.
	 */
	private volatile long lastActivityNanos;

	private volatile boolean active;

	/**
	 * The run that writes this status now: a run that outlived its stop (its thread stuck
	 * in a request that ignores interrupts) while the next one runs must not mark the
	 * status STOPPED.
	 */
	private volatile @Nullable Object writer;

	/**
	 * Whether a stream is open now (from {@link #connected()} to
	 * {@link #streamClosed()}).
	 */
	private volatile boolean streamOpen;

	/**
	 * {@link Ticker} time the open stream opened; meaningful while {@link #streamOpen}.
	 */
	private volatile long streamOpenedNanos;

	private final Clock clock;

	private final Ticker ticker;

	private final AtomicLong consecutiveFailures = new AtomicLong();

	private final LongAdder relists = new LongAdder();

	private final Map<RestartReason, LongAdder> restarts = new ConcurrentHashMap<>();

	private final LongAdder lists = new LongAdder();

	private final LongAdder listNanos = new LongAdder();

	private final LongAdder syncs = new LongAdder();

	private final LongAdder syncNanos = new LongAdder();

	private final Map<WatchEvent.Type, LongAdder> events = new EnumMap<>(WatchEvent.Type.class);

	/** Told of the transitions, on the thread that makes them. */
	private volatile Observer observer = Observer.NONE;

	/**
	 * Makes a status.
	 * @param clock the wall clock, for the instants shown
	 * @param ticker the monotonic time source, for durations
	 */
	ReflectorStatus(Clock clock, Ticker ticker) {
		this.clock = clock;
		this.ticker = ticker;
		this.stateSince = clock.instant();
		for (WatchEvent.Type type : WatchEvent.Type.values()) {
			this.events.put(type, new LongAdder());
		}
	}

	/**
	 * Sets what is told of this status's transitions (the informer's state events).
	 * @param observer the observer
	 */
	void observe(Observer observer) {
		this.observer = observer;
	}

	/**
	 * A run starts: it writes this status from now on.
	 * @param run the run
	 */
	void claim(Object run) {
		this.writer = run;
	}

	/**
	 * A run ended: the status says STOPPED, unless another run has claimed it meanwhile.
	 * @param run the run
	 */
	void stopped(Object run) {
		if (this.writer == run) {
			state(State.STOPPED);
		}
	}

	void state(State state) {
		if (this.state != state) {
			this.state = state;
			this.stateSince = this.clock.instant();
		}
	}

	void resourceVersion(@Nullable String resourceVersion) {
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
		Objects.requireNonNull(this.events.get(type), "the constructor counts every type").increment();
		this.lastEventTime = this.clock.instant();
		this.lastActivityNanos = nanos;
		this.active = true;
	}

	void listed(Duration took) {
		this.lists.increment();
		this.listNanos.add(took.toNanos());
	}

	void synced(Duration took, boolean streamingList) {
		this.syncs.increment();
		this.syncNanos.add(took.toNanos());
		this.lastSyncTime = this.clock.instant();
		// the sync since the start is the informer's to mark (markSynced, under its
		// gate): a stop between its replace and this must not count a later start's sync
		// as done
		this.synced.countDown();
		this.streaming = streamingList;
		progress();
		this.observer.synced();
	}

	void relisted() {
		this.relists.increment();
	}

	void restarted(RestartReason reason) {
		this.restarts.computeIfAbsent(reason, (r) -> new LongAdder()).increment();
	}

	/**
	 * A failure: counted, kept as the last error, and the start of a failing period if
	 * none is under way.
	 * @param failure the failure (its message never holds secrets)
	 * @param reason its restart reason
	 * @param afterConnect whether it happened on an open stream, after the server had
	 * answered
	 */
	void failed(KubernetesApiException failure, RestartReason reason, boolean afterConnect) {
		if (recordFailure(failure, reason, afterConnect)) {
			this.observer.failingChanged();
		}
	}

	/** Records a failure; returns whether it began a failing period. */
	private boolean recordFailure(KubernetesApiException failure, RestartReason reason, boolean afterConnect) {
		this.consecutiveFailures.incrementAndGet();
		this.lastError = new WatchStatus.Failure(failure.reason(), failure.getMessage(), failure.code());
		this.lastFailureReason = reason;
		// sticky until progress: a failure to reach the server between failures on open
		// streams does not make reconnecting count as progress
		this.lastFailureAfterConnect |= afterConnect;
		if (this.failingSince != null) {
			return false;
		}
		this.failingSinceNanos = this.ticker.nanoTime();
		this.failingSince = this.clock.instant();
		return true;
	}

	/**
	 * A refusal that retrying will not mend, under a policy that fails: counted as a
	 * failure, and the watch is {@link State#FAILED}; its loop ends.
	 * @param refusal the refusal (its message never holds secrets)
	 * @param reason its restart reason
	 */
	void refused(KubernetesApiException refusal, RestartReason reason) {
		// failing, and failed at once: the observer hears of the end only
		recordFailure(refusal, reason, false);
		state(State.FAILED);
		this.observer.refused();
	}

	/**
	 * The reading thread failed with an {@link Error}: the watch is {@link State#FAILED}
	 * until a sync completes again. Called by the reflector, or by the thread that ran it
	 * when something escaped its loop.
	 * @param error what was thrown (only its class is kept: a message may hold anything)
	 */
	void fatal(Throwable error) {
		failed(new KubernetesApiException(KubernetesApiException.Kind.OTHER,
				"The watch's thread failed with " + error.getClass().getName(), null), RestartReason.FATAL, true);
		state(State.FAILED);
	}

	/**
	 * The watch made progress (an event arrived, a sync completed): it is not failing.
	 */
	void progress() {
		this.consecutiveFailures.set(0);
		this.lastFailureAfterConnect = false;
		endFailing();
	}

	/** Ends a failing period, if one was under way, and tells the observer. */
	private void endFailing() {
		if (this.failingSince != null) {
			this.failingSince = null;
			this.observer.failingChanged();
		}
	}

	/**
	 * A stream stayed open without an error until it was replaced for silence: the server
	 * and the path to it held, which ends a failing period (a watch of a resource that
	 * does not change gets no bookmark to show progress). A half-open path shows as a
	 * replacement that cannot connect.
	 */
	void streamHeld() {
		this.lastFailureAfterConnect = false;
		this.consecutiveFailures.set(0);
		endFailing();
	}

	/**
	 * A watch was opened. After a failure to reach the API server, that it answers again
	 * ends the failing period; after a failure on an open stream, only progress does.
	 */
	void connected() {
		long now = this.ticker.nanoTime();
		this.lastActivityNanos = now;
		this.active = true;
		this.streamOpenedNanos = now;
		this.streamOpen = true;
		if (!this.lastFailureAfterConnect) {
			endFailing();
		}
	}

	/**
	 * The open stream ended (closed, cut, failed). One held for {@link #HELD} that ended
	 * without an error of its own (its end, a cut, a replacement for silence) was
	 * progress: the reflector then reports {@link #streamHeld()}; one that ended with an
	 * ERROR event or undecodable bytes was not.
	 * @return whether it was held
	 */
	boolean streamClosed() {
		boolean held = this.streamOpen && held(this.ticker.nanoTime());
		this.streamOpen = false;
		return held;
	}

	/**
	 * Whether the open stream has been open for {@link #HELD}: read while it is open, so
	 * racy by nature.
	 */
	private boolean held(long now) {
		return now - this.streamOpenedNanos >= HELD.toNanos();
	}

	State state() {
		return this.state;
	}

	/**
	 * The last failure, as the status shows it.
	 * @return the failure, or {@code null}
	 */
	WatchStatus.@Nullable Failure lastError() {
		return this.lastError;
	}

	/**
	 * The restart reason of the last failure.
	 * @return the reason, or {@code null}
	 */
	@Nullable RestartReason lastFailureReason() {
		return this.lastFailureReason;
	}

	/**
	 * Whether the watch is failing now, as a snapshot would say: a failing period is
	 * under way, and no stream is held open.
	 * @return whether it is failing
	 */
	boolean failing() {
		return this.failingSince != null && !(this.streamOpen && held(this.ticker.nanoTime()));
	}

	/**
	 * The cache held a whole list once: later lists are relists. Set by the informer with
	 * the first replace, before its listeners hear of the sync, and by {@link #synced} in
	 * any case.
	 */
	void markSynced() {
		this.synced.countDown();
		this.syncedSinceStart.countDown();
	}

	/**
	 * Whether the cache held a whole list once (later lists are relists).
	 * @return whether it did
	 */
	boolean hasSynced() {
		return this.synced.getCount() == 0;
	}

	/**
	 * The start under way must sync afresh before the watch counts as synced again (a
	 * leader-only watch, each term): until its list completes,
	 * {@link #hasSyncedSinceStart()} is false.
	 */
	void syncAfresh() {
		// a latch not counted down yet stays: whoever waits on it hears of the next sync
		if (this.syncedSinceStart.getCount() == 0) {
			this.syncedSinceStart = new CountDownLatch(1);
		}
	}

	/**
	 * Whether the watch synced since its current (or last) start: what the application is
	 * told.
	 * @return whether it did
	 */
	boolean hasSyncedSinceStart() {
		return this.syncedSinceStart.getCount() == 0;
	}

	boolean awaitSynced(Duration timeout) throws InterruptedException {
		return this.syncedSinceStart.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
	}

	@Nullable String lastResourceVersion() {
		return this.lastResourceVersion;
	}

	/**
	 * Failures since the last success.
	 * @return the count
	 */
	long consecutiveFailures() {
		return this.consecutiveFailures.get();
	}

	/**
	 * How long since the last event (bookmarks included) or since the current watch
	 * opened, whichever is later, on the monotonic ticker.
	 * @return the duration, or {@code null} before the first watch opened
	 */
	@Nullable Duration silentFor() {
		if (!this.active) {
			return null;
		}
		return Duration.ofNanos(Math.max(0, this.ticker.nanoTime() - this.lastActivityNanos));
	}

	/**
	 * A snapshot of the status, with what the informer adds.
	 * @return the snapshot
	 */
	WatchStatus snapshot(String watch, WatchStatus.Watched watched, boolean running, int objects, int backlog,
			long listenerFailures, long indexFailures, WatchStatus.@Nullable IndexFailure lastIndexFailure,
			List<UnbindableObject> unbindable) {
		return snapshot(watch, watched, running, objects, backlog, listenerFailures, indexFailures, lastIndexFailure,
				unbindable, null);
	}

	/**
	 * A snapshot of the status, with what the informer adds, and a dispatch that makes no
	 * progress: the executor could not run it, so the events wait and no listener hears
	 * of them. That is failing, since the stall began and for as long as it lasts
	 * (whatever the watch does meanwhile), with the stall as the last error; health
	 * reports it past its grace period.
	 * @param stall the stalled dispatch, or {@code null}
	 */
	WatchStatus snapshot(String watch, WatchStatus.Watched watched, boolean running, int objects, int backlog,
			long listenerFailures, long indexFailures, WatchStatus.@Nullable IndexFailure lastIndexFailure,
			List<UnbindableObject> unbindable, Dispatcher.@Nullable Stall stall) {
		Map<RestartReason, Long> restartsByReason = new EnumMap<>(RestartReason.class);
		this.restarts.forEach((reason, count) -> restartsByReason.put(reason, count.sum()));
		Map<WatchEvent.Type, Long> eventsByType = new EnumMap<>(WatchEvent.Type.class);
		this.events.forEach((type, count) -> eventsByType.put(type, count.sum()));
		// failing: read once, so that its two sides agree; a stream held open now is
		// progress
		long now = this.ticker.nanoTime();
		Instant failingSince = this.failingSince;
		long consecutiveFailures = this.consecutiveFailures.get();
		if (failingSince != null && this.streamOpen && held(now)) {
			failingSince = null;
			consecutiveFailures = 0;
		}
		Duration failingFor = (failingSince != null) ? Duration.ofNanos(Math.max(0, now - this.failingSinceNanos))
				: null;
		WatchStatus.Failure lastError = this.lastError;
		if (stall != null) {
			Duration stalledFor = Duration.ofNanos(Math.max(0, now - stall.sinceNanos()));
			if (failingFor == null || stalledFor.compareTo(failingFor) > 0) {
				failingFor = stalledFor;
				failingSince = this.clock.instant().minus(stalledFor);
			}
			consecutiveFailures = Math.max(1, consecutiveFailures);
			lastError = new WatchStatus.Failure("DISPATCH",
					"The events of the watch could not be dispatched to " + "listeners (the executor threw "
							+ stall.error() + "); " + backlog + " wait, retried periodically",
					0);
		}
		return new WatchStatus(watch, watched, running, this.state, this.stateSince, hasSyncedSinceStart(),
				this.lastResourceVersion, objects, this.lastEventTime, silentFor(), this.lastSyncTime, this.streaming,
				eventsByType, restartsByReason, this.relists.sum(), consecutiveFailures, failingSince, failingFor,
				lastError, new WatchStatus.Timing(this.lists.sum(), Duration.ofNanos(this.listNanos.sum())),
				new WatchStatus.Timing(this.syncs.sum(), Duration.ofNanos(this.syncNanos.sum())), backlog,
				listenerFailures, indexFailures, lastIndexFailure, unbindable, Map.of());
	}

	/**
	 * The status of a watch of a namespace set, from the statuses of its namespaces'
	 * watches (see {@link WatchStatus#namespaces()} for how they combine).
	 * @param watch the watch's name
	 * @param watched what it watches
	 * @param namespaces each namespace's status, in the declared order
	 * @param whole a snapshot with what the informer adds (objects, backlog, listener and
	 * index failures, unbindable objects) for the whole cache
	 * @return the combined status
	 */
	static WatchStatus combine(String watch, WatchStatus.Watched watched, Map<String, WatchStatus> namespaces,
			WatchStatus whole) {
		Map<WatchEvent.Type, Long> events = new EnumMap<>(WatchEvent.Type.class);
		Map<RestartReason, Long> restarts = new EnumMap<>(RestartReason.class);
		WatchStatus least = null;
		boolean synced = true;
		long relists = 0;
		long consecutiveFailures = 0;
		WatchStatus failing = null;
		Instant lastEventTime = null;
		Instant lastSyncTime = null;
		Duration silentFor = null;
		Boolean streaming = null;
		WatchStatus.Failure lastError = null;
		long lists = 0;
		long syncs = 0;
		Duration listTime = Duration.ZERO;
		Duration syncTime = Duration.ZERO;
		for (WatchStatus status : namespaces.values()) {
			status.events().forEach((type, count) -> events.merge(type, count, Long::sum));
			status.restarts().forEach((reason, count) -> restarts.merge(reason, count, Long::sum));
			if (least == null || rank(status.state()) < rank(least.state())
					|| (status.state() == least.state() && status.stateSince().isBefore(least.stateSince()))) {
				least = status;
			}
			synced &= status.synced();
			relists += status.relists();
			consecutiveFailures = Math.max(consecutiveFailures, status.consecutiveFailures());
			if (status.failingSince() != null
					&& (failing == null || status.failingSince().isBefore(failing.failingSince()))) {
				failing = status;
			}
			lastEventTime = later(lastEventTime, status.lastEventTime());
			lastSyncTime = later(lastSyncTime, status.lastSyncTime());
			if (status.silentFor() != null && (silentFor == null || status.silentFor().compareTo(silentFor) > 0)) {
				silentFor = status.silentFor();
			}
			if (status.streamingList() != null) {
				streaming = status.streamingList();
			}
			if (lastError == null) {
				lastError = status.lastError();
			}
			lists += status.lists().count();
			listTime = listTime.plus(status.lists().total());
			syncs += status.syncs().count();
			syncTime = syncTime.plus(status.syncs().total());
		}
		if (failing != null) {
			lastError = failing.lastError();
		}
		State state = (least != null) ? least.state() : whole.state();
		Instant since = (least != null) ? least.stateSince() : whole.stateSince();
		return new WatchStatus(watch, watched, whole.running(), state, since, synced && !namespaces.isEmpty(), null,
				whole.objects(), lastEventTime, silentFor, lastSyncTime, streaming, events, restarts, relists,
				consecutiveFailures, (failing != null) ? failing.failingSince() : null,
				(failing != null) ? failing.failingFor() : null, lastError, new WatchStatus.Timing(lists, listTime),
				new WatchStatus.Timing(syncs, syncTime), whole.backlog(), whole.listenerFailures(),
				whole.indexFailures(), whole.lastIndexFailure(), whole.unbindable(), namespaces);
	}

	/**
	 * Lower is less advanced: the combined state of a namespace set is its least advanced
	 * one.
	 */
	private static int rank(State state) {
		return switch (state) {
			case FAILED -> 0;
			case BACKOFF -> 1;
			case STARTING -> 2;
			case SYNCING -> 3;
			case WATCHING -> 4;
			case STOPPED -> 5;
		};
	}

	private static @Nullable Instant later(@Nullable Instant a, @Nullable Instant b) {
		if (a == null) {
			return b;
		}
		return (b == null || a.isAfter(b)) ? a : b;
	}

	/**
	 * Told of a status's transitions, on the thread that makes them (the watch's): must
	 * be quick and must not block.
	 */
	interface Observer {

		/** Tells nothing. */
		Observer NONE = new Observer() {
		};

		/** A failing period began or ended. */
		default void failingChanged() {
		}

		/** A sync completed. */
		default void synced() {
		}

		/** A refusal ended the watch's loop, FAILED. */
		default void refused() {
		}

	}

}
