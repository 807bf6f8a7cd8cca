package dev.listwatch.informer;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import dev.listwatch.Thrown;
import dev.listwatch.event.ResourceEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEvent;

/**
 * Publishes a watch's events off the thread that reads it, in order per object, one at a
 * time. The backlog holds at most one entry per object: while an object waits, further
 * MODIFIED events fold into the waiting one (first old state, latest new state); a
 * DELETED, or an ADDED after it, is kept as its own event. So the backlog is bounded by
 * the number of objects plus their pending deletes, and the reading thread never waits
 * for listeners.
 * <p>
 * <b>An executor that cannot run the dispatch</b> (it throws, for example
 * {@code OutOfMemoryError: unable to create native thread}) loses nothing: the events
 * stay queued, the dispatcher is {@linkplain #stall() stalled} from then on, and the next
 * event, or {@link #retry()} (the informer calls it periodically), tries again; the first
 * drain that runs ends the stall. One drain runs at a time, whatever the executor does
 * with a task it took before it failed, so the order per object holds. Thread-safe.
 */
final class Dispatcher {

	private static final Log logger = LogFactory.getLog(Dispatcher.class);

	/**
	 * Events published per turn on the executor, so one busy watch does not hold a
	 * thread.
	 */
	private static final int BATCH = 512;

	/**
	 * Events held back for {@link #release()} at most, before a dispatch thread is woken
	 * anyway.
	 */
	static final int HOLD = 64;

	private final String watch;

	private final Executor executor;

	private final Consumer<ApplicationEvent> publisher;

	private final Object lock = new Object();

	private final LinkedHashMap<Object, Object> pending = new LinkedHashMap<>();

	private final LongAdder failures = new LongAdder();

	private final LongAdder published = new LongAdder();

	private int backlog;

	/** Events queued and held back, no dispatch thread woken for them yet. */
	private int held;

	/** A drain is queued on the executor or running. */
	private boolean scheduled;

	/**
	 * A drain is running (one at a time: a drain the executor runs late while another
	 * runs does nothing).
	 */
	private boolean draining;

	/**
	 * Since when the executor could not run a drain, none having run since; under
	 * {@link #lock}.
	 */
	private @Nullable Stall stall;

	/** Paused (the watch is stopped): events wait, none is published until resumed. */
	private volatile boolean paused;

	/**
	 * Events taken by the running drain and not yet being published (part of the
	 * backlog).
	 */
	private volatile int inFlight;

	private final Ticker ticker;

	/** Whether the error logged for a listener that threw shows its message. */
	private final BooleanSupplier showMessages;

	Dispatcher(String watch, Executor executor, Consumer<ApplicationEvent> publisher) {
		this(watch, executor, publisher, Ticker.system());
	}

	Dispatcher(String watch, Executor executor, Consumer<ApplicationEvent> publisher, Ticker ticker) {
		this(watch, executor, publisher, ticker, () -> false);
	}

	/**
	 * Makes a dispatcher.
	 * @param watch the watch's name
	 * @param executor where drains run
	 * @param publisher the listeners
	 * @param ticker the monotonic time
	 * @param showMessages whether the error logged for a listener that threw shows the
	 * exception's message ({@link Thrown})
	 */
	Dispatcher(String watch, Executor executor, Consumer<ApplicationEvent> publisher, Ticker ticker,
			BooleanSupplier showMessages) {
		this.showMessages = showMessages;
		this.watch = watch;
		this.executor = executor;
		this.publisher = publisher;
		this.ticker = ticker;
	}

	/**
	 * Queues a resource event behind the waiting events of the same object.
	 * @param event the event
	 */
	void enqueue(ResourceEvent<?> event) {
		enqueue(event, false);
	}

	/**
	 * Queues a resource event behind the waiting events of the same object. When
	 * {@code hold}, and fewer than {@link #HOLD} events are held, no dispatch thread is
	 * woken for it until {@link #release()} (or an event not held): the reading thread
	 * hands over what arrived together in one go, instead of waking a thread per event.
	 * The caller must release.
	 * @param event the event
	 * @param hold whether the event may wait for {@link #release()}
	 */
	void enqueue(ResourceEvent<?> event, boolean hold) {
		synchronized (this.lock) {
			String key = event.key();
			Object waiting = this.pending.get(key);
			if (waiting == null) {
				this.pending.put(key, event);
				this.backlog++;
			}
			else if (waiting instanceof ResourceEvent<?> single) {
				ResourceEvent<?> folded = fold(single, event);
				if (folded != null) {
					this.pending.put(key, folded);
				}
				else {
					List<ResourceEvent<?>> sequence = new ArrayList<>(2);
					sequence.add(single);
					sequence.add(event);
					this.pending.put(key, sequence);
					this.backlog++;
				}
			}
			else {
				@SuppressWarnings("unchecked")
				List<ResourceEvent<?>> sequence = (List<ResourceEvent<?>>) waiting;
				ResourceEvent<?> folded = fold(sequence.get(sequence.size() - 1), event);
				if (folded != null) {
					sequence.set(sequence.size() - 1, folded);
				}
				else {
					sequence.add(event);
					this.backlog++;
				}
			}
			if (hold && !this.scheduled && ++this.held < HOLD) {
				return;
			}
			scheduleIfNeeded();
		}
	}

