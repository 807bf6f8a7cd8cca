package dev.listwatch.informer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import dev.listwatch.ObjectList.Item;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;
import org.jspecify.annotations.Nullable;

/**
 * One run of the watch, from a start to a stop: its reflectors (one per namespace of a
 * namespace set), and the gate through which they write the cache. Once closed, the gate
 * lets no write through, so a reflector that was still inside a list when it was stopped
 * cannot replace the cache later.
 */
final class InformerRun<T> {

	private final ReentrantLock gate = new ReentrantLock();

	/** Counted down as each reflector's thread ends. */
	final CountDownLatch done;

	private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();

	/** Its reflectors, one per feed, in the informer's order of feeds. */
	final List<Reflector<T>> reflectors = new ArrayList<>();

	private boolean open = true;

	/** The periodic resync, when the options ask for one. */
	volatile @Nullable ScheduledFuture<?> resync;

	private final String watch;

	/** The informer's lock of changes, taken inside the gate. */
	private final ReentrantLock changes;

	private final CacheWriter<T> writer;

	private final Listeners<T> listeners;

	/** Whether the informer has synced. */
	private final BooleanSupplier synced;

	InformerRun(String watch, int reflectors, ReentrantLock changes, CacheWriter<T> writer, Listeners<T> listeners,
			BooleanSupplier synced) {
		this.watch = watch;
		this.done = new CountDownLatch(reflectors);
		this.changes = changes;
		this.writer = writer;
		this.listeners = listeners;
		this.synced = synced;
	}

	/**
	 * Delivers the whole cache again to listeners, as MODIFIED events flagged resync (the
	 * same object as old and new), without a request; through the gate, so between two
	 * changes. Nothing before the first sync, nothing once stopped.
	 */
	void resync() {
		throughGate(() -> {
			if (this.open && this.synced.getAsBoolean()) {
				this.writer.resync();
			}
		});
	}

	/** Runs a write of the cache through the gate, between two changes. */
	private void throughGate(Runnable write) {
		this.gate.lock();
		this.changes.lock();
		try {
			write.run();
		}
		finally {
			this.changes.unlock();
			this.gate.unlock();
		}
	}

	/** Where one namespace's reflector writes. */
	ReflectorHandler<T> handler(Feed<T> feed) {
		return new ReflectorHandler<>() {

			@Override
			public void replace(List<Item<T>> items, List<UnbindableObject> unbindable, boolean initial) {
				throughGate(() -> {
					ensureOpen();
					InformerRun.this.writer.replace(feed, items, unbindable, initial);
				});
			}

			@Override
			public void apply(WatchEvent<T> event) {
				InformerRun.this.gate.lock();
				InformerRun.this.changes.lock();
				try {
					ensureOpen();
					// what it publishes waits for release(), up to Dispatcher.HOLD events
					InformerRun.this.writer.apply(event, true);
				}
				finally {
					InformerRun.this.changes.unlock();
					InformerRun.this.gate.unlock();
				}
			}

			@Override
			public void release() {
				InformerRun.this.listeners.release();
			}

		};
	}

	/**
	 * Refuses a write after the stop by throwing, so the stopped reflector does not take
	 * it for handed on (its resourceVersion, where a later start resumes, stays before
	 * it).
	 */
	private void ensureOpen() {
		if (!this.open) {
			throw new IllegalStateException("Watch " + this.watch + " is stopped");
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

	/** One reflector's thread ended; the run has finished once all have. */
	void finished() {
		this.done.countDown();
		if (this.done.getCount() > 0) {
			return;
		}
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
