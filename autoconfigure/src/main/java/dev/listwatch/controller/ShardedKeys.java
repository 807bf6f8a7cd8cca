package dev.listwatch.controller;

import java.time.Duration;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What the sharding of a controller ({@link Shards}) does to the controller's keys: the
 * controller's side, so that the sharding does not depend on the controller.
 */
interface ShardedKeys {

	/**
	 * The controller's name.
	 * @return the name
	 */
	String name();

	/**
	 * Waits for the watch's first sync.
	 * @param timeout how long at most
	 * @return whether it has synced
	 * @throws InterruptedException when interrupted while waiting
	 */
	boolean awaitSynced(Duration timeout) throws InterruptedException;

	/**
	 * Whether the watch's cache holds a key's object.
	 * @param key the key
	 * @return whether it is cached
	 */
	boolean cached(String key);

	/**
	 * Queues a key.
	 * @param key the key
	 */
	void enqueue(String key);

	/**
	 * Queues every cached key a predicate passes.
	 * @param which the keys
	 */
	void enqueueCached(Predicate<String> which);

	/**
	 * Whether a worker is reconciling a key a predicate passes.
	 * @param which the keys
	 * @return whether one is
	 */
	boolean busyWith(Predicate<String> which);

	/**
	 * Interrupts the workers reconciling a key a predicate passes.
	 * @param which the keys
	 * @return how many were interrupted
	 */
	int interrupt(Predicate<String> which);

	/**
	 * The keys queued now.
	 * @return the keys
	 */
	Set<String> queued();

	/**
	 * Whether exception messages are shown (see
	 * {@link Controller#showExceptionMessages}).
	 * @return whether they are
	 */
	boolean showsExceptionMessages();

}
