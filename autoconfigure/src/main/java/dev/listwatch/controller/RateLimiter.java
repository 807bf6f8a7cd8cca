package dev.listwatch.controller;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * How long a key waits before it is processed again after a failure: client-go's
 * {@code workqueue} rate limiters. {@link #defaults(LongSupplier)} is client-go's
 * {@code DefaultControllerRateLimiter}: the longer of a per-key exponential backoff (5 ms
 * doubling up to 1000 s) and an overall token bucket (10 per second, bursts of 100), so
 * that one key failing again and again waits ever longer, and many keys failing at once
 * (the database behind every reconcile is down) cannot retry faster than the bucket
 * allows. Implementations are thread-safe.
 *
 * @param <K> the type of the keys
 */
interface RateLimiter<K> {

	/**
	 * Counts a failure of a key and says how long it waits before it is retried.
	 * @param key the key
	 * @return the delay, never negative
	 */
	Duration when(K key);

	/**
	 * Forgets a key's failures: it succeeded, or it is gone.
	 * @param key the key
	 */
	void forget(K key);

	/**
	 * How often a key failed in a row.
	 * @param key the key
	 * @return the failures since it was last forgotten
	 */
	int failures(K key);

	/**
	 * client-go's default: the longer of {@link #exponential} (5 ms to 1000 s) and
	 * {@link #tokenBucket} (10 per second, bursts of 100).
	 * @param <K> the type of the keys
	 * @param ticker the monotonic time, in nanoseconds
	 * @return the rate limiter
	 */
	static <K> RateLimiter<K> defaults(LongSupplier ticker) {
		return longestOf(exponential(Duration.ofMillis(5), Duration.ofSeconds(1000)), tokenBucket(10, 100, ticker));
	}

	/**
	 * A per-key exponential backoff: {@code base * 2^failures}, up to {@code max}.
	 * @param <K> the type of the keys
	 * @param base the delay after the first failure
	 * @param max the longest delay
	 * @return the rate limiter
	 */
	static <K> RateLimiter<K> exponential(Duration base, Duration max) {
		return new Exponential<>(base, max);
	}

	/**
	 * An overall limit shared by all keys: a bucket of {@code burst} tokens, refilled at
	 * {@code perSecond}; each failure takes one, and waits for it when the bucket is
	 * empty. Its failure count is always 0.
	 * @param <K> the type of the keys
	 * @param perSecond the refill rate
	 * @param burst the size of the bucket
	 * @param ticker the monotonic time, in nanoseconds
	 * @return the rate limiter
	 */
	static <K> RateLimiter<K> tokenBucket(double perSecond, int burst, LongSupplier ticker) {
		return new TokenBucket<>(perSecond, burst, ticker);
	}

	/**
	 * The longest delay of several limiters, each counting every failure; the failure
	 * count is the highest of theirs.
	 * @param <K> the type of the keys
	 * @param limiters the limiters
	 * @return the rate limiter
	 */
	@SafeVarargs
	static <K> RateLimiter<K> longestOf(RateLimiter<K>... limiters) {
		return new LongestOf<>(limiters);
	}

	/** Per-key exponential backoff. */
	final class Exponential<K> implements RateLimiter<K> {

		private final long baseNanos;

		private final long maxNanos;

		private final Map<K, Integer> failures = new ConcurrentHashMap<>();

		Exponential(Duration base, Duration max) {
			if (base.isNegative() || base.isZero() || max.compareTo(base) < 0) {
				throw new IllegalArgumentException(
						"The backoff needs 0 < base <= max, not base " + base + ", max " + max);
			}
			this.baseNanos = base.toNanos();
			this.maxNanos = max.toNanos();
		}

		@Override
		public Duration when(K key) {
			int before = this.failures.merge(key, 1, Integer::sum) - 1;
			// base * 2^before, without overflowing: past 62 doublings it is past any max
			if (before >= 62 || this.baseNanos > (this.maxNanos >> before)) {
				return Duration.ofNanos(this.maxNanos);
			}
			return Duration.ofNanos(Math.min(this.maxNanos, this.baseNanos << before));
		}

		@Override
		public void forget(K key) {
			this.failures.remove(key);
		}

		@Override
		public int failures(K key) {
			return this.failures.getOrDefault(key, 0);
		}

	}

	/** An overall token bucket, as Go's {@code rate.Limiter} reserves tokens. */
	final class TokenBucket<K> implements RateLimiter<K> {

		private final double perNano;

		private final int burst;

		private final LongSupplier ticker;

		/** Tokens at {@link #last}; negative when reserved ahead of the refill. */
		private double tokens;

		private long last;

		TokenBucket(double perSecond, int burst, LongSupplier ticker) {
			if (perSecond <= 0 || burst < 1) {
				throw new IllegalArgumentException(
						"The token bucket needs a positive rate and a burst of 1 or more, not " + perSecond + "/s, "
								+ burst);
			}
			this.perNano = perSecond / 1e9;
			this.burst = burst;
			this.ticker = ticker;
			this.tokens = burst;
			this.last = ticker.getAsLong();
		}

		@Override
		public synchronized Duration when(K key) {
			long now = this.ticker.getAsLong();
			this.tokens = Math.min(this.burst, this.tokens + (now - this.last) * this.perNano);
			this.last = now;
			this.tokens -= 1;
			if (this.tokens >= 0) {
				return Duration.ZERO;
			}
			return Duration.ofNanos((long) Math.ceil(-this.tokens / this.perNano));
		}

		@Override
		public void forget(K key) {
		}

		@Override
		public int failures(K key) {
			return 0;
		}

	}

	/** The longest delay of several limiters. */
	final class LongestOf<K> implements RateLimiter<K> {

		private final RateLimiter<K>[] limiters;

		LongestOf(RateLimiter<K>[] limiters) {
			if (limiters.length == 0) {
				throw new IllegalArgumentException("No rate limiter given");
			}
			this.limiters = limiters.clone();
		}

		@Override
		public Duration when(K key) {
			Duration longest = Duration.ZERO;
			for (RateLimiter<K> limiter : this.limiters) {
				Duration delay = limiter.when(key);
				if (delay.compareTo(longest) > 0) {
					longest = delay;
				}
			}
			return longest;
		}

		@Override
		public void forget(K key) {
			for (RateLimiter<K> limiter : this.limiters) {
				limiter.forget(key);
			}
		}

		@Override
		public int failures(K key) {
			int most = 0;
			for (RateLimiter<K> limiter : this.limiters) {
				most = Math.max(most, limiter.failures(key));
			}
			return most;
		}

	}

}
