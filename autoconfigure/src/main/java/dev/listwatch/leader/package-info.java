/**
 * Leader election on a {@code coordination.k8s.io/v1} Lease, as client-go's
 * {@code tools/leaderelection} does it: {@link dev.listwatch.leader.LeaderElector}
 * acquires, renews and releases the Lease with optimistic concurrency and publishes
 * {@link dev.listwatch.leader.LeadershipGrantedEvent} and
 * {@link dev.listwatch.leader.LeadershipRevokedEvent}; a replica that cannot renew stops
 * acting as leader before any other can acquire the Lease.
 * {@link dev.listwatch.leader.ShardMembership} shares a fixed number of shards out among
 * the live replicas on one Lease each
 * ({@link dev.listwatch.leader.ShardMembershipOptions}), with the same clock rules and
 * margin, telling a {@link dev.listwatch.leader.ShardListener} which shards start and
 * stop here, and reporting a {@link dev.listwatch.leader.ShardStatus}.
 */
@NullMarked
package dev.listwatch.leader;

import org.jspecify.annotations.NullMarked;