	/**
	 * Wakes a dispatch thread for the events held back by
	 * {@link #enqueue(ResourceEvent, boolean)}.
	 */
	void release() {
		synchronized (this.lock) {
			if (this.held > 0) {
				scheduleIfNeeded();
			}
		}
	}

	/**
	 * Queues an event that must follow everything queued so far (a sync marker).
	 * @param event the event
	 */
	void enqueueAfterAll(ApplicationEvent event) {
		synchronized (this.lock) {
			this.pending.put(new Object(), event);
			this.backlog++;
			scheduleIfNeeded();
		}
	}

	/** Folds {@code next} into {@code waiting} when both are changes of a live object. */
	@SuppressWarnings({ "rawtypes", "unchecked" })
	private static @Nullable ResourceEvent<?> fold(ResourceEvent<?> waiting, ResourceEvent<?> next) {
		if (next.type() != ResourceEvent.Type.MODIFIED || waiting.type() == ResourceEvent.Type.DELETED) {
			return null;
		}
		if (next.resync()) {
			// a resync carries no change: what waits (a replayed or initial ADDED too)
			// stays as it is
			return waiting;
		}
		// a resync folded with a real change is a real change
		return new ResourceEvent(waiting.getSource(), waiting.watch(), waiting.type(), next.object(),
				waiting.oldObject(), next.meta(), waiting.initialList() && next.initialList(), false,
				waiting.resync() && next.resync(),
				(Class) Objects.requireNonNull(next.getResolvableType().resolveGeneric(0),
						"a ResourceEvent's type names the object type"));
	}

	private void scheduleIfNeeded() {
		this.held = 0;
		if (!this.scheduled && !this.paused) {
			this.scheduled = true;
			try {
				this.executor.execute(this::drain);
			}
			catch (RuntimeException | Error ex) {
				// an Error too (no thread to be had): on the reading thread it would fail
				// the watch, and the events it queued would never be published; they wait
				// for the next try instead
				this.scheduled = false;
				if (this.stall == null) {
					this.stall = new Stall(this.ticker.nanoTime(), ex.getClass().getName());
					logger.error("Watch " + this.watch + " could not schedule event dispatch; "
							+ (this.backlog + this.inFlight)
							+ " events wait, and it tries again with the next event and periodically", ex);
				}
				else {
					logger.debug("Watch " + this.watch + " could not schedule event dispatch again: " + ex);
				}
			}
		}
	}

	/**
	 * Schedules a dispatch of what waits if none is scheduled: after the executor failed,
	 * so that the events queued then are published without waiting for another event. Any
	 * thread.
	 */
	void retry() {
		synchronized (this.lock) {
			if (this.stall != null && !this.pending.isEmpty()) {
				scheduleIfNeeded();
			}
		}
	}

	/**
	 * Whether the executor could not run a dispatch since a while, none having run since:
	 * the backlog makes no progress.
	 * @return what the executor threw and since when (on the {@link Ticker}), or
	 * {@code null}
	 */
	@Nullable Stall stall() {
		synchronized (this.lock) {
			return this.stall;
		}
	}

	/**
	 * A dispatcher whose executor could not run it.
	 *
	 * @param sinceNanos when it first failed, on the dispatcher's {@link Ticker}
	 * @param error the class of what the executor threw (never its message)
	 */
	record Stall(long sinceNanos, String error) {
	}

