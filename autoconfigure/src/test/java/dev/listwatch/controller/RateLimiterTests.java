package dev.listwatch.controller;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The rate limiters of the work queue, against client-go's defaults: 5 ms doubling to
 * 1000 s per key, and a bucket of 100 refilled at 10 per second for all keys.
 */
class RateLimiterTests {

	private final AtomicLong nanos = new AtomicLong();

	@Test
	void theExponentialBackoffDoublesUpToItsLongestDelayWithoutOverflowing() {
		RateLimiter<String> limiter = RateLimiter.exponential(Duration.ofMillis(5), Duration.ofSeconds(1000));
		Duration last = Duration.ZERO;
		for (int i = 0; i < 18; i++) {
			last = limiter.when("a");
		}
		// 5 ms * 2^17 = 655.36 s
		assertThat(last).isEqualTo(Duration.ofMillis(5L << 17));
		assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(1000));
		for (int i = 0; i < 100; i++) {
			assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(1000));
		}
		assertThat(limiter.failures("a")).isEqualTo(119);
		assertThat(limiter.when("b")).isEqualTo(Duration.ofMillis(5));
	}

	@Test
	void theTokenBucketLetsABurstThroughThenPacesAtItsRate() {
		RateLimiter<String> bucket = RateLimiter.tokenBucket(10, 100, this.nanos::get);
		for (int i = 0; i < 100; i++) {
			assertThat(bucket.when("k" + i)).isZero();
		}
		assertThat(bucket.when("x")).isEqualTo(Duration.ofMillis(100));
		assertThat(bucket.when("y")).isEqualTo(Duration.ofMillis(200));
		// a second later ten tokens came back, two of them promised already
		this.nanos.addAndGet(Duration.ofSeconds(1).toNanos());
		for (int i = 0; i < 8; i++) {
			assertThat(bucket.when("z" + i)).isZero();
		}
		assertThat(bucket.when("w")).isEqualTo(Duration.ofMillis(100));
		assertThat(bucket.failures("w")).isZero();
	}

	@Test
	void theDefaultsTakeTheLongerOfTheKeysBackoffAndTheBucket() {
		RateLimiter<String> limiter = RateLimiter.defaults(this.nanos::get);
		// within the burst: the key's backoff
		assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(5));
		assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(10));
		for (int i = 0; i < 98; i++) {
			limiter.when("other-" + i);
		}
		// past the burst: the bucket's wait, longer than a first failure's 5 ms
		assertThat(limiter.when("b")).isEqualTo(Duration.ofMillis(100));
		assertThat(limiter.failures("a")).isEqualTo(2);
		limiter.forget("a");
		assertThat(limiter.failures("a")).isZero();
	}

	@Test
	void nonsenseSettingsAreRefusedWithWhatWasWrong() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimiter.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1)))
			.withMessageContaining("0 < base <= max");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimiter.tokenBucket(0, 10, this.nanos::get))
			.withMessageContaining("positive rate");
	}

}
