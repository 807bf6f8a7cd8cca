package dev.listwatch.leader;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.listwatch.KubernetesApiException;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * An API server holding one Lease in memory, with optimistic concurrency (409 on a stale
 * resourceVersion or an existing Lease), a shared monotonic time that tests move by hand,
 * and a log of what happened in order (writes and events of every replica). Each replica
 * talks to it through its own {@link Connection}, which can be cut off.
 */
final class FakeLeases extends FakeLeaseServer {

	static final String LEASE = "ns/app";

	/**
	 * What happened, in order: "granted a", "revoked a RENEW_DEADLINE_PASSED", "write a
	 * holder=a".
	 */
	final List<String> log = new ArrayList<>();

	/** Requests interrupted while hanging. */
	final AtomicLong aborted = new AtomicLong();

	/**
	 * When set, a revoke listener of a stop ({@code STOPPED}) waits for it: leader's work
	 * that takes time to drain.
	 */
	volatile @Nullable CountDownLatch drainStopped;

	/** When set, a grant's listener waits for it: a slow listener starting work. */
	volatile @Nullable CountDownLatch holdGranted;

	private @Nullable Lease lease;

	private long resourceVersion = 100;

	synchronized @Nullable Lease current() {
		return this.lease;
	}

	synchronized void log(String line) {
		this.log.add(line);
	}

	synchronized List<String> log() {
		return List.copyOf(this.log);
	}

	/**
	 * Someone else writes the Lease (kubectl, another controller): a new resourceVersion.
	 */
	synchronized void overwrite(LeaseRecord record) {
		this.lease = new Lease(record, String.valueOf(++this.resourceVersion), JsonMapper.shared().createObjectNode());
	}

	/** Someone changes a label: a new resourceVersion, the same record. */
	synchronized void touch() {
		overwrite(this.lease.record());
	}

	/**
	 * A replica: an elector on this server, with its own wall clock (set apart from the
	 * others by {@code wallSkew}, running with the shared time) and its own monotonic
	 * origin.
	 */
	Replica replica(String identity, LeaderElectionOptions durations, Duration wallSkew, long tickerOffset) {
		Connection connection = new Connection(identity);
		Clock wall = wall(wallSkew);
		LeaderElectionOptions options = new LeaderElectionOptions("app", "ns", identity, durations.leaseDuration(),
				durations.renewDeadline(), durations.retryPeriod());
		LeaderElector elector = new LeaderElector(options, connection, this::published, wall,
				() -> this.nanos.get() + tickerOffset, new Random(1));
		return new Replica(identity, elector, connection, wall);
	}

	/**
	 * An elector on this server in real time (the system's clocks), for tests of its
	 * thread.
	 */
	Replica realTimeReplica(String identity, Duration lease, Duration renew, Duration retry) {
		Connection connection = new Connection(identity);
		LeaderElector elector = new LeaderElector(new LeaderElectionOptions("app", "ns", identity, lease, renew, retry),
				connection, this::published, Clock.systemUTC(), System::nanoTime, new Random(1));
		return new Replica(identity, elector, connection, Clock.systemUTC());
	}

	private void published(LeadershipEvent event) {
		log(describe(event));
		CountDownLatch hold = this.holdGranted;
		if (hold != null && event instanceof LeadershipGrantedEvent) {
			try {
				hold.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		CountDownLatch drain = this.drainStopped;
		if (drain != null && event instanceof LeadershipRevokedEvent revoked
				&& revoked.reason() == LeadershipRevokedEvent.Reason.STOPPED) {
			try {
				drain.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static String describe(LeadershipEvent event) {
		if (event instanceof LeadershipRevokedEvent revoked) {
			return "revoked " + event.identity() + " " + revoked.reason();
		}
		return "granted " + event.identity();
	}

	record Replica(String identity, LeaderElector elector, Connection connection, Clock wall) {
	}

	/** One replica's view of the server. */
	final class Connection implements LeaseStore {

		private final String identity;

		volatile boolean down;

		/** Requests hang until interrupted (a black hole). */
		volatile boolean hang;

		/**
		 * How many of the next requests hang until interrupted (a half-open connection).
		 */
		final AtomicInteger hangNext = new AtomicInteger();

		/**
		 * Runs inside the next update, before it is applied (to make a write race or take
		 * time).
		 */
		volatile @Nullable Runnable beforeUpdate;

		Connection(String identity) {
			this.identity = identity;
		}

		@Override
		public @Nullable Lease get() {
			check("GET");
			return current();
		}

		@Override
		public Lease create(LeaseRecord record) {
			check("POST");
			synchronized (FakeLeases.this) {
				if (FakeLeases.this.lease != null) {
					throw conflict("POST " + LEASE, "AlreadyExists");
				}
				overwrite(record);
				log("write " + this.identity + " holder=" + record.holderIdentity());
				return FakeLeases.this.lease;
			}
		}

		@Override
		public Lease update(Lease previous, LeaseRecord record) {
			check("PUT");
			Runnable hook = this.beforeUpdate;
			if (hook != null) {
				this.beforeUpdate = null;
				hook.run();
			}
			synchronized (FakeLeases.this) {
				if (FakeLeases.this.lease == null
						|| !FakeLeases.this.lease.resourceVersion().equals(previous.resourceVersion())) {
					throw conflict("PUT " + LEASE, "Conflict");
				}
				overwrite(record);
				log("write " + this.identity + " holder=" + record.holderIdentity());
				return FakeLeases.this.lease;
			}
		}

		@Override
		public String describe() {
			return LEASE;
		}

		private void check(String method) {
			if (this.hang || this.hangNext.getAndUpdate((n) -> Math.max(0, n - 1)) > 0) {
				try {
					new CountDownLatch(1).await();
				}
				catch (InterruptedException ex) {
					FakeLeases.this.aborted.incrementAndGet();
					throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION,
							method + " " + LEASE + " failed: interrupted", ex);
				}
			}
			if (this.down) {
				throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION,
						method + " " + LEASE + " failed: Connection refused", null);
			}
		}

	}

}
