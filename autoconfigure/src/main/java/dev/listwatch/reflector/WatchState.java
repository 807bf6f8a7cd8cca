package dev.listwatch.reflector;

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
	/** Stopped for good by a failure that retrying cannot mend. */
	FAILED,
	/** Stopped. */
	STOPPED

}
