/**
 * The controller half of list-watch, after the informer: a change of a watched object
 * queues its key in a work queue (client-go's {@code workqueue}: keys deduplicated, one
 * worker per key at a time, failures retried after a per-key backoff under an overall
 * rate limit), and workers reconcile each key against the current state of the cache.
 * Package-private until the auto-configuration runs reconciler beans: then
 * {@code Reconciler}, {@code Request} and {@code Result} become public.
 */
@NullMarked
package dev.listwatch.controller;

import org.jspecify.annotations.NullMarked;
