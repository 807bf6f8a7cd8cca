package dev.listwatch.leader;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of a {@link LeaderElector}, for health and logs: immutable, never a secret.
 *
 * @param role this replica's role now
 * @param identity this replica's identity
 * @param holder the Lease's holder as last seen, or {@code null} when nobody held it or
 * it was not read yet
 * @param lease the Lease, {@code <namespace>/<name>}
 * @param since when the role last changed (wall clock), or {@code null} before the first
 * change
 * @param lastRenewal when this replica last wrote the Lease successfully (wall clock), or
 * {@code null}
 * @param leaseTransitions the Lease's {@code leaseTransitions} as last seen
 * @param conflicts how many writes failed with 409 Conflict (retried at the next retry
 * period)
 * @param failures how many attempts failed otherwise (unreachable server, errors,
 * timeouts)
 * @param lastError the message of the last failure, or {@code null} when the last attempt
 * succeeded or found the Lease held by another
 */
public record LeaderStatus(Role role, String identity, @Nullable String holder, String lease, @Nullable Instant since,
		@Nullable Instant lastRenewal, int leaseTransitions, long conflicts, long failures,
		@Nullable String lastError) {

	/**
	 * The role of a replica.
	 */
	public enum Role {

		/** It holds the Lease and acts as leader. */
		LEADER,

		/** It runs and tries to acquire the Lease. */
		FOLLOWER,

		/** The elector is not running. */
		STOPPED

	}

}
