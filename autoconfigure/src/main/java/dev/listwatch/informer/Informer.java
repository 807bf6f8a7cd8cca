package dev.listwatch.informer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;

import dev.listwatch.Lister;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList.Item;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Resource;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.event.WatchSyncedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Runs one declared watch: a {@link Reflector} on its own thread keeps a {@link Store} in step
 * with the API server, and every change, once in the store, is published as a
 * {@link ResourceEvent} through a {@link Dispatcher}, off the reading thread and in order per
 * object. Started and stopped with the application context, and startable again after a stop
 * (context {@code stop()}/{@code start()}, checkpoint/restore): the cache is kept, the changes
 * made meanwhile are published, and events that waited for listeners at the stop are published
 * after the start.
 * <p>
 * A stopped watch never writes its cache again: {@link #stop(Runnable)} closes the gate through
 * which its reflector writes before it returns, and aborts the reflector's request in flight.
 * Stopping is asynchronous, so the watches of an application stop in parallel.
 * <p>
 * After a stop, {@link #start()} resumes with a watch from the last resourceVersion the cache
 * holds (no list; a relist only if that resourceVersion is too old by then).
 * <p>
 * Objects the watch cannot hold ({@link UnbindableObject}) are never taken for deleted: the cache
 * keeps their last state that could be held, no event is published for the change it could not
 * take, and {@link WatchStatus#unbindable()} lists them until they bind again or are deleted.
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

	private final ListerWatcher<T> listerWatcher;

	private final InformerOptions options;

	private final InformerFactory runtime;

	private final ReflectorStatus status;

	private final Dispatcher dispatcher;

	private final ReentrantLock lifecycle = new ReentrantLock();

	/** The objects the server has that the watch cannot hold, by key. */
	private final Map<String, UnbindableObject> unbindable = new ConcurrentHashMap<>();

	private volatile Run current;

	/** The run stopped last, until a start has seen it finish. */
	private Run previous;

	/** Whether the run stopped last had a resync pending (after a failure), which a start must do. */
	private boolean resyncPending;

	/** The index failures of the store already logged; written by the reflector's thread only. */
	private long indexFailuresLogged;

	/**
	 * Makes an informer; {@link InformerFactory#informer} is the public way.
	 * @param watch the watch's name
	 * @param type the Java type of the objects
	 * @param listerWatcher what lists and watches the objects
	 * @param store the cache
	 * @param options how to list and watch
	 * @param runtime the shared threads, clock and publisher
	 */
	Informer(String watch, Class<T> type, ListerWatcher<T> listerWatcher, Store<T> store,
			InformerOptions options, InformerFactory runtime) {
		this.watch = watch;
		this.type = type;
		this.listerWatcher = listerWatcher;
		this.store = store;
		this.options = options;
		this.runtime = runtime;
		this.status = new ReflectorStatus(runtime.clock(), runtime.ticker());
		store.syncedBy(this.status::hasSynced);
		this.dispatcher = new Dispatcher(watch, runtime.dispatchExecutor(), runtime.publisher());
	}

	/**
	 * The watch's name: the prefix of its bean names, the {@code watch} tag of its meters, and what
	 * its {@link ResourceEvent}s name.
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
	 * The read-only view of the cache, readable from any thread at any time (empty before the first
	 * sync; see {@link Lister#hasSynced()}).
	 * @return the lister
	 */
	public Lister<T> lister() {
		return this.store.lister();
	}

	/**
	 * What lists and watches the objects.
	 * @return the lister-watcher
	 */
	public ListerWatcher<T> listerWatcher() {
		return this.listerWatcher;
	}

	/**
	 * The watch's status now: a new immutable snapshot on every call, from any thread, without
	 * blocking the watch.
	 * @return the status
	 */
	public WatchStatus status() {
		Resource resource = this.listerWatcher.resource();
		WatchStatus.Watched watched = new WatchStatus.Watched(resource, this.options.labelSelector(),
				this.options.fieldSelector(), this.type.getName(), List.copyOf(this.store.indexNames()),
				this.options.idleTimeout(), this.options.resyncs() ? this.options.resyncPeriod() : null,
				this.options.autoStartup());
		return this.status.snapshot(this.watch, watched, isRunning(), this.store.size(), this.dispatcher.backlog(),
				this.dispatcher.failures(), this.store.indexFailures(), this.store.lastIndexFailure(), unbindable());
	}

	/** The objects the server has that this watch cannot hold, in key order. */
	private List<UnbindableObject> unbindable() {
		if (this.unbindable.isEmpty()) {
			return List.of();
		}
		List<UnbindableObject> objects = new ArrayList<>(this.unbindable.values());
		objects.sort(Comparator.comparing(UnbindableObject::key));
		return objects;
	}

	/**
	 * Waits until the initial list is in the cache. Returns at once once it was, also after a stop.
	 * Any thread but a listener's of this watch (the sync is published after the initial events).
	 * @param timeout how long to wait at most
	 * @return whether the watch synced in time
	 * @throws InterruptedException when interrupted
	 */
	public boolean awaitSynced(Duration timeout) throws InterruptedException {
		return this.status.awaitSynced(timeout);
	}

	@Override
	public void start() {
		this.lifecycle.lock();
		try {
			if (this.current != null) {
				return;
			}
			awaitPrevious();
			Run run = new Run();
			run.reflector = new Reflector<>(this.watch, this.listerWatcher, run, this.options, this.runtime.ticker(),
					RandomGenerator.getDefault(), this.status);
			if (this.status.hasSynced() && !this.resyncPending) {
				// started again after a stop: the cache is whole up to the last resourceVersion the
				// reflector handed on, so a watch from there brings what changed meanwhile, without a list
				run.reflector.resumeFrom(this.status.lastResourceVersion());
			}
			this.current = run;
			if (this.options.resyncs()) {
				run.resync = this.runtime.every("Resync of watch " + this.watch, run::resync,
						this.options.resyncPeriod());
			}
			this.dispatcher.resume();
			this.runtime.register(this);
			this.runtime.startWatchThread(this.watch, () -> {
				try {
					run.reflector.run();
				}
				catch (Throwable ex) {
					// the loop handles what it can; this is what escaped it: the watch is down
					this.status.fatal(ex);
					logger.error("Watch " + this.watch + " stopped unexpectedly", ex);
				}
				finally {
					run.finished();
				}
			});
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	/**
	 * Stops the watch and waits for its thread to end, for at most 10 seconds. Once this returns,
	 * the watch no longer writes its cache nor queues events.
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
	 * Stops the watch without waiting: the reflector's writes end before this returns (the gate
	 * closes), its open watch is closed and a request in flight aborted; {@code callback} runs once
	 * its thread has ended. Events waiting for listeners stay queued for a later {@link #start()}.
	 * @param callback what to run once stopped, on the watch's thread or this one
	 */
	@Override
	public void stop(Runnable callback) {
		Run run;
		this.lifecycle.lock();
		try {
			run = this.current;
			this.current = null;
			if (run != null) {
				this.runtime.unregister(this);
				this.dispatcher.pause();
			}
		}
		finally {
			this.lifecycle.unlock();
		}
		if (run == null) {
			callback.run();
			return;
		}
		run.reflector.stop();
		if (run.resync != null) {
			run.resync.cancel(false);
		}
		run.close();
		this.lifecycle.lock();
		try {
			this.previous = run;
			this.resyncPending = run.reflector.needsResync();
		}
		finally {
			this.lifecycle.unlock();
		}
		run.whenFinished(callback);
	}

	/**
	 * Waits (at most the stop timeout) for the thread of the run stopped last: its last words (its
	 * state) must not land on the next run's status. Called under the lifecycle lock.
	 */
	private void awaitPrevious() {
		Run run = this.previous;
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
	 * Whether the application context starts this informer: {@link InformerOptions#autoStartup()}.
	 * When false, the application calls {@link #start()} (for example when it becomes leader).
	 * @return whether it starts with the context
	 */
	@Override
	public boolean isAutoStartup() {
		return this.options.autoStartup();
	}

	void checkIdle() {
		Run run = this.current;
		if (run != null) {
			run.reflector.checkIdle();
		}
	}

	private void replace(List<Item<T>> items, List<UnbindableObject> unbindable, boolean initial) {
		// after a stop and start the cache is whole already: this is a relist
		boolean first = initial && !this.status.hasSynced();
		if (!unbindable.isEmpty()) {
			// the server has them: keep the last state that could be held, so none is taken for deleted
			items = new ArrayList<>(items);
			for (UnbindableObject object : unbindable) {
				Store.Entry<T> cached = this.store.entry(object.key());
				if (cached != null) {
					items.add(new Item<>(cached.meta(), cached.object()));
				}
			}
		}
		Store.Diff<T> diff = this.store.replace(items);
		reportIndexFailures();
		this.unbindable.keySet().retainAll(unbindable.stream().map(UnbindableObject::key).toList());
		for (UnbindableObject object : unbindable) {
			this.unbindable.put(object.key(), object);
		}
		for (Store.Entry<T> added : diff.added()) {
			publish(ResourceEvent.Type.ADDED, added.object(), null, added.meta(), first, false);
		}
		for (Store.Update<T> modified : diff.modified()) {
			publish(ResourceEvent.Type.MODIFIED, modified.newEntry().object(), modified.oldEntry().object(),
					modified.newEntry().meta(), first, false);
		}
		for (Store.Entry<T> deleted : diff.deleted()) {
			publish(ResourceEvent.Type.DELETED, deleted.object(), null, deleted.meta(), first, true);
		}
		if (first) {
			this.status.markSynced();
			this.dispatcher.enqueueAfterAll(new WatchSyncedEvent(this, this.watch, this.store.size()));
			logger.info("Watch " + this.watch + " synced: " + this.store.size() + " objects of "
					+ this.listerWatcher.resource()
					+ (unbindable.isEmpty() ? "" : "; " + unbindable.size() + " more that it cannot hold"));
		}
		else if (!diff.isEmpty()) {
			logger.info("Watch " + this.watch + " relisted: " + diff.added().size() + " added, "
					+ diff.modified().size() + " modified, " + diff.deleted().size() + " deleted");
		}
	}

	private void apply(WatchEvent<T> event) {
		ObjectMeta meta = event.meta();
		switch (event.type()) {
			case ADDED, MODIFIED -> {
				if (event.unbindable() != null) {
					// it exists, in a state the watch cannot hold: keep the last one, publish nothing
					this.unbindable.put(meta.key(), event.unbindable());
					return;
				}
				if (!this.unbindable.isEmpty()) {
					this.unbindable.remove(meta.key());
				}
				T old = this.store.upsert(meta, event.object());
				reportIndexFailures();
				publish((old == null) ? ResourceEvent.Type.ADDED : ResourceEvent.Type.MODIFIED, event.object(), old,
						meta, false, false);
			}
			case DELETED -> {
				if (!this.unbindable.isEmpty()) {
					this.unbindable.remove(meta.key());
				}
				T old = this.store.delete(meta.key());
				T last = (event.object() != null) ? event.object() : old;
				if (last != null) {
					publish(ResourceEvent.Type.DELETED, last, null, meta, false, false);
				}
			}
			default -> {
			}
		}
	}

	private void reportIndexFailures() {
		long failures = this.store.indexFailures();
		if (failures != this.indexFailuresLogged) {
			WatchStatus.IndexFailure last = this.store.lastIndexFailure();
			logger.warn("Watch " + this.watch + ": index function '" + last.index() + "' failed for " + last.key()
					+ " with " + last.error() + " (" + (failures - this.indexFailuresLogged)
					+ " new failures); the object is cached without values in that index");
			this.indexFailuresLogged = failures;
		}
	}

	private void publish(ResourceEvent.Type type, T object, T old, ObjectMeta meta, boolean initial,
			boolean finalStateUnknown) {
		this.dispatcher.enqueue(new ResourceEvent<>(this, this.watch, type, object, old, meta, initial,
				finalStateUnknown, this.type));
	}

	@Override
	public String toString() {
		return "Informer[" + this.watch + "]";
	}

	/**
	 * One run of the watch, from a start to a stop: its reflector, and the gate through which that
	 * reflector writes the cache. Once closed, the gate lets no write through, so a reflector that
	 * was still inside a list when it was stopped cannot replace the cache later.
	 */
	private final class Run implements ReflectorHandler<T> {

		private final ReentrantLock gate = new ReentrantLock();

		private final CountDownLatch done = new CountDownLatch(1);

		private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();

		private boolean open = true;

		private Reflector<T> reflector;

		/** The periodic resync, when the options ask for one. */
		private volatile ScheduledFuture<?> resync;

		/**
		 * Delivers the whole cache again to listeners, as MODIFIED events flagged resync (the same
		 * object as old and new), without a request; through the gate, so between two changes.
		 * Nothing before the first sync, nothing once stopped.
		 */
		void resync() {
			this.gate.lock();
			try {
				if (!this.open || !Informer.this.status.hasSynced()) {
					return;
				}
				for (Store.Entry<T> entry : Informer.this.store.entries()) {
					Informer.this.dispatcher.enqueue(new ResourceEvent<>(Informer.this, Informer.this.watch,
							ResourceEvent.Type.MODIFIED, entry.object(), entry.object(), entry.meta(), false, false, true,
							Informer.this.type));
				}
			}
			finally {
				this.gate.unlock();
			}
		}

		@Override
		public void replace(List<Item<T>> items, List<UnbindableObject> unbindable, boolean initial) {
			this.gate.lock();
			try {
				ensureOpen();
				Informer.this.replace(items, unbindable, initial);
			}
			finally {
				this.gate.unlock();
			}
		}

		@Override
		public void apply(WatchEvent<T> event) {
			this.gate.lock();
			try {
				ensureOpen();
				Informer.this.apply(event);
			}
			finally {
				this.gate.unlock();
			}
		}

		/**
		 * Refuses a write after the stop by throwing, so the stopped reflector does not take it
		 * for handed on (its resourceVersion, where a later start resumes, stays before it).
		 */
		private void ensureOpen() {
			if (!this.open) {
				throw new IllegalStateException("Watch " + Informer.this.watch + " is stopped");
			}
		}

		/** Lets no more writes through; waits for one under way. */
		void close() {
			this.gate.lock();
			try {
				this.open = false;
			}
			finally {
				this.gate.unlock();
			}
		}

		void finished() {
			this.done.countDown();
			for (Runnable callback : this.callbacks) {
				if (this.callbacks.remove(callback)) {
					callback.run();
				}
			}
		}

		void whenFinished(Runnable callback) {
			this.callbacks.add(callback);
			if (this.done.getCount() == 0 && this.callbacks.remove(callback)) {
				callback.run();
			}
		}

	}

}
