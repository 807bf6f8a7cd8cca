package dev.listwatch.controller;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * A queue of keys to process, client-go's {@code workqueue}: rate-limited, delaying, and
 * fair to keys.
 * <ul>
 * <li>Keys, not events: a key added while it waits in the queue is queued once; a key is
 * given to one worker at a time; a key added while a worker has it is queued again once
 * that worker is {@linkplain #done done}, so the change that came meanwhile is not
 * lost.</li>
 * <li>Delays: {@link #addAfter} queues a key once its delay has passed (the earliest of
 * several asked for the same key wins); {@link #addRateLimited} waits as long as the
 * {@link RateLimiter} says for its failures so far, and {@link #forget} clears them after
 * a success. A delay asked for longer than {@link #maxDelay()} is cut to it, so a
 * misjudged {@code Retry-After} cannot park a key for ever.</li>
 * <li>Shutdown: {@link #shutDown()} takes no more keys and wakes the workers, who get no
 * more; {@link #awaitDrained} waits for the keys being processed. What is still queued or
 * waiting, or added since, is not processed by this queue but kept: {@link #remaining()}
 * hands it to the next.</li>
 * <li>Hand-over: {@link #handOver} gives a queue that was shut down to the next one, with
 * the keys still being processed: the next queue treats them as processing (a key added
 * meanwhile is handed out only once the old worker is done with it, so a key is never
 * processed twice at once across the two), and what the old workers add or are done with
 * from then on goes to it.</li>
 * </ul>
 * Time is the monotonic ticker given; a worker waiting for a delayed key wakes when it is
 * due. Thread-safe.
 *
 * @param <K> the type of the keys
 */
final class WorkQueue<K> {

	private final ReentrantLock lock = new ReentrantLock();

	/**
	 * Signalled when a key is ready or due, and at the shutdown: what workers wait for.
	 */
	private final Condition changed = this.lock.newCondition();

	/** Signalled when the last key being processed is done: what a stop waits for. */
	private final Condition drained = this.lock.newCondition();

	private final LongSupplier ticker;

	private final RateLimiter<K> limiter;

	private final long maxDelayNanos;

	/** The keys ready, in the order they became so. */
	private final ArrayDeque<K> queue = new ArrayDeque<>();

	/** The keys that need processing: those queued, and those added while processed. */
	private final Set<K> dirty = new HashSet<>();

	/**
	 * When each ready key became ready (on the ticker): the time it waits for a worker.
	 */
	private final Map<K, Long> readySince = new HashMap<>();

	/** The keys a worker has now, with when it took them (on the ticker). */
	private final Map<K, Long> processing = new HashMap<>();

	/** The keys waiting out a delay, by when they are due (on the ticker). */
	private final Map<K, Long> waiting = new HashMap<>();

	private final PriorityQueue<Due<K>> due = new PriorityQueue<>();

	/** Keys added in all, to count the rate of adds. */
	private long adds;

	/** Keys given to workers in all. */
	private long taken;

	/** Keys queued again after a failure (or a requeue), in all. */
	private long retries;

	/** Time keys waited ready for a worker, in all. */
	private long waitedNanos;

	/** Keys done, and the time workers spent on them, in all. */
	private long worked;

	private long workedNanos;

	private boolean shuttingDown;

	/**
	 * The queue this one was handed over to (see {@link #handOver}): what is added to
	 * this one, and the keys its workers are done with, go there from then on.
	 */
	private @Nullable WorkQueue<K> successor;

	/**
	 * Makes a queue.
	 * @param limiter how long a failed key waits
	 * @param maxDelay the longest delay a key may wait
	 * @param ticker the monotonic time, in nanoseconds
	 */
	WorkQueue(RateLimiter<K> limiter, Duration maxDelay, LongSupplier ticker) {
		this.limiter = limiter;
		this.maxDelayNanos = maxDelay.toNanos();
		this.ticker = ticker;
	}

	/**
	 * Queues a key now, unless it is queued already or the queue is shutting down.
	 * @param key the key
	 */
	void add(K key) {
		WorkQueue<K> next;
		this.lock.lock();
		try {
			next = this.successor;
			if (next == null) {
				addNow(key);
			}
		}
		finally {
			this.lock.unlock();
		}
		if (next != null) {
			next.add(key);
		}
	}

	/**
	 * Queues a key once {@code delay} has passed (at once for none); of several delays
	 * asked for one key, the earliest due wins.
	 * @param key the key
	 * @param delay the delay, cut to {@link #maxDelay()}
	 */
	void addAfter(K key, Duration delay) {
		long nanos = Math.min(delay.toNanos(), this.maxDelayNanos);
		if (nanos <= 0) {
			add(key);
			return;
		}
		WorkQueue<K> next;
		this.lock.lock();
		try {
			next = this.successor;
			if (next == null) {
				addAfterNow(key, nanos);
			}
		}
		finally {
			this.lock.unlock();
		}
		if (next != null) {
			next.addAfter(key, delay);
		}
	}

	/** Queues a key once its delay has passed; under the lock. */
	private void addAfterNow(K key, long nanos) {
		long at = this.ticker.getAsLong() + nanos;
		if (this.shuttingDown) {
			// kept for the next queue (see remaining()), not taken from this one
			this.waiting.putIfAbsent(key, at);
			return;
		}
		Long before = this.waiting.get(key);
		if (before != null && before - at <= 0) {
			return;
		}
		this.waiting.put(key, at);
		this.due.add(new Due<>(key, at));
		this.changed.signal();
	}

	/**
	 * Queues a key after the delay its rate limiter gives for one more failure.
	 * @param key the key that failed
	 * @return the delay
	 */
	Duration addRateLimited(K key) {
		WorkQueue<K> next;
		this.lock.lock();
		try {
			next = this.successor;
			if (next == null) {
				this.retries++;
			}
		}
		finally {
			this.lock.unlock();
		}
		if (next != null) {
			return next.addRateLimited(key);
		}
		Duration delay = this.limiter.when(key);
		addAfter(key, delay);
		return delay;
	}

	/**
	 * Forgets a key's failures: it was processed without one.
	 * @param key the key
	 */
	void forget(K key) {
		this.limiter.forget(key);
	}

	/**
	 * How often a key failed in a row.
	 * @param key the key
	 * @return its failures since it was last forgotten
	 */
	int failures(K key) {
		return this.limiter.failures(key);
	}

	/**
	 * Takes the next key, waiting for one; the caller processes it, then calls
	 * {@link #done}.
	 * @return the key, or {@code null} once the queue is shutting down
	 * @throws InterruptedException when interrupted while waiting
	 */
	@Nullable K take() throws InterruptedException {
		this.lock.lock();
		try {
			while (true) {
				if (this.shuttingDown) {
					return null;
				}
				long wait = promoteDue();
				K key = this.queue.poll();
				if (key != null) {
					return taken(key);
				}
				if (wait < 0) {
					this.changed.await();
				}
				else {
					this.changed.awaitNanos(wait);
				}
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Takes the next key ready now, without waiting.
	 * @return the key, or {@code null} when none is ready or the queue is shutting down
	 */
	@Nullable K poll() {
		this.lock.lock();
		try {
			if (this.shuttingDown) {
				return null;
			}
			promoteDue();
			K key = this.queue.poll();
			return (key != null) ? taken(key) : null;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A worker is done with a key; if it was added meanwhile, it is queued again.
	 * @param key the key
	 */
	void done(K key) {
		WorkQueue<K> next;
		this.lock.lock();
		try {
			next = this.successor;
			Long since = this.processing.remove(key);
			if (next == null) {
				long now = this.ticker.getAsLong();
				if (since != null) {
					this.worked++;
					this.workedNanos += now - since;
				}
				if (this.dirty.contains(key) && !this.shuttingDown) {
					ready(key, now);
				}
			}
			// else counted where it was handed over to, which has it as processing
			if (this.processing.isEmpty()) {
				// wakes a stop waiting for the keys in flight, not the idle workers
				this.drained.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
		if (next != null) {
			next.done(key);
		}
	}

	/**
	 * Hands this queue, shut down, over to the next one (the queue of the next run): the
	 * keys it still needs processed are added to the next one (at once, without their
	 * delays), those its workers still have are processing there since they were taken (a
	 * key added meanwhile is queued once the old worker is {@linkplain #done done} with
	 * it), and whatever is added to this queue or done with from now on goes to the next
	 * one, so that a worker of an earlier run that is still reconciling neither runs
	 * beside a worker of the next run on its key nor loses its requeue.
	 * @param next the next queue, on the same ticker and rate limiter
	 */
	void handOver(WorkQueue<K> next) {
		this.lock.lock();
		try {
			if (this.successor != null) {
				throw new IllegalStateException("Handed over already");
			}
			this.shuttingDown = true;
			this.changed.signalAll();
			this.successor = next;
			next.inherit(new HashMap<>(this.processing), remainingNow());
		}
		finally {
			this.lock.unlock();
		}
	}

	/** What {@link #handOver} gives the next queue; under the earlier queue's lock. */
	private void inherit(Map<K, Long> inProcessing, Set<K> remaining) {
		this.lock.lock();
		try {
			inProcessing.forEach(this.processing::putIfAbsent);
			remaining.forEach(this::addNow);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Takes no more keys and gives none to workers from now on; workers waiting in
	 * {@link #take()} get {@code null}. Idempotent.
	 */
	void shutDown() {
		this.lock.lock();
		try {
			this.shuttingDown = true;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits until no worker has a key (call after {@link #shutDown()}).
	 * @param timeout how long to wait at most
	 * @return whether every key being processed was done in time
	 * @throws InterruptedException when interrupted
	 */
	boolean awaitDrained(Duration timeout) throws InterruptedException {
		long left = timeout.toNanos();
		this.lock.lock();
		try {
			while (!this.processing.isEmpty()) {
				if (left <= 0) {
					return false;
				}
				left = this.drained.awaitNanos(left);
			}
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Whether a worker has a key a predicate passes.
	 * @param which the keys
	 * @return whether one of them is being processed
	 */
	boolean processingAny(Predicate<? super K> which) {
		this.lock.lock();
		try {
			for (K key : this.processing.keySet()) {
				if (which.test(key)) {
					return true;
				}
			}
			return false;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * The keys that still need processing: those queued, those added while processed, and
	 * those waiting out a delay (at once, without it). A queue that was shut down hands
	 * them to the next one, so that no key added is lost across a stop.
	 * @return the keys, unmodifiable
	 */
	Set<K> remaining() {
		this.lock.lock();
		try {
			return Set.copyOf(remainingNow());
		}
		finally {
			this.lock.unlock();
		}
	}

	/** The keys that still need processing; under the lock. */
	private Set<K> remainingNow() {
		Set<K> keys = new HashSet<>(this.dirty);
		keys.addAll(this.waiting.keySet());
		return keys;
	}

	/**
	 * Wakes the workers waiting for a delayed key, so that they look at the ticker again
	 * (for a ticker that is not the system's, as in tests).
	 */
	void wakeUp() {
		this.lock.lock();
		try {
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** The longest a key may wait out a delay. */
	Duration maxDelay() {
		return Duration.ofNanos(this.maxDelayNanos);
	}

	/**
	 * What the queue holds now.
	 * @return the counts
	 */
	Depth depth() {
		this.lock.lock();
		try {
			long now = this.ticker.getAsLong();
			K oldest = this.queue.peek();
			Long oldestSince = (oldest != null) ? this.readySince.get(oldest) : null;
			long longest = 0;
			long unfinished = 0;
			for (long since : this.processing.values()) {
				longest = Math.max(longest, now - since);
				unfinished += now - since;
			}
			return new Depth(this.queue.size(), this.waiting.size(), this.processing.size(), this.adds, this.taken,
					this.shuttingDown, this.retries, (oldestSince != null) ? now - oldestSince : 0, longest, unfinished,
					this.waitedNanos, this.worked, this.workedNanos);
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Queues a key now; under the lock. */
	private void addNow(K key) {
		if (!this.dirty.add(key) || this.shuttingDown) {
			// queued already, or kept for the next queue (see remaining())
			return;
		}
		this.adds++;
		if (this.processing.containsKey(key)) {
			// queued again when its worker is done
			return;
		}
		ready(key, this.ticker.getAsLong());
	}

	/** Puts a key at the end of the ready queue; under the lock. */
	private void ready(K key, long now) {
		this.queue.add(key);
		this.readySince.put(key, now);
		this.changed.signal();
	}

	/**
	 * Queues the delayed keys that are due; under the lock.
	 * @return nanoseconds until the next one is due, or -1 when none waits
	 */
	private long promoteDue() {
		long now = this.ticker.getAsLong();
		Due<K> next;
		while ((next = this.due.peek()) != null) {
			Long at = this.waiting.get(next.key());
			if (at == null || at != next.at()) {
				// superseded by an earlier due time, or already queued
				this.due.poll();
				continue;
			}
			if (next.at() - now > 0) {
				return next.at() - now;
			}
			this.due.poll();
			this.waiting.remove(next.key());
			addNow(next.key());
		}
		return -1;
	}

	private K taken(K key) {
		long now = this.ticker.getAsLong();
		Long since = this.readySince.remove(key);
		if (since != null) {
			this.waitedNanos += now - since;
		}
		this.dirty.remove(key);
		this.processing.put(key, now);
		this.taken++;
		return key;
	}

	/**
	 * What a queue holds.
	 *
	 * @param ready keys ready for a worker
	 * @param waiting keys waiting out a delay
	 * @param processing keys a worker has
	 * @param adds keys added in all (a key added while queued not counted)
	 * @param taken keys given to workers in all
	 * @param shutDown whether the queue is shutting down
	 * @param retries keys queued again after a failure or a requeue, in all
	 * @param oldestReadyNanos how long the key longest ready has waited for a worker
	 * @param longestRunningNanos how long the longest-running worker has had its key
	 * @param unfinishedNanos the time the workers have spent on the keys they have now,
	 * in all
	 * @param waitedNanos the time keys waited ready for a worker, in all (over
	 * {@code taken} keys)
	 * @param worked keys done, in all
	 * @param workedNanos the time workers spent on the keys done, in all
	 */
	record Depth(int ready, int waiting, int processing, long adds, long taken, boolean shutDown, long retries,
			long oldestReadyNanos, long longestRunningNanos, long unfinishedNanos, long waitedNanos, long worked,
			long workedNanos) {

	}

	/** A key due at a time, in the order of the times. */
	private record Due<K>(K key, long at) implements Comparable<Due<K>> {

		@Override
		public int compareTo(Due<K> other) {
			return Long.compare(this.at, other.at);
		}

	}

}
