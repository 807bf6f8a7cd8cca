package dev.listwatch.leader;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.listwatch.KubernetesApiException;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * An API server holding a group's member Leases in memory, with optimistic concurrency
 * (409 on a stale resourceVersion or an existing Lease), a shared monotonic time that
 * tests move by hand, and, for every replica, a listener that records the shards it
 * starts and stops with the time, and whose shards drain when the test says so.
 */
final class FakeMemberLeases extends FakeLeaseServer {

	static final int SHARDS = 12;

	private final Map<String, MemberLease> leases = new TreeMap<>();

	private long resourceVersion = 100;

	/** The names of the Leases deleted, in order. */
	final List<String> deletions = Collections.synchronizedList(new ArrayList<>());

	/** Every start and stop: (time, identity, started, shards). */
	final List<Change> changes = Collections.synchronizedList(new ArrayList<>());

	synchronized @Nullable MemberLease lease(String name) {
		return this.leases.get(name);
	}

	/** Someone else changes a Lease's labels: a new resourceVersion, the same content. */
	synchronized void touch(String name) {
		MemberLease lease = this.leases.get(name);
		put(new MemberLease(lease.name(), lease.holderIdentity(), lease.leaseDurationSeconds(), lease.shards(), "",
				lease.object(), lease.shardCount(), lease.renewTime()));
	}

	private MemberLease put(MemberLease lease) {
		MemberLease stored = new MemberLease(lease.name(), lease.holderIdentity(), lease.leaseDurationSeconds(),
				Collections.unmodifiableSortedSet(new TreeSet<>(lease.shards())),
				String.valueOf(++this.resourceVersion), lease.object(), lease.shardCount(), lease.renewTime());
		this.leases.put(lease.name(), stored);
		return stored;
	}

	/**
	 * A replica with its own wall clock (set apart by {@code wallSkew}) and monotonic
	 * origin ({@code tickerOffset}).
	 */
	Replica replica(String identity, Duration wallSkew, long tickerOffset) {
		ShardMembershipOptions options = ShardMembershipOptions.of("orders", "ns", identity, SHARDS);
		Clock wall = wall(wallSkew);
		Connection connection = new Connection(options.leaseName());
		Recorder recorder = new Recorder(identity);
		ShardMembership membership = new ShardMembership(options, connection, recorder, wall,
				() -> this.nanos.get() + tickerOffset);
		return new Replica(identity, membership, connection, recorder);
	}

	record Replica(String identity, ShardMembership membership, Connection connection, Recorder recorder) {

		Set<Integer> running() {
			return this.recorder.running;
		}

		String leaseName() {
			return ShardMembershipOptions.of("orders", "ns", this.identity, SHARDS).leaseName();
		}

	}

	record Change(long nanos, String identity, boolean started, Set<Integer> shards) {

		@Override
		public String toString() {
			return (this.started ? "started " : "stopped ") + this.identity + " " + this.shards;
		}

	}

	/** The controller side of one replica. */
	final class Recorder implements ShardListener {

		private final String identity;

		/** What the listener was told runs. */
		final Set<Integer> running = new TreeSet<>();

		/**
		 * The process is killed or frozen: it runs nothing, so what it is told after it
		 * wakes is not logged.
		 */
		volatile boolean dead;

		/** Shards with reconciles in flight: not drained. */
		final Set<Integer> busy = Collections.synchronizedSet(new TreeSet<>());

		Recorder(String identity) {
			this.identity = identity;
		}

		/** The process dies or freezes: whatever it ran stops now. */
		void kill() {
			this.dead = true;
			if (!this.running.isEmpty()) {
				FakeMemberLeases.this.changes
					.add(new Change(FakeMemberLeases.this.nanos.get(), this.identity, false, Set.copyOf(this.running)));
			}
		}

		@Override
		public void started(Set<Integer> shards) {
			this.running.addAll(shards);
			FakeMemberLeases.this.changes
				.add(new Change(FakeMemberLeases.this.nanos.get(), this.identity, true, shards));
		}

		@Override
		public void stopped(Set<Integer> shards) {
			this.running.removeAll(shards);
			if (!this.dead) {
				FakeMemberLeases.this.changes
					.add(new Change(FakeMemberLeases.this.nanos.get(), this.identity, false, shards));
			}
		}

		@Override
		public boolean drained(int shard) {
			return !this.busy.contains(shard);
		}

	}

	/** One replica's view of the server. */
	final class Connection implements MemberLeaseStore {

		private final String name;

		volatile boolean down;

		/** The number of shards its writes say it hashes keys into. */
		volatile int shardCount = SHARDS;

		/** Lists fail (writes still succeed). */
		volatile boolean listsDown;

		/** Runs inside the next update, before it is applied. */
		volatile @Nullable Runnable beforeUpdate;

		Connection(String name) {
			this.name = name;
		}

		@Override
		public @Nullable MemberLease get() {
			check("GET");
			return FakeMemberLeases.this.lease(this.name);
		}

		@Override
		public MemberLease create(MemberRecord record) {
			check("POST");
			synchronized (FakeMemberLeases.this) {
				if (FakeMemberLeases.this.leases.containsKey(this.name)) {
					throw conflict("POST ns/orders", "AlreadyExists");
				}
				return put(toLease(record));
			}
		}

		@Override
		public MemberLease update(MemberLease previous, MemberRecord record) {
			check("PUT");
			Runnable hook = this.beforeUpdate;
			if (hook != null) {
				this.beforeUpdate = null;
				hook.run();
			}
			synchronized (FakeMemberLeases.this) {
				MemberLease current = FakeMemberLeases.this.leases.get(this.name);
				if (current == null || !current.resourceVersion().equals(previous.resourceVersion())) {
					throw conflict("PUT ns/orders", "Conflict");
				}
				return put(toLease(record));
			}
		}

		@Override
		public boolean delete(MemberLease expired) {
			check("DELETE");
			synchronized (FakeMemberLeases.this) {
				MemberLease current = FakeMemberLeases.this.leases.get(expired.name());
				if (current == null || !current.resourceVersion().equals(expired.resourceVersion())) {
					return false;
				}
				FakeMemberLeases.this.leases.remove(expired.name());
				FakeMemberLeases.this.deletions.add(expired.name());
				return true;
			}
		}

		@Override
		public List<MemberLease> list() {
			check("LIST");
			if (this.listsDown) {
				throw new KubernetesApiException(KubernetesApiException.Kind.FORBIDDEN,
						"LIST ns/orders failed: 403 Forbidden", null);
			}
			synchronized (FakeMemberLeases.this) {
				return List.copyOf(FakeMemberLeases.this.leases.values());
			}
		}

		@Override
		public String describe() {
			return "ns/orders";
		}

		private MemberLease toLease(MemberRecord record) {
			return new MemberLease(this.name, record.holderIdentity(), record.leaseDurationSeconds(), record.shards(),
					"", JsonMapper.shared().createObjectNode(), this.shardCount, record.renewTime());
		}

		private void check(String method) {
			if (this.down) {
				throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION,
						method + " ns/orders failed: Connection refused", null);
			}
		}

	}

}