	/**
	 * Publishes up to {@link #BATCH} waiting entries, taken from the queue under one lock
	 * (not one lock per event, which the reading thread would contend for on every
	 * event); an entry taken stays counted in the backlog until it is being published. A
	 * pause seen between two events puts what was taken and not published back in front
	 * of the queue.
	 */
	private void drain() {
		Object[] batch;
		int taken;
		synchronized (this.lock) {
			if (this.draining) {
				// a task the executor had taken before it threw, run late: the running
				// drain goes on
				return;
			}
			this.stall = null;
			if (this.paused || this.pending.isEmpty()) {
				this.scheduled = false;
				return;
			}
			taken = Math.min(BATCH, this.pending.size());
			batch = new Object[taken];
			this.draining = true;
			int events = 0;
			Iterator<Map.Entry<Object, Object>> entries = this.pending.entrySet().iterator();
			for (int i = 0; i < taken; i++) {
				Object next = entries.next().getValue();
				entries.remove();
				batch[i] = next;
				events += (next instanceof List<?> list) ? list.size() : 1;
			}
			this.backlog -= events;
			this.inFlight = events;
		}
		int i = 0;
		int j = 0;
		try {
			for (; i < taken; i++) {
				Object next = batch[i];
				if (next instanceof List<?> sequence) {
					for (j = 0; j < sequence.size(); j++) {
						if (this.paused) {
							requeue(batch, i, sequence.subList(j, sequence.size()));
							return;
						}
						this.inFlight--;
						publish((ApplicationEvent) sequence.get(j));
					}
					j = 0;
				}
				else {
					if (this.paused) {
						requeue(batch, i, null);
						return;
					}
					this.inFlight--;
					publish((ApplicationEvent) next);
				}
			}
		}
		catch (RuntimeException | Error ex) {
			// not a listener's (publish catches those): what was taken goes back, and the
			// next try runs
			synchronized (this.lock) {
				if (this.stall == null) {
					this.stall = new Stall(this.ticker.nanoTime(), ex.getClass().getName());
				}
			}
			Object current = batch[i];
			requeue(batch, i, (current instanceof List<?> sequence) ? sequence.subList(j, sequence.size()) : null);
			throw ex;
		}
		synchronized (this.lock) {
			this.draining = false;
			this.scheduled = false;
			if (!this.pending.isEmpty() && !this.paused) {
				scheduleIfNeeded();
			}
		}
	}

	/**
	 * Puts the entries of a batch from {@code from} on (the first of them reduced to
	 * {@code rest} when not {@code null}) back in front of the queue, ahead of what was
	 * queued since; the events of one object stay in order.
	 */
	@SuppressWarnings("unchecked")
	private void requeue(Object[] batch, int from, @Nullable List<?> rest) {
		synchronized (this.lock) {
			LinkedHashMap<Object, Object> merged = new LinkedHashMap<>();
			int events = 0;
			for (int i = from; i < batch.length; i++) {
				Object entry = (i == from && rest != null) ? new ArrayList<>(rest) : batch[i];
				merged.put(key(entry), entry);
				events += (entry instanceof List<?> list) ? list.size() : 1;
			}
			for (Map.Entry<Object, Object> entry : this.pending.entrySet()) {
				Object ahead = merged.get(entry.getKey());
				if (ahead == null) {
					merged.put(entry.getKey(), entry.getValue());
					continue;
				}
				List<Object> sequence = (ahead instanceof List<?> list) ? (List<Object>) list
						: new ArrayList<>(List.of(ahead));
				if (entry.getValue() instanceof List<?> more) {
					sequence.addAll(more);
				}
				else {
					sequence.add(entry.getValue());
				}
				merged.put(entry.getKey(), sequence);
			}
			this.pending.clear();
			this.pending.putAll(merged);
			this.backlog += events;
			this.inFlight = 0;
			this.draining = false;
			this.scheduled = false;
			if (!this.paused) {
				scheduleIfNeeded();
			}
		}
	}

	/** The queue key of an entry: its object's key, or the entry itself (a marker). */
	private static Object key(Object entry) {
		Object first = (entry instanceof List<?> list) ? list.get(0) : entry;
		return (first instanceof ResourceEvent<?> event) ? event.key() : first;
	}

	private void publish(ApplicationEvent event) {
		try {
			this.publisher.accept(event);
			this.published.increment();
		}
		catch (RuntimeException | Error ex) {
			this.failures.increment();
			String key = (event instanceof ResourceEvent<?> resourceEvent) ? resourceEvent.key() : "-";
			Thrown.error(logger, "A listener failed on " + event.getClass().getSimpleName() + " of watch " + this.watch
					+ " for " + key + "; the watch goes on", ex, this.showMessages.getAsBoolean());
		}
	}

	/**
	 * @return the events waiting to be published
	 */
	int backlog() {
		synchronized (this.lock) {
			return this.backlog + this.inFlight;
		}
	}

	/**
	 * @return the listener failures so far
	 */
	long failures() {
		return this.failures.sum();
	}

	/**
	 * @return the events published so far
	 */
	long published() {
		return this.published.sum();
	}

	/**
	 * Publishes nothing more until {@link #resume()}; what waits, and what is queued
	 * meanwhile, stays queued. An event being published when this is called is the last
	 * one.
	 */
	void pause() {
		synchronized (this.lock) {
			this.paused = true;
		}
	}

	/** Publishes again, beginning with what waited. */
	void resume() {
		synchronized (this.lock) {
			this.paused = false;
			if (!this.pending.isEmpty()) {
				scheduleIfNeeded();
			}
		}
	}

}
