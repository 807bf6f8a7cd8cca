package dev.listwatch.leader;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.Status;

/**
 * What the fake API servers of Leases ({@link FakeLeases}, {@link FakeMemberLeases})
 * share: a monotonic time that tests move by hand, the replicas' wall clocks running with
 * it, and the 409 they answer to a stale write.
 */
abstract class FakeLeaseServer {

	/** The true time, in nanoseconds; each replica reads it with an offset of its own. */
	final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	/**
	 * A replica's wall clock: it runs with the shared time from now, set apart from the
	 * others by {@code wallSkew}.
	 */
	Clock wall(Duration wallSkew) {
		Instant origin = Instant.parse("2025-01-01T00:00:00Z").plus(wallSkew);
		long start = this.nanos.get();
		return new Clock() {

			@Override
			public Instant instant() {
				return origin.plusNanos(FakeLeaseServer.this.nanos.get() - start);
			}

			@Override
			public ZoneId getZone() {
				return ZoneOffset.UTC;
			}

			@Override
			public Clock withZone(ZoneId zone) {
				throw new UnsupportedOperationException();
			}

		};
	}

	/** A 409, e.g. for {@code "PUT ns/app"} with reason {@code "Conflict"}. */
	static KubernetesApiException conflict(String request, String reason) {
		return KubernetesApiException.of(request, new Status(409, reason, "the object has been modified"), null);
	}

}
