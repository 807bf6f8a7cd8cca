package dev.listwatch.informer;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.event.WatchStateChangedEvent;
import dev.listwatch.event.WatchStateChangedEvent.State;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEvent;

/**
 * Publishes an informer's {@link WatchStateChangedEvent}s: told of the transitions of its
 * feeds' statuses (on their watch threads, and periodically for a stream that has been
 * held open meanwhile), it decides which transition of the whole watch they make, once
 * each, and queues the event on a {@link Dispatcher} of its own, which is never paused:
 * the watch thread never waits for a listener, and STOPPED is published while the
 * informer is stopped. Thread-safe.
 */
final class StateEvents implements ReflectorStatus.Observer {

	private final Object source;

	private final String watch;

	private final List<ReflectorStatus> feeds;

	/** Whether the whole watch has synced since its start. */
	private final BooleanSupplier synced;

	/** The whole watch's status snapshot. */
	private final Supplier<WatchStatus> status;

	private final Dispatcher dispatcher;

	private final Object lock = new Object();

	/** The state of the last event queued, or {@code null}; under {@link #lock}. */
	private @Nullable State last;

	/** Whether the last event queued says the watch is failing; under {@link #lock}. */
	private boolean failing;

	StateEvents(Object source, String watch, List<ReflectorStatus> feeds, BooleanSupplier synced,
			Supplier<WatchStatus> status, InformerRuntime runtime) {
		this.source = source;
		this.watch = watch;
		this.feeds = List.copyOf(feeds);
		this.synced = synced;
		this.status = status;
		this.dispatcher = new Dispatcher(watch, runtime.dispatchExecutor(), (event) -> {
			if (event instanceof Done done) {
				done.run();
			}
			else {
				runtime.publisher().accept(event);
			}
		}, runtime.ticker(), runtime::showsExceptionMessages);
	}

	/**
	 * A feed began or ended a failing period (or, from the watchdog, a stream may have
	 * been held open long enough): FAILING when the whole watch begins failing, RECOVERED
	 * when it ends.
	 */
	@Override
	public void failingChanged() {
		synchronized (this.lock) {
			if (this.last == State.FAILED || (this.last == State.STOPPED && !anyRunning())) {
				// after FAILED, only a stop; after a stop, only a start
				return;
			}
			ReflectorStatus cause = failingFeed();
			if (cause != null && !this.failing) {
				this.failing = true;
				publish(State.FAILING, cause.lastFailureReason(), cause.lastError());
			}
			else if (cause == null && this.failing) {
				this.failing = false;
				ReflectorStatus latest = lastFailed();
				publish(State.RECOVERED, (latest != null) ? latest.lastFailureReason() : null,
						(latest != null) ? latest.lastError() : null);
			}
		}
	}

	/** A feed completed a sync: SYNCED once the whole watch is. */
	@Override
	public void synced() {
		synchronized (this.lock) {
			// a sync is progress: the watch may have recovered with it
			failingChanged();
			if (this.synced.getAsBoolean() && this.last != State.FAILED) {
				publish(State.SYNCED, null, null);
			}
		}
	}

	/** A refusal ended a feed's loop: FAILED. */
	@Override
	public void refused() {
		synchronized (this.lock) {
			ReflectorStatus cause = null;
			for (ReflectorStatus feed : this.feeds) {
				if (feed.state() == WatchStatus.State.FAILED && feed.lastError() != null) {
					cause = feed;
				}
			}
			this.failing = true;
			publish(State.FAILED, (cause != null) ? cause.lastFailureReason() : null,
					(cause != null) ? cause.lastError() : null);
		}
	}

	/**
	 * The informer stopped and its threads ended: STOPPED is queued, and {@code then}
	 * runs once it has been published (or at once, when the dispatch threads cannot run
	 * it).
	 * @param then what to run after
	 */
	void stopped(Runnable then) {
		Done done = new Done(this.source, then);
		synchronized (this.lock) {
			// a watch stopped while failing that starts again says RECOVERED at its first
			// progress: its status is failing until then
			publish(State.STOPPED, null, null);
			this.dispatcher.enqueueAfterAll(done);
		}
		if (this.dispatcher.stall() != null) {
			// no dispatch thread to be had (the factory closed): the stop does not wait
			done.run();
		}
	}

	/** Queues an event; under {@link #lock}. */
	private void publish(State state, @Nullable RestartReason reason, WatchStatus.@Nullable Failure error) {
		WatchStateChangedEvent event = new WatchStateChangedEvent(this.source, this.watch, this.last, state, reason,
				error, this.status.get());
		this.last = state;
		this.dispatcher.enqueueAfterAll(event);
	}

	/** A feed failing now, or {@code null} when none is. */
	private @Nullable ReflectorStatus failingFeed() {
		for (ReflectorStatus feed : this.feeds) {
			if (feed.failing()) {
				return feed;
			}
		}
		return null;
	}

	/** A feed with a last failure, or {@code null}. */
	private @Nullable ReflectorStatus lastFailed() {
		for (ReflectorStatus feed : this.feeds) {
			if (feed.lastError() != null) {
				return feed;
			}
		}
		return null;
	}

	private boolean anyRunning() {
		for (ReflectorStatus feed : this.feeds) {
			if (feed.state() != WatchStatus.State.STOPPED) {
				return true;
			}
		}
		return false;
	}

	/** What runs after the events queued before it were published: not an event. */
	private static final class Done extends ApplicationEvent {

		private final AtomicBoolean ran = new AtomicBoolean();

		private final transient Runnable then;

		Done(Object source, Runnable then) {
			super(source);
			this.then = then;
		}

		void run() {
			if (this.ran.compareAndSet(false, true)) {
				this.then.run();
			}
		}

	}

}
