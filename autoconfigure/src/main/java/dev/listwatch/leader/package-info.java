/**
 * Leader election on a {@code coordination.k8s.io/v1} Lease, as client-go's
 * {@code tools/leaderelection} does it: {@link dev.listwatch.leader.LeaderElector}
 * acquires, renews and releases the Lease with optimistic concurrency and publishes
 * {@link dev.listwatch.leader.LeadershipGrantedEvent} and
 * {@link dev.listwatch.leader.LeadershipRevokedEvent}; a replica that cannot renew stops
 * acting as leader before any other can acquire the Lease.
 */
@NullMarked
package dev.listwatch.leader;

import org.jspecify.annotations.NullMarked;
