package dev.listwatch.leader;

import org.jspecify.annotations.Nullable;

/**
 * What leader election reads and writes of a Lease's {@code spec} (client-go's
 * {@code LeaderElectionRecord}). The times are the server's {@code MicroTime} text, shown
 * but never compared with a clock.
 *
 * @param holderIdentity the holder, empty or {@code null} when nobody holds the Lease
 * @param leaseDurationSeconds how long others wait, from when they see the Lease change,
 * before they may take it
 * @param acquireTime when the holder acquired it, or {@code null}
 * @param renewTime when the holder last renewed it, or {@code null}
 * @param leaseTransitions how many times the holder changed
 */
record LeaseRecord(@Nullable String holderIdentity, int leaseDurationSeconds, @Nullable String acquireTime,
		@Nullable String renewTime, int leaseTransitions) {

	/**
	 * Whether someone holds the Lease.
	 * @return whether the holder is not empty
	 */
	boolean held() {
		return this.holderIdentity != null && !this.holderIdentity.isEmpty();
	}

	/**
	 * Whether {@code identity} holds the Lease.
	 * @param identity an identity
	 * @return whether it is the holder
	 */
	boolean heldBy(String identity) {
		return identity.equals(this.holderIdentity);
	}

}
