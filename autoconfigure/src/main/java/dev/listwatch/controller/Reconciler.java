package dev.listwatch.controller;

/**
 * Brings the cluster (or anything else) in line with one object of a watch: the
 * application's code of a controller, client-go's worker. It is level-triggered: it is
 * given a key, and reads the object as the watch's cache holds it now
 * ({@link Request#object()}, empty when the object is gone), never a stale event. Changes
 * of one key that come while it waits are processed once; a key is never reconciled by
 * two workers at once; a key changed while it is being reconciled is reconciled again
 * afterwards.
 * <p>
 * What it returns says what comes next: {@link Result#done()}; {@link Result#requeue()}
 * to try again after the key's backoff; {@link Result#requeueAfter} to look again later
 * (polling something outside the cluster). What it throws is counted and logged, and the
 * key is tried again after its backoff (5 ms doubling up to 1000 s by default, under an
 * overall limit of 10 per second with bursts of 100), so that a failure is never lost:
 * the key comes back until it succeeds, even if the object never changes again.
 *
 * @param <T> the Java type of the watch's objects
 */
@FunctionalInterface
public interface Reconciler<T> {

	/**
	 * Reconciles one key.
	 * @param request the key, and the object as cached now
	 * @return what comes next
	 * @throws Exception when it failed: the key is tried again after its backoff
	 */
	Result reconcile(Request<T> request) throws Exception;

}
