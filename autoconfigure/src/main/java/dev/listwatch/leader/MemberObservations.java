package dev.listwatch.leader;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * What one member saw of the others' Leases: each with when its resourceVersion was first
 * seen, on the member's monotonic clock. A Lease is expired once unchanged for strictly
 * more than its lease duration since then (the elector's rule); a Lease gone from the
 * list counts as unchanged. Not thread-safe: the membership's thread only.
 */
final class MemberObservations {

	private final String ownName;

	private final long defaultLeaseNanos;

	private Map<String, Seen> seen = new HashMap<>();

	MemberObservations(String ownName, long defaultLeaseNanos) {
		this.ownName = ownName;
		this.defaultLeaseNanos = defaultLeaseNanos;
	}

	/**
	 * Takes in a list of the group.
	 * @param group the group's Leases, this member's own skipped
	 * @param now when the list answered, on the ticker
	 */
	void observe(List<MemberLease> group, long now) {
		Map<String, Seen> next = new HashMap<>();
		for (MemberLease lease : group) {
			if (lease.name().equals(this.ownName)) {
				continue;
			}
			Seen before = this.seen.get(lease.name());
			long at = now;
			if (before != null && before.lease().resourceVersion().equals(lease.resourceVersion())) {
				at = before.at();
			}
			next.put(lease.name(), new Seen(lease, at));
		}
		this.seen.forEach((name, before) -> {
			if (!next.containsKey(name) && !expired(before, now)) {
				next.put(name, before);
			}
		});
		this.seen = next;
	}

	/**
	 * The holders of the live Leases.
	 * @param now the time, on the ticker
	 * @return their identities
	 */
	SortedSet<String> liveHolders(long now) {
		SortedSet<String> live = new TreeSet<>();
		for (Seen other : this.seen.values()) {
			String holder = other.lease().holderIdentity();
			if (!expired(other, now) && other.lease().held() && holder != null) {
				live.add(holder);
			}
		}
		return live;
	}

	/**
	 * The shards listed on the others' Leases.
	 * @param now the time, on the ticker
	 * @param liveOnly whether to skip the expired Leases
	 * @return the shards
	 */
	SortedSet<Integer> listed(long now, boolean liveOnly) {
		SortedSet<Integer> shards = new TreeSet<>();
		for (Seen other : this.seen.values()) {
			if (!liveOnly || !expired(other, now)) {
				shards.addAll(other.lease().shards());
			}
		}
		return shards;
	}

	/**
	 * The holders of the live Leases that hash keys into another number of shards.
	 * @param now the time, on the ticker
	 * @param shards this member's number of shards
	 * @return each such holder with its number
	 */
	SortedMap<String, Integer> disagreeing(long now, int shards) {
		SortedMap<String, Integer> others = new TreeMap<>();
		for (Seen other : this.seen.values()) {
			MemberLease lease = other.lease();
			if (!expired(other, now) && lease.held() && lease.shardCount() > 0 && lease.shardCount() != shards) {
				others.put(String.valueOf(lease.holderIdentity()), lease.shardCount());
			}
		}
		return others;
	}

	/**
	 * The others' Leases listed last and expired now.
	 * @param now the time, on the ticker
	 * @return the Leases as last listed
	 */
	List<MemberLease> expired(long now) {
		List<MemberLease> expired = new ArrayList<>();
		for (Seen other : this.seen.values()) {
			if (expired(other, now)) {
				expired.add(other.lease());
			}
		}
		return expired;
	}

	/**
	 * When the next of the live Leases that matter (held, or listing shards) expires if
	 * it does not change before.
	 * @param now the time, on the ticker
	 * @return the time on the ticker, or {@code now + Long.MAX_VALUE / 2} when none
	 */
	long nextExpiry(long now) {
		long next = now + Long.MAX_VALUE / 2;
		for (Seen other : this.seen.values()) {
			long expiry = other.at() + durationNanos(other.lease());
			if (!expired(other, now) && (other.lease().held() || !other.lease().shards().isEmpty())
					&& expiry - next < 0) {
				next = expiry;
			}
		}
		return next;
	}

	/**
	 * How long others wait before they count a Lease gone: its own lease duration, or the
	 * default when it has none.
	 * @param lease the Lease
	 * @return nanoseconds
	 */
	long durationNanos(MemberLease lease) {
		return (lease.leaseDurationSeconds() > 0) ? TimeUnit.SECONDS.toNanos(lease.leaseDurationSeconds())
				: this.defaultLeaseNanos;
	}

	private boolean expired(Seen seen, long now) {
		return now - (seen.at() + durationNanos(seen.lease())) > 0;
	}

	private record Seen(MemberLease lease, long at) {
	}

}
