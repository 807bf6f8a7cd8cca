package dev.listwatch.controller;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import dev.listwatch.leader.ShardStatus;
import org.jspecify.annotations.Nullable;

/**
 * What one controller is doing and has done, as an immutable snapshot: what health, the
 * meters and the {@code listwatch} endpoint read. It holds keys and the class of what
 * reconciles threw and where (its message only where the application opted in, see
 * {@link dev.listwatch.Thrown}), never object values.
 *
 * @param name the controller's name
 * @param watch the name of the watch whose keys it reconciles
 * @param running whether its workers are taking keys
 * @param workers how many workers it runs
 * @param liveWorkers how many of its workers are alive (0 when not running): fewer than
 * {@code workers} while running only when a worker ended on a failure outside any
 * reconcile
 * @param ready keys ready for a worker
 * @param waiting keys waiting out a delay (a backoff, a requeue after)
 * @param processing keys a worker has now
 * @param adds keys queued in all (a key queued while it waited not counted again)
 * @param retries keys queued again after a failure or a requeue, in all
 * @param reconciles reconciles done, failed ones included
 * @param failures reconciles that threw
 * @param conflicts reconciles that threw because an object had changed meanwhile (409
 * Conflict): also counted in {@code failures}, retried without a warning
 * @param errors reconciles and resyncs that threw an {@link Error} (a
 * {@link StackOverflowError}, an {@link OutOfMemoryError} the JVM survived): the
 * reconciles also counted in {@code failures}, retried after their backoff all the same
 * @param queueWait the time keys waited ready for a worker, over {@code reconciles}
 * @param work the time workers spent on keys, over {@code reconciles}
 * @param oldestReady how long the key longest ready has waited for a worker
 * @param longestRunning how long the longest-running reconcile under way has run
 * @param unfinishedWork the time the reconciles under way have run, in all
 * @param failing the keys whose last reconcile failed, with their failure
 * @param resyncFailure what the last resync threw, while resyncs fail; {@code null} once
 * one succeeds
 * @param shards the shard membership of a sharded controller (see
 * {@link Controller#shardBy}), {@code null} when it runs on every replica
 * @param queuedByShard the keys queued here by shard, of the shards this replica runs
 * (empty when not sharded)
 */
public record ControllerStatus(String name, String watch, boolean running, int workers, int liveWorkers, int ready,
		int waiting, int processing, long adds, long retries, long reconciles, long failures, long conflicts,
		long errors, Duration queueWait, Duration work, Duration oldestReady, Duration longestRunning,
		Duration unfinishedWork, Map<String, Failure> failing, @Nullable Failure resyncFailure,
		@Nullable ShardStatus shards, SortedMap<Integer, Integer> queuedByShard) {

	/**
	 * Copies the map of failing keys and the queued keys by shard.
	 */
	public ControllerStatus {
		failing = Map.copyOf(failing);
		queuedByShard = Collections.unmodifiableSortedMap(new TreeMap<>(queuedByShard));
	}

	/**
	 * How many keys are queued: ready, or waiting out a delay (client-go's depth counts
	 * the ready ones).
	 * @return the depth
	 */
	public int depth() {
		return this.ready + this.waiting;
	}

	/**
	 * The last failure of a key that keeps failing, or of the resyncs.
	 *
	 * @param exception the class of what the reconcile threw
	 * @param at where it was thrown: the class, method and line of the top frame of its
	 * stack ({@link dev.listwatch.Thrown#where})
	 * @param message its message, which may quote values; {@code null} unless the
	 * application opted in ({@code listwatch.show-exception-messages}, or
	 * {@link Controller#showExceptionMessages}), or it is a
	 * {@link dev.listwatch.KubernetesApiException}, whose message listwatch made
	 * @param inARow how often in a row it failed
	 * @param error whether it threw an {@link Error} rather than an exception
	 */
	public record Failure(String exception, String at, @Nullable String message, int inARow, boolean error) {

	}

}
