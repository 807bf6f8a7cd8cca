package dev.listwatch.leader;

import java.util.ArrayDeque;
import java.util.Deque;

import org.jspecify.annotations.Nullable;

/**
 * What this process wrote on a Lease under its identity: the renew times it sent lately
 * and the one the server last confirmed. A Lease held by the same identity with another
 * renew time was written by another process (one given the same identity, or an earlier
 * run of this one). Used by the loop's thread of one {@link LeaderElector} or
 * {@link ShardMembership} only: not thread-safe.
 */
final class OwnWrites {

	/** How many renew times sent are remembered (writes whose answer may be lost). */
	private static final int KEPT = 16;

	private final String identity;

	/** The renew times sent lately, the newest last. */
	private final Deque<String> sent = new ArrayDeque<>();

	/** The renew time of the last write the server confirmed. */
	private @Nullable String confirmed;

	OwnWrites(String identity) {
		this.identity = identity;
	}

	/**
	 * A write with this renew time is about to be sent.
	 * @param renewTime the renew time it carries
	 */
	void sending(String renewTime) {
		if (!this.sent.contains(renewTime)) {
			this.sent.addLast(renewTime);
			if (this.sent.size() > KEPT) {
				this.sent.removeFirst();
			}
		}
	}

	/**
	 * The server confirmed a write of this process: its renew time stays this process's
	 * however many writes fail after it.
	 * @param renewTime the renew time the server returned
	 */
	void confirmed(@Nullable String renewTime) {
		this.confirmed = renewTime;
	}

	/**
	 * Whether this process holds a Lease: held by its identity, with a renew time it
	 * wrote.
	 * @param holder the Lease's holder
	 * @param renewTime the Lease's renew time
	 * @return whether it is this process's
	 */
	boolean ours(@Nullable String holder, @Nullable String renewTime) {
		return this.identity.equals(holder) && renewTime != null
				&& (this.sent.contains(renewTime) || renewTime.equals(this.confirmed));
	}

	/**
	 * Whether a Lease is held by this identity but was written by another process.
	 * @param holder the Lease's holder
	 * @param renewTime the Lease's renew time
	 * @return whether another process wrote it under this identity
	 */
	boolean another(@Nullable String holder, @Nullable String renewTime) {
		return this.identity.equals(holder) && renewTime != null && !ours(holder, renewTime);
	}

}
