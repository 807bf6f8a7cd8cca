package dev.listwatch.informer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import dev.listwatch.Lister;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectTransform;
import dev.listwatch.Resource;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchStatus;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.event.WatchStateChangedEvent;
import dev.listwatch.event.WatchSyncedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Runs one declared watch: a {@link Reflector} on its own thread keeps a {@link Store} in
 * step with the API server, and every change, once in the store, is published as a
 * {@link ResourceEvent} through a {@link Dispatcher}, off the reading thread and in order
 * per object: to the application's {@code @EventListener} methods, and to each listener
 * added with {@link #addListener}. Started and stopped with the application context, and
 * startable again after a stop (context {@code stop()}/{@code start()},
 * checkpoint/restore): the cache is kept, the changes made meanwhile are published, and
 * events that waited for listeners at the stop are published after the start.
 * <p>
 * A stopped watch never writes its cache again: {@link #stop(Runnable)} closes the gate
 * through which its reflector writes before it returns, and aborts the reflector's
 * request in flight. Stopping is asynchronous, so the watches of an application stop in
 * parallel.
 * <p>
 * After a stop, {@link #start()} resumes with a watch from the last resourceVersion the
 * cache holds (no list; a relist only if that resourceVersion is too old by then).
 * <p>
 * Objects the watch cannot hold ({@link UnbindableObject}) are never taken for deleted:
 * the cache keeps their last state that could be held, no event is published for the
 * change it could not take, and {@link WatchStatus#unbindable()} lists them until they
 * bind again or are deleted.
 * <p>
 * <b>Namespace sets.</b> An informer of several namespaces runs one reflector per
 * namespace, each with its own thread, resourceVersion, restarts and relists, into one
 * cache: a namespace that is relisted replaces only its own objects. It has synced once
 * every namespace has, and its status combines theirs ({@link WatchStatus#namespaces()}).
 * <p>
 * <b>Listeners.</b> Each listener added with {@link #addListener} has its own queue and
 * receives events one at a time, in order per object, on the factory's dispatch threads
 * (never on the thread that reads the watch); a slow listener delays only itself on
 * virtual threads, while on platform threads one that blocks holds one of the factory's
 * dispatch threads until it returns. A listener added after the cache holds objects first
 * receives each of them as ADDED with {@link ResourceEvent#initialList()} true, then
 * every change made after that; none is missed or repeated. While the informer is stopped
 * its listeners stay registered and receive nothing; what waited for them is delivered
 * after the next {@link #start()}.
 * <p>
 * <b>States.</b> Each transition of the watch (synced, failing, recovered, failed after a
 * refusal under {@link InformerOptions.OnRefusal#FAIL}, stopped) is published once as a
 * {@link WatchStateChangedEvent}, on the dispatch threads, also while stopped.
 * Consecutive changes of one object that wait for a busy listener reach it folded into
 * one MODIFIED event (first old state, latest new state).
 *
 * @param <T> the Java type of the objects
 */
public final class Informer<T> implements SmartLifecycle {

	/** Starts before the web server and stops after it. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final Log logger = LogFactory.getLog(Informer.class);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private final String watch;

	private final Class<T> type;

	private final Store<T> store;

	/** One per namespace of a namespace set; else one, for its namespace or all. */
	private final List<Feed<T>> feeds;

	private final InformerOptions options;

	private final InformerRuntime runtime;

	/** Its idle check, registered with the runtime while it runs. */
	private final Runnable idleCheck = this::checkIdle;

	private final Listeners<T> listeners;

	/** Writes the cache and queues the events; under {@link #changes}. */
	private final CacheWriter<T> writer;

	/** Publishes its {@link WatchStateChangedEvent}s. */
	private final StateEvents states;

	private final ReentrantLock lifecycle = new ReentrantLock();

	/**
	 * Held while the cache is written and its events queued, and while a listener is
	 * added, so a new listener's snapshot of the cache and the events it then receives
	 * neither miss nor repeat a change. Taken inside a run's gate.
	 */
	private final ReentrantLock changes = new ReentrantLock();

	/**
	 * When set, the informer runs only while it holds, each run from a fresh sync (see
	 * {@link #runOnlyWhen}); {@code null} for an informer that runs when started.
	 */
	private volatile @Nullable BooleanSupplier runCondition;

	private volatile @Nullable InformerRun<T> current;

	/** The run stopped last, until a start has seen it finish. */
	private @Nullable InformerRun<T> previous;

	/**
	 * Makes an informer; {@link InformerFactory#informer} is the public way.
	 * @param watch the watch's name
	 * @param type the Java type of the objects
	 * @param listerWatchers what lists and watches the objects, by namespace for a
	 * namespace set (in the order given), else one under the key {@code null}
	 * @param store the cache
	 * @param options how to list and watch
	 * @param runtime the shared threads, clock and publisher
	 */
	Informer(String watch, Class<T> type, Map<@Nullable String, ListerWatcher<T>> listerWatchers, Store<T> store,
			InformerOptions options, InformerRuntime runtime) {
		if (listerWatchers.isEmpty()) {
			throw new IllegalArgumentException("Watch " + watch + " has nothing to list and watch");
		}
		this.watch = watch;
		this.type = type;
		this.store = store;
		this.options = options;
		this.runtime = runtime;
		List<Feed<T>> feeds = new ArrayList<>();
		listerWatchers.forEach((namespace, listerWatcher) -> feeds
			.add(new Feed<>(namespace, listerWatcher, new ReflectorStatus(runtime.clock(), runtime.ticker()))));
		this.feeds = List.copyOf(feeds);
		store.syncedBy(this::hasSynced);
		this.listeners = new Listeners<>(watch, runtime);
		this.writer = new CacheWriter<>(this, watch, type, store, this.listeners, this::hasSynced);
		this.states = new StateEvents(this, watch, this.feeds.stream().map((feed) -> feed.status).toList(),
				this::hasSynced, this::status, runtime);
		this.feeds.forEach((feed) -> feed.status.observe(this.states));
	}

	/**
	 * The watch's name: the prefix of its bean names, the {@code watch} tag of its
	 * meters, and what its {@link ResourceEvent}s name.
	 * @return the name
	 */
	public String watch() {
		return this.watch;
	}

	/**
	 * The Java type its objects are bound to.
	 * @return the type
	 */
	public Class<T> type() {
		return this.type;
	}

	/**
	 * The read-only view of the cache, readable from any thread at any time (empty before
	 * the first sync; see {@link Lister#hasSynced()}).
	 * @return the lister
	 */
	public Lister<T> lister() {
		return this.store.lister();
	}

	/**
	 * What lists and watches the objects, for a watch of one namespace or all.
	 * @return the lister-watcher
	 * @throws IllegalStateException for a watch of a namespace set, which has one per
	 * namespace ({@link #listerWatchers()})
	 */
	public ListerWatcher<T> listerWatcher() {
		if (this.feeds.size() > 1) {
			throw new IllegalStateException("Watch " + this.watch + " covers the namespaces " + namespaces()
					+ ", each with its own ListerWatcher: use listerWatchers()");
		}
		return this.feeds.get(0).listerWatcher;
	}

	/**
	 * What lists and watches the objects: one per namespace for a namespace set, in the
	 * order the namespaces were given (name order for a {@link WatchDeclaration}), else
	 * one.
	 * @return the lister-watchers
	 */
	public List<ListerWatcher<T>> listerWatchers() {
		return this.feeds.stream().map((feed) -> feed.listerWatcher).toList();
	}

	/**
	 * The namespaces of a namespace set, in the order given (name order for a
	 * {@link WatchDeclaration}).
	 * @return the namespaces, or an empty list when the watch covers one namespace or all
	 */
	public List<String> namespaces() {
		return (this.feeds.size() > 1) ? this.feeds.stream().map((feed) -> feed.namespace).toList() : List.of();
	}

	/**
	 * The watch's status now: a new immutable snapshot on every call, from any thread,
	 * without blocking the watch.
	 * @return the status
	 */
	public WatchStatus status() {
		Resource resource = this.feeds.get(0).listerWatcher.resource();
		List<String> namespaces = namespaces();
		if (!namespaces.isEmpty()) {
			resource = new Resource(resource.group(), resource.version(), resource.plural(), resource.kind(),
					resource.namespaced(), null);
		}
		WatchStatus.Watched watched = new WatchStatus.Watched(resource, this.options.labelSelector(),
				this.options.fieldSelector(), this.type.getName(), List.copyOf(this.store.indexNames()),
				this.options.idleTimeout(), this.options.resyncs() ? this.options.resyncPeriod() : null,
				this.options.autoStartup(), namespaces);
		boolean running = isRunning();
		List<UnbindableObject> unbindable = this.writer.unbindable();
		WatchStatus whole = this.feeds.get(0).status.snapshot(this.watch, watched, running, this.store.size(),
				this.listeners.backlog(), this.listeners.failures(), this.store.indexFailures(),
				this.store.lastIndexFailure(), unbindable, this.listeners.stall());
		if (namespaces.isEmpty()) {
			return whole;
		}
		Map<String, WatchStatus> byNamespace = new LinkedHashMap<>();
		for (Feed<T> feed : this.feeds) {
			String namespace = Objects.requireNonNull(feed.namespace, "each feed of a namespace set has its namespace");
			byNamespace.put(namespace,
					feed.snapshotInSet(this.watch, watched, running, this.store.countIn(namespace), unbindable));
		}
		return ReflectorStatus.combine(this.watch, watched, byNamespace, whole);
	}

	/**
	 * Whether every namespace's watch has synced since the current start (for one that
	 * runs only under a condition: and it runs now).
	 */
	private boolean hasSynced() {
		for (Feed<T> feed : this.feeds) {
			if (!feed.status.hasSyncedSinceStart()) {
				return false;
			}
		}
		return this.runCondition == null || isRunning();
	}

	/**
	 * Runs this informer only while {@code condition} holds, each run from a fresh sync:
	 * for a watch that runs on the leader only, as client-go runs an informer per term.
	 * {@link #start()} does nothing while the condition is false, whoever calls it (an
	 * explicit start of the application context, code that holds the informer). Each
	 * start lists (no older than the cache, which is kept) and publishes the difference
	 * with what the cache holds, then a {@link WatchSyncedEvent}; until then, and while
	 * it is stopped, it is not synced: the lister's {@code hasSynced()},
	 * {@link #awaitSynced}, and its status say so, so that a cache of an earlier term
	 * never passes for current. Call before the first start.
	 * @param condition whether the informer may run now, asked at each start
	 */
	public void runOnlyWhen(BooleanSupplier condition) {
		this.runCondition = condition;
	}

	/**
	 * The transform of every object before it is cached: see {@link #setTransform}.
	 * @return the transform, or {@code null} when the objects are cached as the server
	 * sent them
	 */
	public @Nullable ObjectTransform<T> transform() {
		return this.writer.transform();
	}

	/**
	 * Reshapes or strips every object before it is cached and published (client-go's
	 * {@code SetTransform}); see {@link ObjectTransform}. Call before the first start.
	 * @param transform the transform, or {@code null} for none
	 * @throws IllegalStateException when the informer runs
	 */
	public void setTransform(@Nullable ObjectTransform<T> transform) {
		this.lifecycle.lock();
		try {
			if (this.current != null) {
				throw new IllegalStateException("Watch " + this.watch + " runs: set its transform before it starts");
			}
			this.writer.transform(transform);
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	/**
	 * Waits until the initial list is in the cache. Returns at once once it was, also
	 * after a stop; for an informer that runs only under a condition
	 * ({@link #runOnlyWhen}), once the list of its current start is. Any thread but a
	 * listener's of this watch (the sync is published after the initial events).
	 * @param timeout how long to wait at most
	 * @return whether the watch synced in time
	 * @throws InterruptedException when interrupted
	 */
	public boolean awaitSynced(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		for (Feed<T> feed : this.feeds) {
			if (!feed.status.awaitSynced(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Adds a listener of this watch's changes, before or after the start. Once added, it
	 * receives every change of the cache as a {@link ResourceEvent}; if the cache holds
	 * objects already, it first receives each of them as ADDED with
	 * {@link ResourceEvent#initialList()} true, in its own queue, without delaying other
	 * listeners. It runs on the factory's dispatch threads, one event at a time, in order
	 * per object; what it throws is logged and counted
	 * ({@link WatchStatus#listenerFailures()}), and it goes on receiving.
	 * @param listener the listener
	 * @return the registration, to remove it and to know when it has received the initial
	 * list
	 */
	public Registration addListener(Consumer<? super ResourceEvent<T>> listener) {
		this.changes.lock();
		try {
			return new Listener(this.writer.subscribe(listener, isRunning()));
		}
		finally {
			this.changes.unlock();
		}
	}

	@Override
	public void start() {
		this.lifecycle.lock();
		try {
			if (this.current != null) {
				return;
			}
			BooleanSupplier condition = this.runCondition;
			if (condition != null && !condition.getAsBoolean()) {
				// a leader-only watch on a replica that is not leader: whoever starts it,
				// it stays stopped
				logger.debug("Watch " + this.watch + " is not started: its condition to run does not hold");
				return;
			}
			awaitPrevious();
			if (condition != null) {
				this.changes.lock();
				try {
					// this run announces its own sync
					this.writer.forgetSync();
				}
				finally {
					this.changes.unlock();
				}
			}
			InformerRun<T> run = new InformerRun<>(this.watch, this.feeds.size(), this.changes, this.writer,
					this.listeners, this::hasSynced);
			for (Feed<T> feed : this.feeds) {
				Reflector<T> reflector = new Reflector<>(feed.name(this.watch), feed.listerWatcher, run.handler(feed),
						this.options,
						// java.util.Random: thread-safe and loaded already
						// (RandomGenerator.getDefault() loads every generator the JDK has
						// to pick one)
						this.runtime.ticker(), new Random(), feed.status);
				feed.startsFrom(reflector, condition != null);
				run.reflectors.add(reflector);
			}
			if (condition != null && !condition.getAsBoolean()) {
				// lost meanwhile (the wait for the previous run): nothing queued is
				// published on a follower
				logger.debug("Watch " + this.watch + " is not started: its condition to run no longer holds");
				return;
			}
			setCurrent(run);
			if (this.options.resyncs()) {
				run.resync = this.runtime.every("Resync of watch " + this.watch, run::resync,
						Objects.requireNonNull(this.options.resyncPeriod(), "resyncs() tells it has one"));
			}
			this.runtime.addIdleCheck(this.idleCheck);
			for (int i = 0; i < this.feeds.size(); i++) {
				Feed<T> feed = this.feeds.get(i);
				Reflector<T> reflector = run.reflectors.get(i);
				this.runtime.startWatchThread(feed.threadName(this.watch), () -> {
					try {
						reflector.run();
					}
					catch (Throwable ex) {
						// the loop handles what it can; this is what escaped it: the
						// watch is down
						feed.status.fatal(ex);
						logger.error("Watch " + reflector.name() + " stopped unexpectedly", ex);
					}
					finally {
						run.finished();
					}
				});
			}
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	/**
	 * Stops the watch and waits for its thread to end, for at most 10 seconds. Once this
	 * returns, the watch no longer writes its cache nor queues events.
	 */
	@Override
	public void stop() {
		CountDownLatch done = new CountDownLatch(1);
		stop(done::countDown);
		try {
			if (!done.await(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				logger.warn("Watch " + this.watch + " did not stop within " + STOP_TIMEOUT.toSeconds() + " s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Stops the watch without waiting: the reflector's writes end before this returns
	 * (the gate closes), its open watch is closed and a request in flight aborted;
	 * {@code callback} runs once its thread has ended and the
	 * {@link WatchStateChangedEvent} STOPPED has been published. Events waiting for
	 * listeners stay queued for a later {@link #start()}.
	 * @param callback what to run once stopped, on the watch's thread or this one
	 */
	@Override
	public void stop(Runnable callback) {
		InformerRun<T> run;
		this.lifecycle.lock();
		try {
			run = this.current;
			if (run != null) {
				this.runtime.removeIdleCheck(this.idleCheck);
				setCurrent(null);
				// a start from now on waits for this run's threads before it resumes
				this.previous = run;
			}
		}
		finally {
			this.lifecycle.unlock();
		}
		if (run == null) {
			callback.run();
			return;
		}
		for (Reflector<T> reflector : run.reflectors) {
			reflector.stop();
		}
		if (run.resync != null) {
			run.resync.cancel(false);
		}
		run.close();
		if (this.runCondition != null) {
			// stopped, its cache is no longer current: not synced until a next run syncs
			// afresh. After the gate closed, so that no replace of this run marks it
			// synced again
			this.changes.lock();
			try {
				for (Feed<T> feed : this.feeds) {
					feed.status.syncAfresh();
				}
				this.writer.forgetSync();
				this.listeners.unsynced();
			}
			finally {
				this.changes.unlock();
			}
		}
		run.whenFinished(() -> {
			for (int i = 0; i < this.feeds.size(); i++) {
				// a reflector that ended FAILED (a refusal) is STOPPED now
				this.feeds.get(i).status.stopped(run.reflectors.get(i));
			}
			this.states.stopped(callback);
		});
	}

	/**
	 * Sets the current run, and lets the dispatchers publish while there is one:
	 * atomically for a listener being added, which is paused while the informer is
	 * stopped.
	 */
	private void setCurrent(@Nullable InformerRun<T> run) {
		this.changes.lock();
		try {
			this.current = run;
			this.listeners.running(run != null);
		}
		finally {
			this.changes.unlock();
		}
	}

	/**
	 * Waits (at most the stop timeout) for the thread of the run stopped last: its last
	 * words (its state) must not land on the next run's status. Called under the
	 * lifecycle lock.
	 */
	private void awaitPrevious() {
		InformerRun<T> run = this.previous;
		if (run == null) {
			return;
		}
		try {
			if (!run.done.await(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				logger.warn("Watch " + this.watch + " is started again while its previous run has not ended after "
						+ STOP_TIMEOUT.toSeconds() + " s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		for (int i = 0; i < this.feeds.size(); i++) {
			// a reflector stopped after a failure must resync on the next start
			this.feeds.get(i).resyncPending = run.reflectors.get(i).needsResync();
		}
		this.previous = null;
	}

	@Override
	public boolean isRunning() {
		return this.current != null;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * Whether the application context starts this informer:
	 * {@link InformerOptions#autoStartup()}. When false, the application calls
	 * {@link #start()} (for example when it becomes leader).
	 * @return whether it starts with the context
	 */
	@Override
	public boolean isAutoStartup() {
		return this.options.autoStartup();
	}

	void checkIdle() {
		InformerRun<T> run = this.current;
		if (run != null) {
			for (Reflector<T> reflector : run.reflectors) {
				reflector.checkIdle();
			}
			// a dispatch the executor could not run: its events are not left waiting for
			// the next one
			this.listeners.retry();
			// a stream held open for a second since is progress: RECOVERED
			this.states.failingChanged();
		}
	}

	@Override
	public String toString() {
		return "Informer[" + this.watch + "]";
	}

	/**
	 * The registration of a listener added with {@link #addListener}.
	 */
	public interface Registration {

		/**
		 * Whether the listener has received the cache as it was when it was added, and
		 * (for a listener added before the first sync) the whole initial list:
		 * client-go's {@code ResourceEventHandlerRegistration.HasSynced}.
		 * @return whether it has
		 */
		boolean hasSynced();

		/**
		 * Removes the listener: it receives nothing more (an event being delivered is the
		 * last). Idempotent.
		 */
		void remove();

	}

	/** The registration of a listener added in code. */
	private final class Listener implements Registration {

		private final Listeners.Added<T> added;

		Listener(Listeners.Added<T> added) {
			this.added = added;
		}

		@Override
		public boolean hasSynced() {
			return this.added.hasSynced();
		}

		@Override
		public void remove() {
			Informer.this.changes.lock();
			try {
				Informer.this.listeners.remove(this.added);
			}
			finally {
				Informer.this.changes.unlock();
			}
		}

		@Override
		public String toString() {
			return "Listener of watch " + Informer.this.watch;
		}

	}

}
