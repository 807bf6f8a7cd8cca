package dev.listwatch.controller;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * What comes after a reconcile: nothing, a retry after the key's backoff, or another look
 * after a delay.
 *
 * @param retry whether the key is tried again after its backoff (its failures count on):
 * {@link #requeue()}
 * @param after the delay before the key is looked at again, or {@code null}
 */
public record Result(boolean retry, @Nullable Duration after) {

	private static final Result DONE = new Result(false, null);

	private static final Result REQUEUE = new Result(true, null);

	/**
	 * Checks the result.
	 * @throws IllegalArgumentException for a negative delay
	 */
	public Result {
		if (after != null && after.isNegative()) {
			throw new IllegalArgumentException("A requeue delay cannot be negative: " + after);
		}
	}

	/**
	 * The key is reconciled: its failures are forgotten; it comes back when its object
	 * changes (or at the next resync).
	 * @return the result
	 */
	public static Result done() {
		return DONE;
	}

	/**
	 * The key is tried again after its backoff, as after a failure but without one
	 * logged.
	 * @return the result
	 */
	public static Result requeue() {
		return REQUEUE;
	}

	/**
	 * The key is reconciled for now and looked at again after {@code delay} (its failures
	 * are forgotten). Delays longer than the controller's longest delay are cut to it.
	 * @param delay the delay
	 * @return the result
	 */
	public static Result requeueAfter(Duration delay) {
		return new Result(false, delay);
	}

}
