package dev.listwatch.informer;

/**
 * Where a watch is in its life.
 */
public enum WatchState {

	/** Not started yet, or starting. */
	STARTING,
	/** Listing (or streaming the initial events) to fill or refill the cache. */
	SYNCING,
	/** Synced and watching for changes. */
	WATCHING,
	/** Waiting before trying again after a failure. */
	BACKOFF,
	/**
	 * Its reading thread failed with an {@link Error}: retrying with backoff, and FAILED until a
	 * resync succeeds (or for good, if the thread itself is gone).
	 */
	FAILED,
	/** Stopped. */
	STOPPED

}
