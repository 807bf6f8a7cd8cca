package dev.listwatch.informer;

import java.time.Clock;
import java.time.Instant;

/**
 * A monotonic time source in nanoseconds, for measuring how long something took or has
 * been going on (idle watches, backoff resets, failing periods). Unlike a wall
 * {@link Clock} it never jumps when NTP steps the system time, so a clock step of minutes
 * does not close every watch at once. Only differences between two readings mean
 * anything.
 */
@FunctionalInterface
interface Ticker {

	/**
	 * The current reading.
	 * @return nanoseconds from an arbitrary origin
	 */
	long nanoTime();

	/**
	 * The JVM's monotonic time, {@link System#nanoTime()}.
	 * @return the system ticker
	 */
	static Ticker system() {
		return System::nanoTime;
	}

	/**
	 * A ticker that follows a clock; for tests that move a clock by hand.
	 * @param clock the clock
	 * @return a ticker reading the clock's instant in nanoseconds
	 */
	static Ticker of(Clock clock) {
		return () -> {
			Instant now = clock.instant();
			return now.getEpochSecond() * 1_000_000_000L + now.getNano();
		};
	}

}
