package dev.listwatch.informer;

import java.util.List;

import dev.listwatch.ListerWatcher;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchStatus;
import org.jspecify.annotations.Nullable;

/**
 * One namespace's watch of an {@link Informer} (or its one watch): what lists and watches
 * it, and its status, which outlives the informer's runs (a stop and a start keep what it
 * has synced).
 *
 * @param <T> the Java type of the objects
 */
final class Feed<T> {

	/**
	 * The namespace of a namespace set, or {@code null} for the one watch of an informer.
	 */
	final @Nullable String namespace;

	final ListerWatcher<T> listerWatcher;

	final ReflectorStatus status;

	/**
	 * Whether its reflector stopped last with a resync pending (after a failure), which a
	 * start must do; under the informer's lifecycle lock.
	 */
	boolean resyncPending;

	/**
	 * Whether the run under way syncs afresh (see {@link Informer#runOnlyWhen}) and has
	 * not yet.
	 */
	volatile boolean freshSync;

	Feed(@Nullable String namespace, ListerWatcher<T> listerWatcher, ReflectorStatus status) {
		this.namespace = namespace;
		this.listerWatcher = listerWatcher;
		this.status = status;
	}

	/**
	 * Tells a new reflector of this feed where to start. The first start lists. A start
	 * after a stop resumes with a watch from the last resourceVersion the reflector
	 * handed on (the cache is whole up to there, so the watch brings what changed
	 * meanwhile, without a list), unless a resync was pending at the stop, or the
	 * informer syncs afresh each run: then it lists, never older than what the cache
	 * holds, and publishes the difference.
	 * @param reflector the reflector of the new run
	 * @param syncsAfresh whether each run syncs afresh (an informer that runs only under
	 * a condition, such as leadership)
	 */
	void startsFrom(Reflector<T> reflector, boolean syncsAfresh) {
		if (!this.status.hasSynced()) {
			return;
		}
		if (syncsAfresh) {
			this.status.syncAfresh();
			this.freshSync = true;
			reflector.relistNoOlderThan(this.status.lastResourceVersion());
		}
		else if (this.resyncPending) {
			reflector.relistNoOlderThan(this.status.lastResourceVersion());
		}
		else {
			reflector.resumeFrom(this.status.lastResourceVersion());
		}
	}

	/**
	 * The status of this namespace of a namespace set: its own resource, objects and
	 * unbindable objects; the listeners' counts are the set's.
	 * @param watch the watch's name
	 * @param set what the set watches
	 * @param running whether the informer runs
	 * @param objects how many objects of this namespace the cache holds
	 * @param unbindable the unbindable objects of the whole set
	 * @return the status
	 */
	WatchStatus snapshotInSet(String watch, WatchStatus.Watched set, boolean running, int objects,
			List<UnbindableObject> unbindable) {
		WatchStatus.Watched one = new WatchStatus.Watched(this.listerWatcher.resource(), set.labelSelector(),
				set.fieldSelector(), set.type(), set.indexNames(), set.idleTimeout(), set.resyncPeriod(),
				set.autoStartup(), List.of());
		String namespace = String.valueOf(this.namespace);
		return this.status.snapshot(watch, one, running, objects, 0, 0, 0, null,
				unbindable.stream().filter((object) -> namespace.equals(object.meta().namespace())).toList());
	}

	/**
	 * The name of this feed in logs: the watch's, with the namespace of a namespace set.
	 */
	String name(String watch) {
		return (this.namespace != null) ? watch + "[" + this.namespace + "]" : watch;
	}

	/** The name of this feed's thread, after {@code listwatch-}. */
	String threadName(String watch) {
		return (this.namespace != null) ? watch + "-" + this.namespace : watch;
	}

}
