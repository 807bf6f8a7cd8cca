package dev.listwatch.leader;

import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link LeaderElector} elects on and how fast, with client-go's defaults and
 * rules.
 *
 * <p>
 * The rules ({@code leaseDuration > renewDeadline > retryPeriod * 1.2}, all positive) are
 * what make one leader at a time hold under failures: others take a Lease over only once
 * they have seen it unchanged for {@code leaseDuration}, on their own monotonic clock;
 * the leader stops acting once {@code renewDeadline} has passed, on its monotonic clock,
 * since the start of its last successful renewal, and retries its renewal every
 * {@code retryPeriod} until then. The difference {@code leaseDuration - renewDeadline} is
 * the margin: it absorbs the time the leader takes to stop (its revoke listeners) and the
 * difference in the rates of the replicas' clocks (over a lease duration, a few parts per
 * million on healthy machines); the offset between their wall clocks does not matter at
 * all.
 *
 * @param leaseName the Lease's name (a DNS subdomain)
 * @param leaseNamespace the Lease's namespace
 * @param identity this replica's identity, unique among the replicas (the pod name)
 * @param leaseDuration how long others wait, from when they see the Lease change, before
 * they take it over: a whole number of seconds (the Lease holds seconds), default 15 s
 * @param renewDeadline how long the leader keeps trying to renew before it stops acting,
 * measured from the start of its last successful renewal; shorter than
 * {@code leaseDuration}, default 10 s
 * @param retryPeriod how often the leader renews and the others try to acquire; at most
 * {@code renewDeadline / 1.2}, default 2 s
 */
public record LeaderElectionOptions(String leaseName, String leaseNamespace, String identity, Duration leaseDuration,
		Duration renewDeadline, Duration retryPeriod) {

	/** client-go's default lease duration: 15 s. */
	public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(15);

	/** client-go's default renew deadline: 10 s. */
	public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);

	/** client-go's default retry period: 2 s. */
	public static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(2);

	/**
	 * client-go's {@code JitterFactor}: the renew deadline must exceed the retry period
	 * times this.
	 */
	public static final double JITTER_FACTOR = 1.2;

	/**
	 * Checks the values.
	 * @throws IllegalArgumentException when a name is blank, a duration not positive, the
	 * lease duration not whole seconds, or the rules between the durations do not hold
	 */
	public LeaderElectionOptions {
		Objects.requireNonNull(leaseName, "leaseName");
		Objects.requireNonNull(leaseNamespace, "leaseNamespace");
		Objects.requireNonNull(identity, "identity");
		Objects.requireNonNull(leaseDuration, "leaseDuration");
		Objects.requireNonNull(renewDeadline, "renewDeadline");
		Objects.requireNonNull(retryPeriod, "retryPeriod");
		if (leaseName.isBlank() || leaseNamespace.isBlank() || identity.isBlank()) {
			throw new IllegalArgumentException("leaseName, leaseNamespace and identity must not be blank");
		}
		if (notPositive(retryPeriod) || notPositive(renewDeadline) || notPositive(leaseDuration)) {
			throw new IllegalArgumentException("leaseDuration, renewDeadline and retryPeriod must be positive");
		}
		if (leaseDuration.getNano() != 0) {
			throw new IllegalArgumentException("leaseDuration (" + leaseDuration + ") must be whole seconds");
		}
		if (leaseDuration.compareTo(renewDeadline) <= 0) {
			throw new IllegalArgumentException(
					"leaseDuration (" + leaseDuration + ") must be longer than renewDeadline (" + renewDeadline + ")");
		}
		if (renewDeadline.toNanos() <= (long) (JITTER_FACTOR * retryPeriod.toNanos())) {
			throw new IllegalArgumentException("renewDeadline (" + renewDeadline + ") must be longer than retryPeriod ("
					+ retryPeriod + ") * " + JITTER_FACTOR);
		}
	}

	private static boolean notPositive(Duration duration) {
		return duration.isNegative() || duration.isZero();
	}

	/**
	 * Options with client-go's default durations.
	 * @param leaseName the Lease's name
	 * @param leaseNamespace the Lease's namespace
	 * @param identity this replica's identity
	 * @return the options
	 */
	public static LeaderElectionOptions of(String leaseName, String leaseNamespace, String identity) {
		return new LeaderElectionOptions(leaseName, leaseNamespace, identity, DEFAULT_LEASE_DURATION,
				DEFAULT_RENEW_DEADLINE, DEFAULT_RETRY_PERIOD);
	}

	/**
	 * These options with other durations.
	 * @param leaseDuration the lease duration
	 * @param renewDeadline the renew deadline
	 * @param retryPeriod the retry period
	 * @return new options
	 */
	public LeaderElectionOptions withDurations(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
		return new LeaderElectionOptions(this.leaseName, this.leaseNamespace, this.identity, leaseDuration,
				renewDeadline, retryPeriod);
	}

	/**
	 * Names the Lease.
	 * @return {@code <namespace>/<name>}
	 */
	public String lease() {
		return this.leaseNamespace + "/" + this.leaseName;
	}

}
