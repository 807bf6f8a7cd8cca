package dev.listwatch.leader;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SortedSet;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of a {@link ShardMembership}.
 *
 * @param identity this replica's identity
 * @param members the live members seen at the last successful step, this replica
 * included, sorted
 * @param running the shards this replica runs now
 * @param listed the shards its Lease lists (running, claimed or being released)
 * @param handOvers how many shards it started after another member had listed them, plus
 * how many it released to another
 * @param fences how many times it stopped all its shards because its renew deadline
 * passed
 * @param conflicts how many writes met 409 Conflict (retried, never fatal)
 * @param failures how many steps failed otherwise
 * @param lastError the error of the last step, {@code null} when it succeeded
 * @param failingSince when the steps started failing (wall clock, shown only),
 * {@code null} when the last one succeeded
 * @param standingDown how long this replica has stood down because the members of its
 * group disagree on the number of shards (none of them runs a shard meanwhile: a canary
 * with another {@code shards}, a stuck rolling update), {@code null} while they agree
 * @param ended whether the membership's thread ended on an unexpected failure: it owns
 * nothing until it is started again
 * @param impostor whether another live process writes this replica's Lease under the same
 * identity, as seen at the last step: this replica stands down (runs no shard) while it
 * does
 */
public record ShardStatus(String identity, List<String> members, SortedSet<Integer> running, SortedSet<Integer> listed,
		long handOvers, long fences, long conflicts, long failures, @Nullable String lastError,
		@Nullable Instant failingSince, @Nullable Duration standingDown, boolean ended, boolean impostor) {
}
