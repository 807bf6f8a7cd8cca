package dev.listwatch.leader;

import dev.listwatch.KubernetesApiException;
import org.jspecify.annotations.Nullable;

/**
 * Where the Lease lives: read, created and updated with optimistic concurrency. Every
 * method is one request, may block, and fails with a {@link KubernetesApiException}, of
 * code 409 when a precondition does not hold (the Lease changed since it was read, or
 * exists already).
 */
interface LeaseStore {

	/**
	 * Reads the Lease.
	 * @return the Lease, or {@code null} when there is none
	 */
	@Nullable Lease get();

	/**
	 * Creates the Lease.
	 * @param record what to write
	 * @return the Lease as written
	 * @throws KubernetesApiException of code 409 when it exists already
	 */
	Lease create(LeaseRecord record);

	/**
	 * Replaces the Lease's record, on the condition that it is still at
	 * {@code previous}'s resourceVersion.
	 * @param previous the Lease as last read or written
	 * @param record what to write
	 * @return the Lease as written
	 * @throws KubernetesApiException of code 409 when the Lease changed since
	 */
	Lease update(Lease previous, LeaseRecord record);

	/**
	 * Names the Lease, for logs.
	 * @return e.g. {@code default/my-app}
	 */
	String describe();

}
