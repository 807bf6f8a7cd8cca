package dev.listwatch.controller;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * How a {@link Controller} works its keys: client-go's defaults unless set.
 *
 * @param workers how many keys are reconciled at once (each key by one worker at a time)
 * @param backoffInitial the delay after a key's first failure, doubled after each further
 * one
 * @param backoffMax the longest delay after failures
 * @param retriesPerSecond the overall rate of retries after failures, over all keys
 * (client-go's token bucket)
 * @param retryBurst how many retries may go at once before that rate applies
 * @param maxDelay the longest any delay may be, a {@link Result#requeueAfter} included
 * @param resyncPeriod how often every cached key is queued again, or {@code null} for
 * never
 * @param shutdownTimeout how long a stop waits for the reconciles under way
 * @param autoStartup whether the controller starts with the application context
 * ({@code false} for one that runs on the leader only)
 */
public record ControllerOptions(int workers, Duration backoffInitial, Duration backoffMax, double retriesPerSecond,
		int retryBurst, Duration maxDelay, @Nullable Duration resyncPeriod, Duration shutdownTimeout,
		boolean autoStartup) {

	/**
	 * client-go's defaults: one worker, 5 ms doubling up to 1000 s, 10 retries a second
	 * in bursts of 100; delays at most an hour; no resync; 30 s for the reconciles under
	 * way at a stop (Boot's default time per shutdown phase); started with the context.
	 */
	public static final ControllerOptions DEFAULTS = new ControllerOptions(1, Duration.ofMillis(5),
			Duration.ofSeconds(1000), 10, 100, Duration.ofHours(1), null, Duration.ofSeconds(30), true);

	/**
	 * Checks the options.
	 * @throws IllegalArgumentException naming the option that cannot work
	 */
	public ControllerOptions {
		if (workers < 1) {
			throw new IllegalArgumentException("workers must be at least 1, not " + workers);
		}
		if (!positive(backoffInitial) || backoffMax.compareTo(backoffInitial) < 0) {
			throw new IllegalArgumentException("backoff must be positive, its maximum (" + backoffMax
					+ ") no less than its initial delay (" + backoffInitial + ")");
		}
		if (!(retriesPerSecond > 0) || retryBurst < 1) {
			throw new IllegalArgumentException("retries per second (" + retriesPerSecond + ") and retry burst ("
					+ retryBurst + ") must be positive");
		}
		if (!positive(maxDelay)) {
			throw new IllegalArgumentException("max delay must be positive, not " + maxDelay);
		}
		if (resyncPeriod != null && !positive(resyncPeriod)) {
			throw new IllegalArgumentException("resync period must be positive, or null for none, not " + resyncPeriod);
		}
		if (shutdownTimeout.isNegative()) {
			throw new IllegalArgumentException("shutdown timeout cannot be negative: " + shutdownTimeout);
		}
	}

	/**
	 * With another number of workers.
	 * @param workers the number of workers
	 * @return the options
	 */
	public ControllerOptions withWorkers(int workers) {
		return new ControllerOptions(workers, this.backoffInitial, this.backoffMax, this.retriesPerSecond,
				this.retryBurst, this.maxDelay, this.resyncPeriod, this.shutdownTimeout, this.autoStartup);
	}

	/**
	 * With another backoff after failures.
	 * @param initial the delay after the first failure
	 * @param max the longest delay
	 * @return the options
	 */
	public ControllerOptions withBackoff(Duration initial, Duration max) {
		return new ControllerOptions(this.workers, initial, max, this.retriesPerSecond, this.retryBurst, this.maxDelay,
				this.resyncPeriod, this.shutdownTimeout, this.autoStartup);
	}

	/**
	 * With another overall rate of retries.
	 * @param perSecond retries a second, over all keys
	 * @param burst how many may go at once
	 * @return the options
	 */
	public ControllerOptions withRetryRate(double perSecond, int burst) {
		return new ControllerOptions(this.workers, this.backoffInitial, this.backoffMax, perSecond, burst,
				this.maxDelay, this.resyncPeriod, this.shutdownTimeout, this.autoStartup);
	}

	/**
	 * With another longest delay.
	 * @param maxDelay the longest any delay may be
	 * @return the options
	 */
	public ControllerOptions withMaxDelay(Duration maxDelay) {
		return new ControllerOptions(this.workers, this.backoffInitial, this.backoffMax, this.retriesPerSecond,
				this.retryBurst, maxDelay, this.resyncPeriod, this.shutdownTimeout, this.autoStartup);
	}

	/**
	 * With another resync period.
	 * @param resyncPeriod how often every cached key is queued again, or {@code null}
	 * @return the options
	 */
	public ControllerOptions withResyncPeriod(@Nullable Duration resyncPeriod) {
		return new ControllerOptions(this.workers, this.backoffInitial, this.backoffMax, this.retriesPerSecond,
				this.retryBurst, this.maxDelay, resyncPeriod, this.shutdownTimeout, this.autoStartup);
	}

	/**
	 * With another shutdown timeout.
	 * @param shutdownTimeout how long a stop waits for the reconciles under way
	 * @return the options
	 */
	public ControllerOptions withShutdownTimeout(Duration shutdownTimeout) {
		return new ControllerOptions(this.workers, this.backoffInitial, this.backoffMax, this.retriesPerSecond,
				this.retryBurst, this.maxDelay, this.resyncPeriod, shutdownTimeout, this.autoStartup);
	}

	/**
	 * With or without auto-startup.
	 * @param autoStartup whether the controller starts with the context
	 * @return the options
	 */
	public ControllerOptions withAutoStartup(boolean autoStartup) {
		return new ControllerOptions(this.workers, this.backoffInitial, this.backoffMax, this.retriesPerSecond,
				this.retryBurst, this.maxDelay, this.resyncPeriod, this.shutdownTimeout, autoStartup);
	}

	private static boolean positive(Duration duration) {
		return !duration.isNegative() && !duration.isZero();
	}

}
