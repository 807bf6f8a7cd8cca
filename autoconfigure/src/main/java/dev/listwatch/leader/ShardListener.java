package dev.listwatch.leader;

import java.util.Set;

/**
 * The controller side of a {@link ShardMembership}: told on the membership's thread, one
 * call at a time, which shards this replica starts and stops running.
 */
public interface ShardListener {

	/**
	 * This replica runs these shards from now on: queue every key of theirs. No other
	 * live member lists them.
	 * @param shards the shards, not empty
	 */
	void started(Set<Integer> shards);

	/**
	 * This replica stops running these shards: take no key of theirs from now on, and
	 * finish or abandon their reconciles in flight. After a hand-over
	 * ({@link #drained(int)} is then asked until it answers true, at most the renew
	 * deadline); after a self-fence the others may start them once the lease duration has
	 * passed since this replica's last successful write, so the reconciles in flight must
	 * end within {@code leaseDuration - renewDeadline}.
	 * @param shards the shards, not empty
	 */
	void stopped(Set<Integer> shards);

	/**
	 * Whether no reconcile of a stopped shard is in flight any more: the membership then
	 * writes its Lease without the shard, and another member may start it.
	 * @param shard a shard reported {@link #stopped(Set) stopped}
	 * @return whether its reconciles in flight are finished or abandoned
	 */
	boolean drained(int shard);

}
