package dev.listwatch.informer;

import java.time.Duration;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

/**
 * Exponential backoff with jitter, as client-go's reflector uses it: the first delay is
 * {@code initial}, each next one {@code factor} times longer up to {@code max}, each
 * stretched by a random part up to {@code jitter} of itself; after {@code resetAfter}
 * without a failure it starts over. No delay, jitter included, is longer than {@code max}
 * (where client-go's can reach twice its cap): once a delay and its jitter would pass it,
 * the delay is drawn from {@code [max / (1 + jitter), max]} instead, so that watches
 * retrying together still spread. A {@code Retry-After} from the server is a floor,
 * itself capped at {@code max} (a server or proxy asking for a day, or for more than a
 * {@code long} holds, waits {@code max}). Time is measured on a monotonic {@link Ticker}.
 * Thread-confined.
 */
final class Backoff {

	private final Duration initial;

	private final Duration max;

	private final double factor;

	private final double jitter;

	private final Duration resetAfter;

	private final Ticker ticker;

	private final RandomGenerator random;

	private Duration current;

	/**
	 * When the last failure was, in {@link Ticker} nanoseconds; meaningless while
	 * {@link #failed} is false.
	 */
	private long lastFailure;

	private boolean failed;

	/**
	 * Makes a backoff.
	 * @param settings the delays
	 * @param ticker the time source that decides when to start over
	 * @param random the source of jitter
	 */
	Backoff(InformerOptions.BackoffPolicy settings, Ticker ticker, RandomGenerator random) {
		this.initial = settings.initial();
		this.max = settings.max();
		this.factor = settings.factor();
		this.jitter = settings.jitter();
		this.resetAfter = settings.resetAfter();
		this.ticker = ticker;
		this.random = random;
		this.current = this.initial;
	}

	/**
	 * The delay before the next attempt, after a failure.
	 * @param retryAfter what the server asked for, or {@code null}; taken as at most
	 * {@code max}
	 * @return the delay
	 */
	public Duration next(@Nullable Duration retryAfter) {
		long now = this.ticker.nanoTime();
		if (this.failed && now - this.lastFailure > this.resetAfter.toNanos()) {
			this.current = this.initial;
		}
		this.failed = true;
		this.lastFailure = now;
		long base = this.current.toMillis();
		// the jitter never takes a wait past max (client-go's can reach twice its cap,
		// which after a long outage keeps a watch away for up to a minute once the server
		// answers), and near the cap it still spreads the waits: the jittered range is
		// scaled into [max / (1 + jitter), max]
		long spread = Math.min(base, (long) (this.max.toMillis() / (1 + this.jitter)));
		long delay = spread + (long) (spread * this.jitter * this.random.nextDouble());
		this.current = Duration.ofMillis(Math.min(this.max.toMillis(), (long) (base * this.factor)));
		Duration result = Duration.ofMillis(delay);
		if (retryAfter == null || retryAfter.compareTo(result) <= 0) {
			return result;
		}
		return (retryAfter.compareTo(this.max) > 0) ? this.max : retryAfter;
	}

	/**
	 * Starts over with the initial delay.
	 */
	public void reset() {
		this.current = this.initial;
		this.failed = false;
	}

}
