package dev.listwatch.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import dev.listwatch.informer.Informer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs a {@link Reconciler} on the keys of one watch: client-go's controller pattern.
 * Every change the informer publishes (the initial list, changes, relists, resyncs)
 * queues its object's key in a {@link WorkQueue}; workers take keys, read the object from
 * the informer's cache, and reconcile. Workers start taking keys once the informer has
 * synced, so a reconcile never sees a partial cache.
 * <p>
 * A reconcile that throws, or asks for it, is tried again after the key's backoff; one
 * that succeeds forgets the key's failures. Keys that keep failing are kept, with the
 * class and message of their last exception (never an object's values), for health and
 * the endpoint.
 * <p>
 * {@link #stop(Duration)} stops queueing, lets the reconciles under way finish within a
 * timeout, and ends the workers. Thread-safe.
 *
 * @param <T> the Java type of the watch's objects
 */
final class Controller<T> {

	private static final Log logger = LogFactory.getLog(Controller.class);

	/**
	 * How long a worker waits for the informer's sync before it looks again at whether to
	 * stop.
	 */
	private static final Duration SYNC_POLL = Duration.ofMillis(200);

	private final String name;

	private final Informer<T> informer;

	private final Reconciler<T> reconciler;

	private final WorkQueue<String> queue;

	private final int workers;

	private final List<Thread> threads = new ArrayList<>();

	private final AtomicLong reconciles = new AtomicLong();

	private final AtomicLong failures = new AtomicLong();

	/** The keys whose last reconcile failed, with what it threw. */
	private final Map<String, Failure> failing = new ConcurrentHashMap<>();

	private volatile Informer.@Nullable Registration registration;

	private volatile boolean stopping;

	/**
	 * Makes a controller; it does nothing until {@link #start()}.
	 * @param name the controller's name, for logs and threads
	 * @param informer the watch whose keys it reconciles
	 * @param reconciler the application's code
	 * @param workers how many keys are reconciled at once
	 * @param limiter how long a failed key waits
	 * @param maxDelay the longest a key may wait
	 * @param ticker the monotonic time, in nanoseconds
	 */
	Controller(String name, Informer<T> informer, Reconciler<T> reconciler, int workers, RateLimiter<String> limiter,
			Duration maxDelay, LongSupplier ticker) {
		if (workers < 1) {
			throw new IllegalArgumentException("Controller " + name + " needs at least 1 worker, not " + workers);
		}
		this.name = name;
		this.informer = informer;
		this.reconciler = reconciler;
		this.workers = workers;
		this.queue = new WorkQueue<>(limiter, maxDelay, ticker);
	}

	/** Queues every change of the watch, and starts the workers. Call once. */
	synchronized void start() {
		if (this.registration != null) {
			return;
		}
		this.registration = this.informer.addListener((event) -> this.queue.add(event.key()));
		for (int i = 0; i < this.workers; i++) {
			Thread thread = new Thread(this::work, "listwatch-controller-" + this.name + "-" + (i + 1));
			thread.setDaemon(true);
			this.threads.add(thread);
			thread.start();
		}
	}

	/**
	 * Stops queueing and taking keys, and waits for the reconciles under way.
	 * @param timeout how long to wait for them
	 * @return whether every reconcile under way finished in time (the workers of those
	 * that did not are interrupted)
	 */
	synchronized boolean stop(Duration timeout) {
		this.stopping = true;
		Informer.Registration listening = this.registration;
		if (listening != null) {
			listening.remove();
		}
		this.queue.shutDown();
		boolean drained;
		try {
			drained = this.queue.awaitDrained(timeout);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			drained = false;
		}
		if (!drained) {
			logger.warn("Controller " + this.name + ": reconciles still running after " + timeout
					+ " at the stop; interrupting them (their keys are reconciled again after a restart)");
		}
		for (Thread thread : this.threads) {
			thread.interrupt();
		}
		return drained;
	}

	/** What the controller has done so far. */
	Stats stats() {
		return new Stats(this.queue.depth(), this.reconciles.get(), this.failures.get(), Map.copyOf(this.failing));
	}

	/** Queues a key now (a resync, a secondary watch): as a change of its object does. */
	void enqueue(String key) {
		this.queue.add(key);
	}

	private void work() {
		try {
			while (!this.informer.awaitSynced(SYNC_POLL)) {
				if (this.stopping) {
					return;
				}
			}
			String key;
			while ((key = this.queue.take()) != null) {
				reconcile(key);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Reconciles one key, and queues it again as the result or a failure says. */
	private void reconcile(String key) {
		int failed = this.queue.failures(key);
		Optional<T> object = this.informer.lister().get(key);
		try {
			Result result = this.reconciler.reconcile(new Request<>(key, object, failed));
			this.reconciles.incrementAndGet();
			if (result.retry()) {
				this.queue.addRateLimited(key);
				return;
			}
			this.queue.forget(key);
			this.failing.remove(key);
			Duration after = result.after();
			if (after != null) {
				this.queue.addAfter(key, after);
			}
		}
		catch (Exception | LinkageError | AssertionError ex) {
			this.reconciles.incrementAndGet();
			this.failures.incrementAndGet();
			this.failing.put(key, new Failure(ex.getClass().getName(), String.valueOf(ex.getMessage()), failed + 1));
			Duration delay = this.queue.addRateLimited(key);
			String message = "Controller " + this.name + " failed to reconcile " + key + " (" + (failed + 1)
					+ " in a row); retrying in " + delay.toMillis() + " ms";
			if (failed == 0) {
				logger.warn(message, ex);
			}
			else if (logger.isDebugEnabled()) {
				logger.debug(message + ": " + ex);
			}
		}
		finally {
			this.queue.done(key);
		}
	}

	@Override
	public String toString() {
		return "Controller[" + this.name + " on " + this.informer.watch() + "]";
	}

	/**
	 * The last failure of a key that keeps failing.
	 *
	 * @param exception the class of what the reconcile threw
	 * @param message its message (the reconciler's words, which must hold no secret)
	 * @param inARow how often in a row it failed
	 */
	record Failure(String exception, String message, int inARow) {

	}

	/**
	 * What a controller has done so far.
	 *
	 * @param queue what its queue holds
	 * @param reconciles reconciles done, failed ones included
	 * @param failures reconciles that threw
	 * @param failing the keys whose last reconcile failed
	 */
	record Stats(WorkQueue.Depth queue, long reconciles, long failures, Map<String, Failure> failing) {

	}

}
