package dev.listwatch.leader;

import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntPredicate;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * The shards of one member in each of their states, and the step's decision that moves
 * them: which shards to claim, start, hand over and stop listing. A shard assigned to the
 * member that it does not run is claimed; a claimed shard starts only in a step whose
 * write listed it and whose list shows it on no other live member's Lease; a running
 * shard no longer assigned to it is stopped at once and stays listed (releasing) until
 * drained or the renew deadline has passed; what a former incarnation listed stays
 * listed, unrun, for a lease. The membership ({@link ShardMembership}) does the requests,
 * keeps the fence and tells the listener what was decided. Not thread-safe: the
 * membership's thread only.
 */
final class MemberShards {

	private final Log logger;

	private final String identity;

	private final String group;

	private final String leaseName;

	private final int shards;

	private final long renewNanos;

	private final SortedSet<Integer> running = new TreeSet<>();

	private final SortedSet<Integer> claimed = new TreeSet<>();

	/** Shards reported stopped and still listed, by when they were stopped. */
	private final SortedMap<Integer, Long> releasing = new TreeMap<>();

	/** Shards a former incarnation listed, kept listed until the time given. */
	private final SortedMap<Integer, Long> inherited = new TreeMap<>();

	/** Claimed shards another member listed when claimed: a start is a hand-over. */
	private final Set<Integer> contested = new TreeSet<>();

	/** Whether the last step claimed shards its write did not list yet. */
	private boolean unwrittenClaims;

	/** Why it stands down, while members disagree on the number of shards. */
	private @Nullable String disagreement;

	/**
	 * The shards of a member.
	 * @param logger where to log (the membership's category)
	 * @param identity the member's identity
	 * @param group the group, for logs
	 * @param leaseName the name of the member's Lease, for logs
	 * @param shards the number of shards
	 * @param renewNanos the renew deadline: how long a released shard stays listed at
	 * most while not drained
	 */
	MemberShards(Log logger, String identity, String group, String leaseName, int shards, long renewNanos) {
		this.logger = logger;
		this.identity = identity;
		this.group = group;
		this.leaseName = leaseName;
		this.shards = shards;
		this.renewNanos = renewNanos;
	}

	/**
	 * What the next write lists: the shards running, claimed, releasing and inherited.
	 * @return a new set
	 */
	SortedSet<Integer> listing() {
		SortedSet<Integer> listing = new TreeSet<>(this.running);
		listing.addAll(this.claimed);
		listing.addAll(this.releasing.keySet());
		listing.addAll(this.inherited.keySet());
		return listing;
	}

	/**
	 * What a leaving member must still list: the shards releasing and inherited.
	 * @return a new set
	 */
	SortedSet<Integer> stillListed() {
		SortedSet<Integer> listing = new TreeSet<>(this.releasing.keySet());
		listing.addAll(this.inherited.keySet());
		return listing;
	}

	/**
	 * The shards running.
	 * @return an unmodifiable copy
	 */
	SortedSet<Integer> running() {
		return Collections.unmodifiableSortedSet(new TreeSet<>(this.running));
	}

	/**
	 * Whether no shard is releasing.
	 * @return whether all are drained (or past their deadline)
	 */
	boolean drained() {
		return this.releasing.isEmpty();
	}

	/**
	 * Whether the last step claimed shards its write did not list yet.
	 * @return whether the next step should come at once
	 */
	boolean unwrittenClaims() {
		return this.unwrittenClaims;
	}

	/**
	 * Why it stands down, while members disagree on the number of shards.
	 * @return the message, or null while they agree
	 */
	@Nullable String disagreement() {
		return this.disagreement;
	}

	/** Forgets the claims not written yet (a step failed): the next step waits. */
	void forgetUnwrittenClaims() {
		this.unwrittenClaims = false;
	}

	/**
	 * Drops the released shards that are drained (or past their deadline), and the
	 * inherited ones past theirs.
	 * @param now the time, on the ticker
	 * @param drained whether a shard is drained
	 */
	void settle(long now, IntPredicate drained) {
		this.inherited.values().removeIf((until) -> now - until >= 0);
		this.releasing.entrySet().removeIf((entry) -> {
			int shard = entry.getKey();
			if (drained.test(shard)) {
				return true;
			}
			if (now - entry.getValue() - this.renewNanos >= 0) {
				this.logger.warn("Shard " + shard + " of " + this.group
						+ " did not drain within the renew deadline: released with reconciles in flight");
				return true;
			}
			return false;
		});
	}

	/**
	 * Keeps listed, unrun, what a former incarnation's Lease lists, until a time.
	 * @param lease the Lease found
	 * @param until until when, on the ticker
	 * @param listing what the write being made lists, to which they are added
	 */
	void inherit(MemberLease lease, long until, SortedSet<Integer> listing) {
		for (int shard : lease.shards()) {
			if (!listing.contains(shard)) {
				this.inherited.put(shard, until);
				listing.add(shard);
			}
		}
		if (!this.inherited.isEmpty()) {
			this.logger.info(this.identity + " found shards " + this.inherited.keySet() + " on Lease " + this.leaseName
					+ ": kept listed, not run, for a lease duration");
		}
	}

