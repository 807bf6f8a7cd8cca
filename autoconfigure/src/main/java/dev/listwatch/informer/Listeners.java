package dev.listwatch.informer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import dev.listwatch.event.ResourceEvent;
import dev.listwatch.event.WatchSyncedEvent;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEvent;

/**
 * Where an informer's events go, client-go's {@code sharedProcessor}: the application's
 * listeners (its {@code @EventListener} methods, through the application context) behind
 * one {@link Dispatcher}, and each listener added in code behind a dispatcher of its own,
 * so that a slow listener delays only itself.
 * <p>
 * Every event goes to every dispatcher in the same order. The informer calls the methods
 * that queue events, add or remove a listener, or pause and resume, under its lock of
 * changes, so that a listener added has a snapshot of the cache and then every change
 * after it, none twice; the counts ({@link #backlog()} and the like) may be read from any
 * thread.
 *
 * @param <T> the Java type of the objects
 */
final class Listeners<T> {

	private final InformerRuntime runtime;

	private final String watch;

	/** The application's listeners, through the publisher. */
	private final Dispatcher application;

	private final List<Added<T>> added = new CopyOnWriteArrayList<>();

	Listeners(String watch, InformerRuntime runtime) {
		this.watch = watch;
		this.runtime = runtime;
		this.application = new Dispatcher(watch, runtime.dispatchExecutor(), runtime.publisher(), runtime.ticker(),
				runtime::showsExceptionMessages);
	}

	/**
	 * Adds a listener in code, first queueing for it alone what it must see before the
	 * next change.
	 * @param listener the listener
	 * @param running whether the informer runs: a stopped informer's listener is paused
	 * before anything is queued, so that nothing reaches it while stopped
	 * @param snapshot the cache as it is, as ADDED events of the initial list
	 * @param synced the sync event when the watch announced it already, else {@code null}
	 * @return the listener
	 */
	Added<T> add(Consumer<? super ResourceEvent<T>> listener, boolean running, Iterable<ResourceEvent<T>> snapshot,
			@Nullable WatchSyncedEvent synced) {
		Added<T> one = new Added<>(this.watch, this.runtime, listener);
		if (!running) {
			one.dispatcher.pause();
		}
		for (ResourceEvent<T> event : snapshot) {
			one.dispatcher.enqueue(event);
		}
		if (synced != null) {
			one.dispatcher.enqueueAfterAll(synced);
		}
		this.added.add(one);
		return one;
	}

	/**
	 * Removes a listener added in code: it receives nothing more (an event being
	 * delivered is the last).
	 */
	void remove(Added<T> listener) {
		this.added.remove(listener);
		listener.dispatcher.pause();
	}

	/**
	 * Queues a change for every listener.
	 * @param event the change
	 * @param hold whether it may wait for {@link #release()} (the reflector hands on a
	 * batch)
	 */
	void enqueue(ResourceEvent<T> event, boolean hold) {
		this.application.enqueue(event, hold);
		for (Added<T> listener : this.added) {
			listener.dispatcher.enqueue(event, hold);
		}
	}

	/**
	 * Queues an event for every listener, after every change queued before it (the sync).
	 */
	void enqueueAfterAll(ApplicationEvent event) {
		this.application.enqueueAfterAll(event);
		for (Added<T> listener : this.added) {
			listener.dispatcher.enqueueAfterAll(event);
		}
	}

	/** Lets the changes held for a batch go. */
	void release() {
		this.application.release();
		for (Added<T> listener : this.added) {
			listener.dispatcher.release();
		}
	}

	/**
	 * Lets every dispatcher publish (the informer runs) or holds what they queue (it is
	 * stopped).
	 */
	void running(boolean running) {
		for (Dispatcher dispatcher : dispatchers()) {
			if (running) {
				dispatcher.resume();
			}
			else {
				dispatcher.pause();
			}
		}
	}

	/**
	 * Marks every listener added in code as not synced, until the next sync reaches it.
	 */
	void unsynced() {
		for (Added<T> listener : this.added) {
			listener.synced = false;
		}
	}

	/**
	 * Runs again a dispatch the executor could not run, so that its events are not left
	 * waiting.
	 */
	void retry() {
		for (Dispatcher dispatcher : dispatchers()) {
			dispatcher.retry();
		}
	}

	/** The events queued and not yet delivered, to all listeners. */
	int backlog() {
		int backlog = 0;
		for (Dispatcher dispatcher : dispatchers()) {
			backlog += dispatcher.backlog();
		}
		return backlog;
	}

	/** The events that a listener threw on, all listeners together. */
	long failures() {
		long failures = 0;
		for (Dispatcher dispatcher : dispatchers()) {
			failures += dispatcher.failures();
		}
		return failures;
	}

	/** The longest stall of the dispatchers, or {@code null} when none is stalled. */
	Dispatcher.@Nullable Stall stall() {
		Dispatcher.Stall longest = null;
		for (Dispatcher dispatcher : dispatchers()) {
			Dispatcher.Stall stall = dispatcher.stall();
			if (stall != null && (longest == null || stall.sinceNanos() < longest.sinceNanos())) {
				longest = stall;
			}
		}
		return longest;
	}

	private List<Dispatcher> dispatchers() {
		List<Dispatcher> all = new ArrayList<>(this.added.size() + 1);
		all.add(this.application);
		for (Added<T> listener : this.added) {
			all.add(listener.dispatcher);
		}
		return all;
	}

	/** A listener added in code, with its own queue. */
	static final class Added<T> {

		private final Dispatcher dispatcher;

		private volatile boolean synced;

		@SuppressWarnings("unchecked")
		private Added(String watch, InformerRuntime runtime, Consumer<? super ResourceEvent<T>> listener) {
			this.dispatcher = new Dispatcher(watch, runtime.dispatchExecutor(), (event) -> {
				if (event instanceof ResourceEvent<?> resourceEvent) {
					listener.accept((ResourceEvent<T>) resourceEvent);
				}
				else if (event instanceof WatchSyncedEvent) {
					this.synced = true;
				}
			}, runtime.ticker(), runtime::showsExceptionMessages);
		}

		/**
		 * Whether it has received the sync: the initial list, or the cache as it was when
		 * added.
		 */
		boolean hasSynced() {
			return this.synced;
		}

	}

}
