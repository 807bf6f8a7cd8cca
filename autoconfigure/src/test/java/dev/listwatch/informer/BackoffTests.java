package dev.listwatch.informer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.listwatch.testsupport.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Backoff} with a fake clock and a fixed random draw: growth, cap, jitter,
 * Retry-After and reset.
 */
class BackoffTests {

	private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

	@Test
	void clientGoDelaysDoubleFrom800MillisTo30Seconds() {
		Backoff backoff = new Backoff(InformerOptions.BackoffPolicy.CLIENT_GO, Ticker.of(this.clock),
				ReflectorTests.fixed(0.0));
		List<Long> delays = new ArrayList<>();
		for (int i = 0; i < 9; i++) {
			delays.add(backoff.next(null).toMillis());
			this.clock.advance(Duration.ofSeconds(1));
		}
		// with client-go's jitter of 1.0 a wait lies in [base, 2 base], at most 30 s:
		// from 15 s on the range is [15 s, 30 s], whose low end a draw of 0 gives
		assertThat(delays).containsExactly(800L, 1600L, 3200L, 6400L, 12800L, 15000L, 15000L, 15000L, 15000L);
	}

	@Test
	void jitterStretchesEachDelayByUpToItsFraction() {
		InformerOptions.BackoffPolicy settings = new InformerOptions.BackoffPolicy(Duration.ofMillis(100),
				Duration.ofSeconds(30), 2.0, 1.0, Duration.ofMinutes(2));
		Backoff half = new Backoff(settings, Ticker.of(this.clock), ReflectorTests.fixed(0.5));
		assertThat(half.next(null)).isEqualTo(Duration.ofMillis(150));
		assertThat(half.next(null)).isEqualTo(Duration.ofMillis(300));
		Backoff most = new Backoff(settings, Ticker.of(this.clock), ReflectorTests.fixed(0.999));
		assertThat(most.next(null).toMillis()).isBetween(100L, 200L);
		Backoff quarter = new Backoff(new InformerOptions.BackoffPolicy(Duration.ofMillis(100), Duration.ofSeconds(30),
				2.0, 0.2, Duration.ofMinutes(2)), Ticker.of(this.clock), ReflectorTests.fixed(0.5));
		assertThat(quarter.next(null)).isEqualTo(Duration.ofMillis(110));
	}

	@Test
	void noDelayJitterIncludedIsLongerThanMax() {
		// client-go's jitter can take a wait to twice its cap: after a long outage, a
		// minute away from a server that answers again
		Backoff backoff = new Backoff(InformerOptions.BackoffPolicy.CLIENT_GO, Ticker.of(this.clock),
				ReflectorTests.fixed(0.999));
		List<Long> delays = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			delays.add(backoff.next(null).toMillis());
			this.clock.advance(Duration.ofSeconds(1));
		}
		assertThat(delays).allSatisfy((delay) -> assertThat(delay).isLessThanOrEqualTo(30_000L));
		assertThat(delays.subList(0, 5)).containsExactly(1599L, 3198L, 6396L, 12793L, 25587L);
		// near the cap, the range [15 s, 30 s]: a high draw, just under 30 s, and still
		// spread
		assertThat(delays.subList(5, 10)).containsOnly(29_985L);
		Backoff low = new Backoff(InformerOptions.BackoffPolicy.CLIENT_GO, Ticker.of(this.clock),
				ReflectorTests.fixed(0.1));
		for (int i = 0; i < 9; i++) {
			low.next(null);
		}
		assertThat(low.next(null)).as("a low draw at the cap waits less than max").isEqualTo(Duration.ofMillis(16_500));
	}

	@Test
	void retryAfterIsAFloorNotACeiling() {
		Backoff backoff = new Backoff(InformerOptions.BackoffPolicy.CLIENT_GO, Ticker.of(this.clock),
				ReflectorTests.fixed(0.0));
		assertThat(backoff.next(Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(5));
		// the backoff still grew underneath: 1600 ms now, more than a Retry-After of 1 s
		assertThat(backoff.next(Duration.ofSeconds(1))).isEqualTo(Duration.ofMillis(1600));
		assertThat(backoff.next(Duration.ZERO)).isEqualTo(Duration.ofMillis(3200));
		assertThat(backoff.next(Duration.ofSeconds(20))).isEqualTo(Duration.ofSeconds(20));
	}

	@Test
	void retryAfterIsCappedAtTheLongestDelay() {
		Backoff backoff = new Backoff(InformerOptions.BackoffPolicy.CLIENT_GO, Ticker.of(this.clock),
				ReflectorTests.fixed(0.0));
		assertThat(backoff.next(Duration.ofMinutes(2))).isEqualTo(Duration.ofSeconds(30));
		assertThat(backoff.next(Duration.ofSeconds(86400))).isEqualTo(Duration.ofSeconds(30));
		// more seconds than fit in a long's milliseconds: no overflow, still the cap
		assertThat(backoff.next(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void aWallClockStepDoesNotResetTheBackoff() {
		MutableClock wall = this.clock;
		long[] nanos = { 0 };
		Backoff backoff = new Backoff(InformerOptions.BackoffPolicy.CLIENT_GO, () -> nanos[0],
				ReflectorTests.fixed(0.0));
		backoff.next(null);
		nanos[0] += Duration.ofSeconds(1).toNanos();
		// NTP steps the wall clock by an hour; monotonic time moved by a second
		wall.advance(Duration.ofHours(1));
		assertThat(backoff.next(null)).isEqualTo(Duration.ofMillis(1600));
		nanos[0] += Duration.ofMinutes(3).toNanos();
		assertThat(backoff.next(null)).as("monotonic time decides the reset").isEqualTo(Duration.ofMillis(800));
	}

	@Test
	void startsOverAfterResetAfterWithoutAFailure() {
		Backoff backoff = new Backoff(InformerOptions.BackoffPolicy.CLIENT_GO, Ticker.of(this.clock),
				ReflectorTests.fixed(0.0));
		backoff.next(null);
		backoff.next(null);
		assertThat(backoff.next(null)).isEqualTo(Duration.ofMillis(3200));
		this.clock.advance(Duration.ofMinutes(2));
		assertThat(backoff.next(null)).as("exactly resetAfter is not yet a reset").isEqualTo(Duration.ofMillis(6400));
		this.clock.advance(Duration.ofMinutes(2).plusMillis(1));
		assertThat(backoff.next(null)).isEqualTo(Duration.ofMillis(800));
		assertThat(backoff.next(null)).isEqualTo(Duration.ofMillis(1600));
	}

	@Test
	void resetStartsOverAtOnce() {
		Backoff backoff = new Backoff(InformerOptions.BackoffPolicy.CLIENT_GO, Ticker.of(this.clock),
				ReflectorTests.fixed(0.0));
		backoff.next(null);
		backoff.next(null);
		backoff.reset();
		assertThat(backoff.next(null)).isEqualTo(Duration.ofMillis(800));
	}

	@Test
	void neverATightLoop() {
		Backoff backoff = new Backoff(InformerOptions.BackoffPolicy.CLIENT_GO, Ticker.of(this.clock),
				ReflectorTests.fixed(0.0));
		for (int i = 0; i < 100; i++) {
			assertThat(backoff.next(Duration.ZERO)).isGreaterThanOrEqualTo(Duration.ofMillis(800));
		}
	}

}