	/**
	 * Stops every running shard (they stay listed until drained) and drops the claims, as
	 * when the member leaves.
	 * @param now the time, on the ticker
	 * @return the shards stopped
	 */
	SortedSet<Integer> stopAll(long now) {
		SortedSet<Integer> stopped = new TreeSet<>(this.running);
		stopped.forEach((shard) -> this.releasing.put(shard, now));
		this.running.clear();
		this.claimed.clear();
		return stopped;
	}

	/**
	 * Stops every running shard and drops every claim, written or not, as when the fence
	 * passes or the members disagree on the number of shards.
	 * @param now the time, on the ticker
	 * @return the shards stopped
	 */
	SortedSet<Integer> standDown(long now) {
		SortedSet<Integer> stopped = stopAll(now);
		this.contested.clear();
		this.unwrittenClaims = false;
		return stopped;
	}

	/**
	 * Decides on a list of the group, after a successful write. A resourceVersion first
	 * seen counts from when the list answered (the latest it can have been written);
	 * whether a Lease expired is judged at when the list was sent (the earliest the
	 * server can have read it): a list that answers late must not make a member that
	 * wrote after the server read it look gone. The live members are this one and the
	 * holders of the live Leases. While a live member hashes keys into another number of
	 * shards it stands down (see {@link #disagreed}); otherwise the shards go to the live
	 * members by {@link ShardAssignment#assign}: a claimed shard assigned here starts
	 * when the write listed it and no other live member lists it; a running shard
	 * assigned elsewhere is handed over (stopped, releasing); a claim of a shard assigned
	 * elsewhere is withdrawn; a shard assigned here that is neither running, releasing
	 * nor inherited is claimed (contested when another member lists it).
	 * @param observations what this member saw of the others' Leases, which takes in the
	 * list
	 * @param group the list of the group
	 * @param listing what the step's write listed
	 * @param listSent when the list was sent, on the ticker
	 * @param now when it answered, on the ticker
	 * @return the live members and what to start and stop here
	 */
	Decision decide(MemberObservations observations, List<MemberLease> group, SortedSet<Integer> listing, long listSent,
			long now) {
		String me = this.identity;
		observations.observe(group, now);
		SortedSet<String> live = observations.liveHolders(listSent);
		live.add(me);
		SortedMap<String, Integer> disagreeing = observations.disagreeing(listSent, this.shards);
		if (!disagreeing.isEmpty()) {
			return disagreed(now, disagreeing, live);
		}
		this.disagreement = null;
		SortedSet<Integer> takenByOthers = observations.listed(listSent, true);
		SortedSet<Integer> listedByOthers = observations.listed(now, false);
		String[] owners = ShardAssignment.assign(live, this.shards);
		SortedSet<Integer> toStart = new TreeSet<>();
		for (int shard : this.claimed) {
			if (me.equals(owners[shard]) && listing.contains(shard) && !takenByOthers.contains(shard)) {
				toStart.add(shard);
			}
		}
		this.claimed.removeIf((shard) -> !me.equals(owners[shard]) || toStart.contains(shard));
		int handOvers = 0;
		SortedSet<Integer> toStop = new TreeSet<>();
		for (int shard : this.running) {
			if (!me.equals(owners[shard])) {
				toStop.add(shard);
				this.releasing.put(shard, now);
				handOvers++;
			}
		}
		this.running.removeAll(toStop);
		this.running.addAll(toStart);
		for (int shard : toStart) {
			if (this.contested.remove(shard)) {
				handOvers++;
			}
		}
		this.contested.retainAll(this.claimed);
		for (int shard : ShardAssignment.shardsOf(owners, me)) {
			if (!this.running.contains(shard) && !this.releasing.containsKey(shard)
					&& !this.inherited.containsKey(shard) && this.claimed.add(shard)
					&& listedByOthers.contains(shard)) {
				this.contested.add(shard);
			}
		}
		this.unwrittenClaims = !listing.containsAll(this.claimed);
		if (!toStop.isEmpty()) {
			this.logger.info(me + " hands over shards " + toStop + " of " + this.group);
		}
		if (!toStart.isEmpty()) {
			this.logger.info(me + " starts shards " + toStart + " of " + this.group);
		}
		return new Decision(List.copyOf(live), toStart, toStop, handOvers);
	}

	/**
	 * Runs no shard while a live member hashes keys into another number of shards: the
	 * same key would be in shards of both, and no claim could tell.
	 */
	private Decision disagreed(long now, SortedMap<String, Integer> disagreeing, SortedSet<String> live) {
		String message = "The members of " + this.group + " disagree on the number of shards: " + this.shards
				+ " here, " + disagreeing
				+ " on others; this replica runs no shard until they agree (restart them with one value)";
		if (!message.equals(this.disagreement)) {
			this.logger.error(message);
		}
		this.disagreement = message;
		return new Decision(List.copyOf(live), Collections.emptySortedSet(), standDown(now), 0);
	}

	/**
	 * What a step decided.
	 *
	 * @param members the live members, this one included
	 * @param toStart the shards to start here
	 * @param toStop the shards handed over
	 * @param handOvers how many hand-overs it counts: each shard handed over, and each
	 * contested shard started
	 */
	record Decision(List<String> members, SortedSet<Integer> toStart, SortedSet<Integer> toStop, int handOvers) {
	}

}
