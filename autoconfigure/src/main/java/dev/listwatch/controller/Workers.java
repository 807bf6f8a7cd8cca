package dev.listwatch.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.Thrown;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.leader.ShardStatus;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * The workers of a controller, which the controller drives: from each start to its stop a
 * run (its work queue, the listeners that queue keys, the worker threads and the resync),
 * the reconcile of each key taken, what its result or failure does to the key (queued
 * again after a delay or the key's backoff, its failures forgotten or kept), and the
 * counts and failing keys the controller's status reports. Workers take keys once the
 * informer has synced. A key taken while the controller's condition does not hold waits;
 * one this replica does not reconcile now ({@link #onlyKeys}) is dropped and told. A
 * run's queue is new at each start, with the keys the last run left queued or waiting. A
 * worker of an earlier run still inside a reconcile (one that ignored the interrupt of
 * its stop) keeps its key from the workers of the next run: the new queue has that key as
 * processing until the old reconcile ends, takes its requeue, and counts its time in
 * {@link ControllerStatus#longestRunning()}; {@link #interrupt} reaches it too. Started
 * and stopped under the controller's lock; the rest is thread-safe.
 *
 * @param <T> the Java type of the watch's objects
 */
final class Workers<T> {

	/** The name of the observation around each reconcile. */
	static final String OBSERVATION = "listwatch.reconcile";

	/**
	 * How long a worker waits for the informer's sync before it looks again at whether to
	 * stop.
	 */
	private static final Duration SYNC_POLL = Duration.ofMillis(200);

	/**
	 * How long a key taken while the controller's condition (its {@code runOnlyWhen})
	 * does not hold waits before it is taken again (the stop that follows keeps it for
	 * the next run).
	 */
	private static final Duration CONDITION_RECHECK = Duration.ofMillis(50);

	private final Log logger;

	private final String name;

	private final Informer<T> informer;

	private final Reconciler<T> reconciler;

	private final ControllerOptions options;

	private final RateLimiter<String> limiter;

	private final ObservationRegistry observations;

	private final LongSupplier ticker;

	/** Whether to reconcile at all now (the controller's condition). */
	private final BooleanSupplier condition;

	private final AtomicLong reconciles = new AtomicLong();

	private final AtomicLong failures = new AtomicLong();

	private final AtomicLong conflicts = new AtomicLong();

	/** Reconciles and resyncs that threw an {@link Error}. */
	private final AtomicLong errors = new AtomicLong();

	/** What the last resync threw, while resyncs fail. */
	private volatile ControllerStatus.@Nullable Failure resyncFailure;

	/** The keys whose last reconcile failed, with what it threw. */
	private final Map<String, ControllerStatus.Failure> failing = new ConcurrentHashMap<>();

	/** What the queues of earlier runs counted. */
	private volatile WorkQueue.Depth before = new WorkQueue.Depth(0, 0, 0, 0, 0, true, 0, 0, 0, 0, 0, 0, 0);

	/** The current (or the last) run. */
	private volatile @Nullable Run run;

	/** Which keys this replica reconciles now: see {@link #onlyKeys}. */
	private volatile Predicate<String> keys = (key) -> true;

	/** The keys a resync queues: those cached (see {@link #cachedKeysFrom}). */
	private volatile Supplier<? extends Collection<String>> cached;

	/** Whether exception messages are shown: see {@link #showExceptionMessages}. */
	private volatile boolean showMessages;

	/** What is told of a key dropped by {@link #keys}. */
	private volatile Consumer<String> refused = (key) -> {
	};

	/**
	 * Makes the workers of a controller; they do nothing until started.
	 * @param name the controller's name, for logs, threads and the observation
	 * @param informer the watch whose keys they reconcile
	 * @param reconciler the application's code
	 * @param options how they work their keys
	 * @param observations where the observation of each reconcile goes
	 * @param ticker the clock of the queue's delays and rate limits
	 * @param condition whether to reconcile at all now
	 * @param logger where to log (the controller's category)
	 */
	Workers(String name, Informer<T> informer, Reconciler<T> reconciler, ControllerOptions options,
			ObservationRegistry observations, LongSupplier ticker, BooleanSupplier condition, Log logger) {
		this.name = name;
		this.informer = informer;
		this.reconciler = reconciler;
		this.options = options;
		this.observations = observations;
		this.ticker = ticker;
		this.condition = condition;
		this.logger = logger;
		this.cached = () -> informer.lister().keys();
		this.limiter = RateLimiter.longestOf(RateLimiter.exponential(options.backoffInitial(), options.backoffMax()),
				RateLimiter.tokenBucket(options.retriesPerSecond(), options.retryBurst(), ticker));
	}

	/**
	 * Whether a run is started and not stopping.
	 * @return whether running
	 */
	boolean running() {
		Run current = this.run;
		return current != null && !current.stopping;
	}

	/**
	 * Starts a run: a new queue with what the last run left queued or waiting (deletions
	 * included), a listener on the watch and each secondary watch, the workers and the
	 * resync.
	 * @param filter which changes of the watch queue their key (those of the initial list
	 * always do)
	 * @param secondaries the secondary watches
	 */
	void start(Predicate<? super ResourceEvent<T>> filter, List<Secondary<?>> secondaries) {
		Run current = this.run;
		WorkQueue<String> queue = new WorkQueue<>(this.limiter, this.options.maxDelay(), this.ticker);
		List<Run> earlier = new ArrayList<>();
		if (current != null) {
			this.before = sum(this.before, current.queue.depth());
			// what the last run left queued or waiting is queued again, deletions
			// included; the keys its workers (or those of the runs before it) still
			// reconcile are processing in the new queue until they are done, and their
			// requeues go to it
			current.queue.handOver(queue);
			for (Run run : current.withEarlier()) {
				if (run.reconciling()) {
					earlier.add(run);
				}
			}
		}
		Run next = new Run(queue, earlier);
		this.run = next;
		next.start(filter, secondaries);
	}

	/**
	 * Stops queueing and taking keys, and waits for the reconciles under way.
	 * @param timeout how long to wait for them
	 * @return whether every reconcile under way finished in time (the workers of those
	 * that did not are interrupted); true when not running
	 */
	boolean stop(Duration timeout) {
		Run current = this.run;
		if (current == null || current.stopping) {
			return true;
		}
		return current.stop(timeout);
	}

	/**
	 * What the workers are doing and have done so far, with the controller's sharding.
	 * @param shards the status of the controller's shards, or null when not sharded
	 * @param queuedByShard the keys queued by shard
	 * @return the snapshot
	 */
	ControllerStatus status(@Nullable ShardStatus shards, SortedMap<Integer, Integer> queuedByShard) {
		Run current = this.run;
		WorkQueue.Depth depth = (current != null) ? sum(this.before, current.queue.depth()) : this.before;
		boolean running = current != null && !current.stopping;
		return new ControllerStatus(this.name, this.informer.watch(), running, this.options.workers(),
				(current != null && running) ? current.alive() : 0, running ? depth.ready() : 0,
				running ? depth.waiting() : 0, depth.processing(), depth.adds(), depth.retries(), this.reconciles.get(),
				this.failures.get(), this.conflicts.get(), this.errors.get(), Duration.ofNanos(depth.waitedNanos()),
				Duration.ofNanos(depth.workedNanos()), Duration.ofNanos(depth.oldestReadyNanos()),
				Duration.ofNanos(depth.longestRunningNanos()), Duration.ofNanos(depth.unfinishedNanos()), this.failing,
				this.resyncFailure, shards, queuedByShard);
	}

	/**
	 * Queues a key in the current (or the last) run.
	 * @param key the key
	 */
	void enqueue(String key) {
		Run current = this.run;
		if (current != null) {
			current.queue.add(key);
		}
	}

	/**
	 * Queues every cached key a predicate passes.
	 * @param which the keys
	 */
	void enqueueCached(Predicate<String> which) {
		Run current = this.run;
		if (current != null) {
			for (String key : this.cached.get()) {
				if (which.test(key)) {
					current.queue.add(key);
				}
			}
		}
	}

	/**
	 * Reconciles only the keys a predicate passes from now on: a key taken that it does
	 * not pass is dropped without a reconcile (its failures kept) and told to the
	 * consumer given.
	 * @param allowed the keys to reconcile
	 * @param dropped told each key taken and dropped, after it was dropped
	 */
	void onlyKeys(Predicate<String> allowed, Consumer<String> dropped) {
		this.refused = dropped;
		this.keys = allowed;
	}

	/**
	 * Shows the messages of what reconciles, resyncs and observation handlers throw in
	 * the status and the warnings and errors logged, or only their class and where they
	 * were thrown ({@link Thrown}).
	 * @param show whether to show them
	 */
	void showExceptionMessages(boolean show) {
		this.showMessages = show;
	}

	/**
	 * Whether exception messages are shown.
	 * @return whether they are
	 */
	boolean showsExceptionMessages() {
		return this.showMessages;
	}

	/**
	 * Reads the keys that a resync and {@link #enqueueCached} queue from elsewhere than
	 * the informer's cache: for tests.
	 * @param keys the keys cached
	 */
	void cachedKeysFrom(Supplier<? extends Collection<String>> keys) {
		this.cached = keys;
	}

	/**
	 * Whether a worker is reconciling a key a predicate passes.
	 * @param which the keys
	 * @return whether one of them is being reconciled now
	 */
	boolean busyWith(Predicate<String> which) {
		Run current = this.run;
		return current != null && current.queue.processingAny(which);
	}

	/**
	 * Interrupts the workers reconciling a key a predicate passes.
	 * @param which the keys
	 * @return how many workers were interrupted
	 */
	int interrupt(Predicate<String> which) {
		Run current = this.run;
		return (current != null) ? current.interrupt(which) : 0;
	}

	/**
	 * The keys queued now: ready, or waiting out a delay.
	 * @return the keys
	 */
	Set<String> queued() {
		Run current = this.run;
		return (current != null) ? current.queue.remaining() : Set.of();
	}

	/** Wakes the workers waiting for a delayed key (for a ticker that tests move). */
	void wakeUp() {
		Run current = this.run;
		if (current != null) {
			current.queue.wakeUp();
		}
	}

	/**
	 * Reconciles one key, and queues it again as the result or a failure says. Whatever
	 * the reconcile or an observation handler throws, an {@link Error} included, fails
	 * this attempt only: the key is done and queued again after its backoff, and the
	 * worker goes on.
	 */
	private void reconcile(WorkQueue<String> queue, String key) {
		int failed = queue.failures(key);
		Observation observation = Observation.NOOP;
		try {
			Optional<T> object = this.informer.lister().get(key);
			observation = Observation.createNotStarted(OBSERVATION, this.observations)
				.contextualName("reconcile " + this.name)
				.lowCardinalityKeyValue("controller", this.name)
				.lowCardinalityKeyValue("watch", this.informer.watch())
				.highCardinalityKeyValue("key", key);
			// a handler may throw here: that fails the attempt as the reconcile would
			observation.start();
			try (Observation.Scope scope = observation.openScope()) {
				Result result = this.reconciler.reconcile(new Request<>(key, object, failed, () -> stillOwned(key)));
				this.reconciles.incrementAndGet();
				observation.lowCardinalityKeyValue("outcome", result.retry() ? "requeue" : "success");
				if (result.retry()) {
					queue.addRateLimited(key);
					return;
				}
				queue.forget(key);
				this.failing.remove(key);
				Duration after = result.after();
				if (after != null) {
					queue.addAfter(key, after);
				}
			}
		}
		catch (Throwable ex) {
			failed(queue, key, failed, ex, observation);
		}
		finally {
			try {
				observation.stop();
			}
			catch (Throwable ex) {
				Thrown.warn(this.logger,
						"Controller " + this.name + ": an observation handler failed to stop the observation of " + key,
						ex, this.showMessages);
			}
			finally {
				queue.done(key);
			}
		}
	}

	private boolean stillOwned(String key) {
		return this.keys.test(key) && this.condition.getAsBoolean();
	}

	private void failed(WorkQueue<String> queue, String key, int failed, Throwable ex, Observation observation) {
		this.reconciles.incrementAndGet();
		this.failures.incrementAndGet();
		boolean error = ex instanceof Error;
		if (error) {
			this.errors.incrementAndGet();
		}
		boolean conflict = isConflict(ex);
		if (conflict) {
			this.conflicts.incrementAndGet();
		}
		try {
			observation.error(ex);
			observation.lowCardinalityKeyValue("outcome", conflict ? "conflict" : "error");
		}
		catch (Throwable handler) {
			// an observation handler failing on the error: the key is retried all the
			// same
		}
		if (!stillOwned(key)) {
			// given up meanwhile (a shard handed over, a leadership lost): the owner now
			// reconciles it
			this.failing.remove(key);
			this.logger.info("Controller " + this.name + " gave up " + key + " while reconciling it ("
					+ Thrown.describe(ex, this.showMessages) + "); it is reconciled where it is owned now");
			return;
		}
		this.failing.put(key, failure(ex, failed + 1));
		Duration delay = queue.addRateLimited(key);
		String message = "Controller " + this.name + " failed to reconcile " + key + " (" + (failed + 1)
				+ " in a row); retrying in " + delay.toMillis() + " ms";
		if (error) {
			// an Error (a StackOverflowError, an OutOfMemoryError) is never quiet
			if (failed == 0) {
				Thrown.error(this.logger, message, ex, this.showMessages);
			}
			else {
				this.logger.error(message + ": " + Thrown.describe(ex, this.showMessages));
			}
		}
		else if (conflict) {
			if (this.logger.isDebugEnabled()) {
				this.logger.debug(message + ": the object changed meanwhile (409 Conflict)");
			}
		}
		else if (failed == 0) {
			Thrown.warn(this.logger, message, ex, this.showMessages);
		}
		else if (this.logger.isDebugEnabled()) {
			this.logger.debug(message + ": " + Thrown.describe(ex, true));
		}
	}

	/** A failure as the status keeps it: its message only when messages are shown. */
	private ControllerStatus.Failure failure(Throwable ex, int inARow) {
		return new ControllerStatus.Failure(ex.getClass().getName(), Thrown.where(ex),
				Thrown.message(ex, this.showMessages), inARow, ex instanceof Error);
	}

	private static boolean isConflict(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof KubernetesApiException api
					&& (api.kind() == KubernetesApiException.Kind.CONFLICT || api.code() == 409)) {
				return true;
			}
		}
		return false;
	}

	private static WorkQueue.Depth sum(WorkQueue.Depth a, WorkQueue.Depth b) {
		return new WorkQueue.Depth(b.ready(), b.waiting(), b.processing(), a.adds() + b.adds(), a.taken() + b.taken(),
				b.shutDown(), a.retries() + b.retries(), b.oldestReadyNanos(), b.longestRunningNanos(),
				b.unfinishedNanos(), a.waitedNanos() + b.waitedNanos(), a.worked() + b.worked(),
				a.workedNanos() + b.workedNanos());
	}

	/**
	 * A secondary watch, and how its objects map to keys.
	 *
	 * @param <S> the Java type of its objects
	 */
	record Secondary<S>(Informer<S> informer, Function<? super S, ? extends Collection<String>> keys) {

		/**
		 * Queues the keys of each change of the secondary watch in a run's queue.
		 * @param queue the run's queue
		 * @param synced whether the controller's watch has synced: objects that cannot be
		 * mapped yet are held until then
		 * @return the listening, to flush and to remove
		 */
		Listening<S> listen(WorkQueue<String> queue, BooleanSupplier synced) {
			Listening<S> listening = new Listening<>(this.keys, queue, synced);
			listening.registration = this.informer.addListener((event) -> {
				listening.flush();
				S old = event.oldObject();
				// the keys of both states, each once
				Set<String> keys = new LinkedHashSet<>();
				listening.map(event.object(), keys);
				if (old != null) {
					listening.map(old, keys);
				}
				keys.forEach(queue::add);
			});
			return listening;
		}

	}

	/**
	 * A secondary watch's listener of one run, with the objects it could not map yet.
	 *
	 * @param <S> the Java type of the secondary watch's objects
	 */
	static final class Listening<S> {

		private final Function<? super S, ? extends Collection<String>> keys;

		private final WorkQueue<String> queue;

		private final BooleanSupplier synced;

		/** The objects whose keys could not be known yet. */
		private final Queue<S> held = new ConcurrentLinkedQueue<>();

		private Informer.@Nullable Registration registration;

		Listening(Function<? super S, ? extends Collection<String>> keys, WorkQueue<String> queue,
				BooleanSupplier synced) {
			this.keys = keys;
			this.queue = queue;
			this.synced = synced;
		}

		/** Maps an object to the keys given, or holds it when it cannot be mapped yet. */
		void map(S object, Set<String> into) {
			Collection<String> mapped = this.keys.apply(object);
			if (mapped != null) {
				into.addAll(mapped);
				return;
			}
			this.held.add(object);
			if (this.synced.getAsBoolean()) {
				// synced meanwhile: the flush may have run before it was held
				flush();
			}
		}

		/**
		 * Queues the keys of the objects held, once the controller's watch has synced
		 * (those that still cannot be mapped are held on).
		 */
		void flush() {
			if (this.held.isEmpty() || !this.synced.getAsBoolean()) {
				return;
			}
			List<S> still = new ArrayList<>();
			S object;
			while ((object = this.held.poll()) != null) {
				Collection<String> mapped = this.keys.apply(object);
				if (mapped != null) {
					mapped.forEach(this.queue::add);
				}
				else {
					still.add(object);
				}
			}
			this.held.addAll(still);
		}

		void remove() {
			Informer.Registration listening = this.registration;
			if (listening != null) {
				listening.remove();
			}
		}

	}

	/** One run, from a start to its stop: its queue, listener, workers and resync. */
	private final class Run {

		private final WorkQueue<String> queue;

		private final List<Thread> threads = new ArrayList<>();

		/** The key each worker reconciles now (guarded by itself). */
		private final Map<Thread, String> slots = new HashMap<>();

		/** The workers interrupted by {@link #interrupt} (guarded by {@link #slots}). */
		private final Set<Thread> abandoned = new HashSet<>();

		private Informer.@Nullable Registration registration;

		private final List<Listening<?>> secondaries = new ArrayList<>();

		private @Nullable ScheduledExecutorService resync;

		private volatile boolean stopping;

		/**
		 * The earlier runs whose workers were still reconciling when this one started:
		 * what {@link #interrupt} reaches too.
		 */
		private final List<Run> earlier;

		Run(WorkQueue<String> queue, List<Run> earlier) {
			this.queue = queue;
			this.earlier = earlier;
		}

		/** This run and the earlier ones still reconciling when it started. */
		List<Run> withEarlier() {
			List<Run> runs = new ArrayList<>(this.earlier);
			runs.add(this);
			return runs;
		}

		/** Whether a worker of this run is inside a reconcile. */
		boolean reconciling() {
			synchronized (this.slots) {
				return !this.slots.isEmpty();
			}
		}

		void start(Predicate<? super ResourceEvent<T>> passes, List<Secondary<?>> secondaries) {
			this.registration = Workers.this.informer.addListener((event) -> {
				if (event.initialList() || passes.test(event)) {
					this.queue.add(event.key());
				}
			});
			for (Secondary<?> secondary : secondaries) {
				this.secondaries.add(secondary.listen(this.queue, Workers.this.informer.lister()::hasSynced));
			}
			for (int i = 0; i < Workers.this.options.workers(); i++) {
				Thread thread = new Thread(this::work, "listwatch-controller-" + Workers.this.name + "-" + (i + 1));
				thread.setDaemon(true);
				this.threads.add(thread);
				thread.start();
			}
			Duration period = Workers.this.options.resyncPeriod();
			if (period != null) {
				this.resync = Executors.newSingleThreadScheduledExecutor((task) -> {
					Thread thread = new Thread(task, "listwatch-controller-" + Workers.this.name + "-resync");
					thread.setDaemon(true);
					return thread;
				});
				long millis = Math.max(1, period.toMillis());
				this.resync.scheduleAtFixedRate(this::resync, millis, millis, TimeUnit.MILLISECONDS);
			}
		}

		/**
		 * Queues every cached key. What it throws is logged and reported until a resync
		 * succeeds, and never ends the resyncs (an executor's periodic task that throws
		 * is not run again).
		 */
		private void resync() {
			try {
				if (Workers.this.informer.lister().hasSynced()) {
					for (String key : Workers.this.cached.get()) {
						this.queue.add(key);
					}
					Workers.this.resyncFailure = null;
				}
			}
			catch (Throwable ex) {
				resyncFailed(ex);
			}
		}

		private void resyncFailed(Throwable ex) {
			boolean error = ex instanceof Error;
			if (error) {
				Workers.this.errors.incrementAndGet();
			}
			ControllerStatus.Failure last = Workers.this.resyncFailure;
			int inARow = (last != null) ? last.inARow() + 1 : 1;
			Workers.this.resyncFailure = failure(ex, inARow);
			String message = "Controller " + Workers.this.name + ": resync failed (" + inARow
					+ " in a row); the next one runs in " + Workers.this.options.resyncPeriod();
			boolean show = Workers.this.showMessages;
			if (inARow > 1) {
				Workers.this.logger.warn(message + ": " + Thrown.describe(ex, show));
			}
			else if (error) {
				Thrown.error(Workers.this.logger, message, ex, show);
			}
			else {
				Thrown.warn(Workers.this.logger, message, ex, show);
			}
		}

		/** How many of the run's workers are alive. */
		int alive() {
			int alive = 0;
			for (Thread thread : this.threads) {
				if (thread.isAlive()) {
					alive++;
				}
			}
			return alive;
		}

		boolean stop(Duration timeout) {
			this.stopping = true;
			Informer.Registration listening = this.registration;
			if (listening != null) {
				listening.remove();
			}
			this.secondaries.forEach(Listening::remove);
			ScheduledExecutorService resyncs = this.resync;
			if (resyncs != null) {
				resyncs.shutdownNow();
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
				Workers.this.logger.warn("Controller " + Workers.this.name + ": reconciles still running " + timeout
						+ " after the stop; interrupting them (their keys are reconciled again at the next start)");
			}
			for (Thread thread : this.threads) {
				thread.interrupt();
			}
			return drained;
		}

		private void reconcileInSlot(String key) {
			Thread me = Thread.currentThread();
			synchronized (this.slots) {
				this.slots.put(me, key);
			}
			try {
				reconcile(this.queue, key);
			}
			finally {
				synchronized (this.slots) {
					this.slots.remove(me);
					if (this.abandoned.remove(me)) {
						// the interrupt was for that reconcile only
						Thread.interrupted();
					}
				}
			}
		}

		int interrupt(Predicate<String> which) {
			int interrupted = 0;
			for (Run run : this.earlier) {
				interrupted += run.interruptOwn(which);
			}
			return interrupted + interruptOwn(which);
		}

		private int interruptOwn(Predicate<String> which) {
			int interrupted = 0;
			synchronized (this.slots) {
				for (Map.Entry<Thread, String> slot : this.slots.entrySet()) {
					if (which.test(slot.getValue()) && this.abandoned.add(slot.getKey())) {
						slot.getKey().interrupt();
						interrupted++;
					}
				}
			}
			return interrupted;
		}

		private void work() {
			try {
				while (!Workers.this.informer.awaitSynced(SYNC_POLL)) {
					if (this.stopping) {
						return;
					}
				}
				// the objects of secondary watches that could not be mapped before the
				// watch synced (its resource not known yet)
				this.secondaries.forEach(Listening::flush);
				String key;
				while ((key = this.queue.take()) != null) {
					try {
						work(key);
					}
					catch (Throwable ex) {
						// not from a reconcile, which fails its attempt only (see
						// reconcile): the worker goes on
						Thrown.error(Workers.this.logger,
								"Controller " + Workers.this.name + ": a worker failed on " + key + "; it goes on", ex,
								Workers.this.showMessages);
					}
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (Throwable ex) {
				// counted in the status as a worker no longer alive, for health
				Thrown.error(Workers.this.logger, "Controller " + Workers.this.name + ": a worker ended", ex,
						Workers.this.showMessages);
			}
		}

		private void work(String key) {
			// checked once the key is marked processing, so that busyWith sees a key
			// taken
			// before the gate closed
			boolean reconcile = false;
			try {
				if (!Workers.this.condition.getAsBoolean()) {
					// a leader-only controller no longer leader, not stopped yet: the key
					// waits, and the stop that follows hands it to the next term
					this.queue.done(key);
					this.queue.addAfter(key, CONDITION_RECHECK);
					return;
				}
				reconcile = Workers.this.keys.test(key);
			}
			catch (Throwable ex) {
				this.queue.done(key);
				this.queue.addAfter(key, CONDITION_RECHECK);
				throw ex;
			}
			if (reconcile) {
				reconcileInSlot(key);
			}
			else {
				this.queue.done(key);
				Workers.this.refused.accept(key);
			}
		}

	}

}
