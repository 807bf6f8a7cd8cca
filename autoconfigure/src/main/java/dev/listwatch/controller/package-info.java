/**
 * The controller half of list-watch, after the informer: a change of a watched object
 * queues its key in a work queue (client-go's {@code workqueue}: keys deduplicated, one
 * worker per key at a time, failures retried after a per-key backoff under an overall
 * rate limit), and workers reconcile each key against the current state of the cache. The
 * application writes a {@link dev.listwatch.controller.Reconciler}, given a
 * {@link dev.listwatch.controller.Request} and returning a
 * {@link dev.listwatch.controller.Result}; a {@link dev.listwatch.controller.Controller}
 * runs it on a watch's keys, as {@link dev.listwatch.controller.ControllerOptions} say,
 * and reports a {@link dev.listwatch.controller.ControllerStatus};
 * {@link dev.listwatch.controller.Relations} maps owned objects to their owners' keys. A
 * controller sharded across replicas ({@code Controller.shardBy}) reconciles the keys of
 * the shards its {@code dev.listwatch.leader.ShardMembership} runs, and publishes a
 * {@link dev.listwatch.controller.ShardsChangedEvent} when they change. The queue, its
 * rate limiters, the workers and the sharding's bookkeeping are package-private.
 */
@NullMarked
package dev.listwatch.controller;

import org.jspecify.annotations.NullMarked;
