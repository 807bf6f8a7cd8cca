package dev.listwatch.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Leader election among the replicas of the application, on a coordination.k8s.io/v1
 * Lease.
 */
@ConfigurationProperties("listwatch.leader-election")
public class LeaderElectionProperties {

	/**
	 * Whether the replicas elect a leader on a Lease. Watches with leader-only: true need
	 * it.
	 */
	private boolean enabled = false;

	/**
	 * Name of the Lease. Default: spring.application.name.
	 */
	private @Nullable String leaseName;

	/**
	 * Namespace of the Lease. Default: the connection's namespace (the kubeconfig
	 * context's, or the pod's in-cluster).
	 */
	private @Nullable String leaseNamespace;

	/**
	 * Identity of this replica, unique among the replicas. Default: $POD_NAME, else
	 * $HOSTNAME in a pod, else the host name; always with a random suffix, so unique per
	 * process. A Lease held under this identity by another process is waited out, never
	 * taken over at once.
	 */
	private @Nullable String identity;

	/**
	 * How long the others wait, from when they see the Lease change, before they take it
	 * over from a leader that stopped renewing: whole seconds, longer than
	 * renew-deadline.
	 */
	private Duration leaseDuration = Duration.ofSeconds(15);

	/**
	 * How long the leader keeps trying to renew before it stops acting as leader, from
	 * the start of its last successful renewal: shorter than lease-duration (the
	 * difference is the safety margin) and longer than retry-period * 1.2.
	 */
	private Duration renewDeadline = Duration.ofSeconds(10);

	/**
	 * How often the leader renews the Lease and the others try to acquire it.
	 */
	private Duration retryPeriod = Duration.ofSeconds(2);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable String getLeaseName() {
		return this.leaseName;
	}

	public void setLeaseName(@Nullable String leaseName) {
		this.leaseName = leaseName;
	}

	public @Nullable String getLeaseNamespace() {
		return this.leaseNamespace;
	}

	public void setLeaseNamespace(@Nullable String leaseNamespace) {
		this.leaseNamespace = leaseNamespace;
	}

	public @Nullable String getIdentity() {
		return this.identity;
	}

	public void setIdentity(@Nullable String identity) {
		this.identity = identity;
	}

	public Duration getLeaseDuration() {
		return this.leaseDuration;
	}

	public void setLeaseDuration(Duration leaseDuration) {
		this.leaseDuration = leaseDuration;
	}

	public Duration getRenewDeadline() {
		return this.renewDeadline;
	}

	public void setRenewDeadline(Duration renewDeadline) {
		this.renewDeadline = renewDeadline;
	}

	public Duration getRetryPeriod() {
		return this.retryPeriod;
	}

	public void setRetryPeriod(Duration retryPeriod) {
		this.retryPeriod = retryPeriod;
	}

}
