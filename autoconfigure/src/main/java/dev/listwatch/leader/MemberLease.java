package dev.listwatch.leader;

import java.util.SortedSet;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ObjectNode;

/**
 * A member Lease of a shard group as last read, listed or written.
 *
 * @param name the Lease's name
 * @param holderIdentity the member, empty or {@code null} when it left the group
 * @param leaseDurationSeconds how long others wait, from when they see the Lease change,
 * before they count the member gone; 0 when not set
 * @param shards the shards the member runs or claims (its {@code listwatch.dev/shards}
 * annotation)
 * @param resourceVersion the resourceVersion, the precondition of the next update
 * @param object the whole object (kept on update), never changed once made
 * @param shardCount the number of shards the member hashes keys into (its
 * {@code listwatch.dev/shard-count} annotation); 0 when not set
 * @param renewTime when the holder last wrote it ({@code spec.renewTime}, as written), or
 * {@code null}
 */
record MemberLease(String name, @Nullable String holderIdentity, int leaseDurationSeconds, SortedSet<Integer> shards,
		String resourceVersion, ObjectNode object, int shardCount, @Nullable String renewTime) {

	/**
	 * Whether a member holds the Lease.
	 * @return whether the holder is not empty
	 */
	boolean held() {
		return this.holderIdentity != null && !this.holderIdentity.isEmpty();
	}

}
