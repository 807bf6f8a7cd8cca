package dev.listwatch.informer;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

import dev.listwatch.Lister;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectMeta;
import dev.listwatch.WatchEvent;
import dev.listwatch.cache.Store;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.event.WatchSyncedEvent;
import dev.listwatch.reflector.Reflector;
import dev.listwatch.reflector.ReflectorHandler;
import dev.listwatch.reflector.ReflectorOptions;
import dev.listwatch.reflector.ReflectorStatus;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Runs one declared watch: a {@link Reflector} on its own thread keeps a {@link Store} in step
 * with the API server, and every change, once in the store, is published as a
 * {@link ResourceEvent} through a {@link Dispatcher}, off the reading thread and in order per
 * object. Started and stopped with the application context.
 *
 * @param <T> the Java type of the objects
 */
public final class Informer<T> implements SmartLifecycle, ReflectorHandler<T> {

	/** Starts before the web server and stops after it. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final Log logger = LogFactory.getLog(Informer.class);

	private final String watch;

	private final Class<T> type;

	private final Store<T> store;

	private final ListerWatcher<T> listerWatcher;

	private final ReflectorOptions options;

	private final InformerRuntime runtime;

	private final ReflectorStatus status;

	private final Dispatcher dispatcher;

	private final CountDownLatch synced = new CountDownLatch(1);

	private final Object lifecycle = new Object();

	private volatile Reflector<T> reflector;

	private volatile CountDownLatch finished;

	/**
	 * Makes an informer.
	 * @param watch the watch's name
	 * @param type the Java type of the objects
	 * @param listerWatcher what lists and watches the objects
	 * @param store the cache
	 * @param options how to list and watch
	 * @param runtime the shared threads, clock and publisher
	 */
	public Informer(String watch, Class<T> type, ListerWatcher<T> listerWatcher, Store<T> store,
			ReflectorOptions options, InformerRuntime runtime) {
		this.watch = watch;
		this.type = type;
		this.listerWatcher = listerWatcher;
		this.store = store;
		this.options = options;
		this.runtime = runtime;
		this.status = new ReflectorStatus(runtime.clock().instant());
		this.dispatcher = new Dispatcher(watch, runtime.dispatchExecutor(), runtime.publisher());
	}

	public String watch() {
		return this.watch;
	}

	public Class<T> type() {
		return this.type;
	}

	public Lister<T> lister() {
		return this.store.lister();
	}

	public ListerWatcher<T> listerWatcher() {
		return this.listerWatcher;
	}

	public ReflectorStatus status() {
		return this.status;
	}

	/** @return how the watch lists and watches (selectors, timeouts, backoff) */
	public ReflectorOptions options() {
		return this.options;
	}

	/** @return the number of objects cached */
	public int size() {
		return this.store.size();
	}

	/** @return the events waiting for listeners */
	public int backlog() {
		return this.dispatcher.backlog();
	}

	/** @return how often a listener has thrown */
	public long listenerFailures() {
		return this.dispatcher.failures();
	}

	/** @return the index names of the cache */
	public java.util.Set<String> indexNames() {
		return this.store.indexNames();
	}

	/**
	 * Waits until the initial list is in the cache.
	 * @param timeout how long to wait at most
	 * @return whether the watch synced in time
	 * @throws InterruptedException when interrupted
	 */
	public boolean awaitSynced(Duration timeout) throws InterruptedException {
		return this.synced.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
	}

	@Override
	public void start() {
		synchronized (this.lifecycle) {
			if (this.reflector != null) {
				return;
			}
			Reflector<T> reflector = new Reflector<>(this.watch, this.listerWatcher, this, this.options,
					this.runtime.clock(), RandomGenerator.getDefault(), this.status);
			CountDownLatch done = new CountDownLatch(1);
			this.reflector = reflector;
			this.finished = done;
			this.runtime.register(this);
			this.runtime.startWatchThread(this.watch, () -> {
				try {
					reflector.run();
				}
				catch (RuntimeException | Error ex) {
					logger.error("Watch " + this.watch + " stopped unexpectedly", ex);
				}
				finally {
					done.countDown();
				}
			});
		}
	}

	@Override
	public void stop() {
		Reflector<T> reflector;
		CountDownLatch done;
		synchronized (this.lifecycle) {
			reflector = this.reflector;
			done = this.finished;
			this.reflector = null;
		}
		if (reflector == null) {
			return;
		}
		this.runtime.unregister(this);
		reflector.stop();
		this.dispatcher.close();
		try {
			if (!done.await(10, TimeUnit.SECONDS)) {
				logger.warn("Watch " + this.watch + " did not stop within 10 s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public boolean isRunning() {
		return this.reflector != null;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	void checkIdle(Instant now) {
		Reflector<T> reflector = this.reflector;
		if (reflector != null) {
			reflector.checkIdle(now);
		}
	}

	@Override
	public void replace(List<ObjectMeta> metas, List<T> objects, boolean initial) {
		Store.Diff<T> diff = this.store.replace(metas, objects);
		for (Store.Entry<T> added : diff.added()) {
			publish(ResourceEvent.Type.ADDED, added.object(), null, added.meta(), initial, false);
		}
		for (Store.Update<T> modified : diff.modified()) {
			publish(ResourceEvent.Type.MODIFIED, modified.newEntry().object(), modified.oldEntry().object(),
					modified.newEntry().meta(), initial, false);
		}
		for (Store.Entry<T> deleted : diff.deleted()) {
			publish(ResourceEvent.Type.DELETED, deleted.object(), null, deleted.meta(), initial, true);
		}
		if (initial) {
			this.store.markSynced();
			this.dispatcher.enqueueAfterAll(new WatchSyncedEvent(this, this.watch, this.store.size()));
			this.synced.countDown();
			logger.info("Watch " + this.watch + " synced: " + this.store.size() + " objects of "
					+ this.listerWatcher.resource());
		}
		else if (!diff.isEmpty()) {
			logger.info("Watch " + this.watch + " relisted: " + diff.added().size() + " added, "
					+ diff.modified().size() + " modified, " + diff.deleted().size() + " deleted");
		}
	}

	@Override
	public void apply(WatchEvent<T> event) {
		ObjectMeta meta = event.meta();
		switch (event.type()) {
			case ADDED, MODIFIED -> {
				T old = this.store.upsert(meta, event.object());
				publish((old == null) ? ResourceEvent.Type.ADDED : ResourceEvent.Type.MODIFIED, event.object(), old,
						meta, false, false);
			}
			case DELETED -> {
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

	private void publish(ResourceEvent.Type type, T object, T old, ObjectMeta meta, boolean initial,
			boolean finalStateUnknown) {
		this.dispatcher.enqueue(new ResourceEvent<>(this, this.watch, type, object, old, meta, initial,
				finalStateUnknown, this.type));
	}

	@Override
	public String toString() {
		return "Informer[" + this.watch + "]";
	}

}
