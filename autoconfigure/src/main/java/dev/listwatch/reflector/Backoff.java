package dev.listwatch.reflector;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with jitter, as client-go's reflector uses it: the first delay is
 * {@code initial}, each next one {@code factor} times longer up to {@code max}, each stretched by a
 * random part up to {@code jitter} of itself; after {@code resetAfter} without a failure it starts
 * over. A {@code Retry-After} from the server is a floor. Thread-confined.
 */
public final class Backoff {

	private final Duration initial;

	private final Duration max;

	private final double factor;

	private final double jitter;

	private final Duration resetAfter;

	private final Clock clock;

	private final RandomGenerator random;

	private Duration current;

	private Instant lastFailure;

	/**
	 * Makes a backoff.
	 * @param settings the delays
	 * @param clock the clock that decides when to start over
	 * @param random the source of jitter
	 */
	public Backoff(Settings settings, Clock clock, RandomGenerator random) {
		this.initial = settings.initial();
		this.max = settings.max();
		this.factor = settings.factor();
		this.jitter = settings.jitter();
		this.resetAfter = settings.resetAfter();
		this.clock = clock;
		this.random = random;
		this.current = this.initial;
	}

	/**
	 * The delay before the next attempt, after a failure.
	 * @param retryAfter what the server asked for, or {@code null}
	 * @return the delay
	 */
	public Duration next(Duration retryAfter) {
		Instant now = this.clock.instant();
		if (this.lastFailure != null && Duration.between(this.lastFailure, now).compareTo(this.resetAfter) > 0) {
			this.current = this.initial;
		}
		this.lastFailure = now;
		long base = this.current.toMillis();
		long delay = base + (long) (base * this.jitter * this.random.nextDouble());
		this.current = Duration.ofMillis(Math.min(this.max.toMillis(), (long) (base * this.factor)));
		Duration result = Duration.ofMillis(delay);
		return (retryAfter != null && retryAfter.compareTo(result) > 0) ? retryAfter : result;
	}

	/**
	 * Starts over with the initial delay.
	 */
	public void reset() {
		this.current = this.initial;
		this.lastFailure = null;
	}

	/**
	 * The delays of a backoff.
	 *
	 * @param initial the first delay (client-go: 800 ms)
	 * @param max the longest delay (client-go: 30 s)
	 * @param factor how much each delay grows (client-go: 2)
	 * @param jitter the random part, as a fraction of the delay (client-go: 1.0)
	 * @param resetAfter how long without failure starts over (client-go: 2 min)
	 */
	public record Settings(Duration initial, Duration max, double factor, double jitter, Duration resetAfter) {

		/** client-go's reflector backoff. */
		public static final Settings CLIENT_GO = new Settings(Duration.ofMillis(800), Duration.ofSeconds(30), 2.0, 1.0,
				Duration.ofMinutes(2));

	}

}
