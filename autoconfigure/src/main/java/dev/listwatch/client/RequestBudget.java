package dev.listwatch.client;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * A client-side rate limit of the requests of one {@link ApiServerClient}, as client-go's
 * {@code QPS} and {@code Burst}: a token bucket that holds up to {@code burst} tokens and
 * gains {@code qps} tokens a second. Every request that the client sends (a list page,
 * the start of a watch, a discovery GET, a read or a write) takes a token first; the
 * bytes of an open watch stream take none. A request without a token waits for its turn
 * (turns are handed out in the order asked, so that many watches relisting at once after
 * an outage are spread over time instead of reaching the API server together); it never
 * fails for the budget. The wait is interruptible: an interrupt (an informer's stop, the
 * watchdog of a request that waits too long) ends it as a failed connection.
 *
 * <p>
 * Runs on a monotonic ticker ({@link System#nanoTime()}). Thread-safe. Its counters are
 * the public status the meters read.
 */
public final class RequestBudget {

	/**
	 * Default requests per second: 50, ten times client-go's 5, so that an application's
	 * normal use (a few dozen watches, their relists, its writes) is not held up.
	 */
	public static final double DEFAULT_QPS = 50;

	/** Default burst: 100, ten times client-go's 10. */
	public static final int DEFAULT_BURST = 100;

	private final double qps;

	private final int burst;

	private final LongSupplier ticker;

	private final Waiter waiter;

	/** Tokens now; below zero while requests wait for the tokens they reserved. */
	private double tokens;

	/** When {@link #tokens} was last brought up to date. */
	private long last;

	private final LongAdder requests = new LongAdder();

	private final LongAdder throttled = new LongAdder();

	private final LongAdder waitedNanos = new LongAdder();

	RequestBudget(double qps, int burst, LongSupplier ticker, Waiter waiter) {
		if (!(qps >= 0) || Double.isInfinite(qps)) {
			throw new IllegalArgumentException("qps must be 0 (no limit) or a positive number, not " + qps);
		}
		if (qps > 0 && burst < 1) {
			throw new IllegalArgumentException("burst must be at least 1 with a qps of " + qps + ", not " + burst);
		}
		this.qps = qps;
		this.burst = burst;
		this.ticker = ticker;
		this.waiter = waiter;
		this.tokens = burst;
		this.last = ticker.getAsLong();
	}

	/**
	 * A budget of {@code qps} requests a second, {@code burst} at once.
	 * @param qps requests a second; {@code 0} for no limit
	 * @param burst tokens the bucket holds, at least 1 when {@code qps} is positive
	 * @return the budget
	 * @throws IllegalArgumentException when {@code qps} is negative or {@code burst} is
	 * below 1 with a positive {@code qps}
	 */
	public static RequestBudget of(double qps, int burst) {
		return new RequestBudget(qps, (qps == 0) ? 0 : burst, System::nanoTime, TimeUnit.NANOSECONDS::sleep);
	}

	/**
	 * A budget that never holds a request up (it still counts them).
	 * @return a new budget without a limit
	 */
	public static RequestBudget unlimited() {
		return of(0, 0);
	}

	/**
	 * Takes a token, waiting for one if there is none.
	 * @param request the request, for the message of an interrupted wait
	 * @throws dev.listwatch.KubernetesApiException of kind {@code CONNECTION} when the
	 * thread is interrupted while it waits (its interrupt status set again)
	 */
	void acquire(String request) {
		this.requests.increment();
		if (!enabled()) {
			return;
		}
		long deadline;
		synchronized (this) {
			long now = this.ticker.getAsLong();
			this.tokens = Math.min(this.burst, this.tokens + (now - this.last) * this.qps / 1e9);
			this.last = now;
			this.tokens -= 1;
			if (this.tokens >= 0) {
				return;
			}
			deadline = now + (long) Math.ceil(-this.tokens * 1e9 / this.qps);
		}
		this.throttled.increment();
		long start = this.ticker.getAsLong();
		try {
			for (long left = deadline - start; left > 0; left = deadline - this.ticker.getAsLong()) {
				this.waiter.await(left);
			}
		}
		catch (InterruptedException ex) {
			synchronized (this) {
				// give the reserved token back
				this.tokens = Math.min(this.burst, this.tokens + 1);
			}
			Thread.currentThread().interrupt();
			InterruptedIOException cause = new InterruptedIOException(
					"interrupted while waiting for the request budget");
			cause.initCause(ex);
			throw ApiErrors.connection(request, cause);
		}
		finally {
			this.waitedNanos.add(Math.max(0, this.ticker.getAsLong() - start));
		}
	}

	/**
	 * Whether this budget limits requests.
	 * @return {@code false} for a qps of 0
	 */
	public boolean enabled() {
		return this.qps > 0;
	}

	/**
	 * Requests a second.
	 * @return the rate; 0 for no limit
	 */
	public double qps() {
		return this.qps;
	}

	/**
	 * Requests at once.
	 * @return the burst; 0 for no limit
	 */
	public int burst() {
		return this.burst;
	}

	/**
	 * Requests that went through this budget.
	 * @return the total, those that waited included
	 */
	public long requests() {
		return this.requests.sum();
	}

	/**
	 * Requests that waited for a token.
	 * @return the total
	 */
	public long throttled() {
		return this.throttled.sum();
	}

	/**
	 * Time that requests waited for tokens.
	 * @return the total
	 */
	public Duration waited() {
		return Duration.ofNanos(this.waitedNanos.sum());
	}

	@Override
	public String toString() {
		return enabled() ? "RequestBudget[" + this.qps + " qps, burst " + this.burst + "]" : "RequestBudget[none]";
	}

	/** Waits, as {@link TimeUnit#sleep(long)} does; tests move a ticker instead. */
	@FunctionalInterface
	interface Waiter {

		void await(long nanos) throws InterruptedException;

	}

}
