package dev.listwatch.leader;

import java.util.List;
import java.util.SortedSet;

import dev.listwatch.KubernetesApiException;
import org.jspecify.annotations.Nullable;

/**
 * Where the Leases of a shard group live: this replica's own Lease, read, created and
 * updated with optimistic concurrency, and the group's Leases, listed. Every method is
 * one request, may block, and fails with a {@link KubernetesApiException}, of code 409
 * when a precondition does not hold and 404 when the own Lease is not there.
 */
interface MemberLeaseStore {

	/**
	 * Reads this replica's Lease.
	 * @return the Lease, or {@code null} when there is none
	 */
	@Nullable MemberLease get();

	/**
	 * Creates this replica's Lease.
	 * @param record what to write
	 * @return the Lease as written
	 * @throws KubernetesApiException of code 409 when it exists already
	 */
	MemberLease create(MemberRecord record);

	/**
	 * Replaces this replica's record, on the condition that the Lease is still at
	 * {@code previous}'s resourceVersion; keeps the object's other fields.
	 * @param previous the Lease as last read or written
	 * @param record what to write
	 * @return the Lease as written
	 * @throws KubernetesApiException of code 409 when the Lease changed since (a Lease
	 * deleted meanwhile is created again by the API server, which allows a create on
	 * update for Leases; a store that does not may answer 404)
	 */
	MemberLease update(MemberLease previous, MemberRecord record);

	/**
	 * Deletes another member's Lease that this replica counts expired, on the condition
	 * that it is still at the resourceVersion seen: the member stopped renewing more than
	 * a lease duration ago, so it has fenced itself, and its Lease would otherwise keep
	 * its shards from a replica that joins later (which has not yet seen it unchanged for
	 * a lease duration) and stay behind forever.
	 * @param expired the Lease as last listed
	 * @return whether it was deleted; {@code false} when it changed or went meanwhile
	 */
	boolean delete(MemberLease expired);

	/**
	 * Lists the group's Leases, this replica's included, as the API server has them now
	 * (a consistent read).
	 * @return the Leases
	 */
	List<MemberLease> list();

	/**
	 * Names the group, for logs.
	 * @return e.g. {@code default/orders}
	 */
	String describe();

	/**
	 * What a member writes in its Lease.
	 *
	 * @param holderIdentity the member, empty when it leaves the group
	 * @param leaseDurationSeconds its lease duration
	 * @param renewTime its wall-clock time of the write, shown, never compared
	 * @param shards the shards it runs or claims
	 */
	record MemberRecord(String holderIdentity, int leaseDurationSeconds, String renewTime, SortedSet<Integer> shards) {
	}

}
