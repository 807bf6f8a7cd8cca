package dev.listwatch.leader;

import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a {@link ShardMembership} is a member of and how fast: the group of member Leases
 * (one per replica, named {@code <prefix>-<hash of identity>} and labelled
 * {@code listwatch.dev/shard-group=<prefix>}), this replica's identity, the number of
 * shards, and the durations with client-go's defaults and the rules of
 * {@link LeaderElectionOptions} (checked by making one: {@code leaseDuration >
 * renewDeadline > retryPeriod * 1.2}, all positive, the lease duration whole seconds).
 *
 * @param prefix the group's name: the prefix of the Lease names and the label's value (a
 * lowercase DNS label of at most 52 characters)
 * @param namespace the namespace of the Leases
 * @param identity this replica's identity, unique in the group (the pod name)
 * @param shards the number of shards, from 1 to {@link #MAX_SHARDS}, the same on every
 * member
 * @param leaseDuration how long the others wait, from when they see a member's Lease
 * change, before they count it gone, default 15 s
 * @param renewDeadline how long a member keeps running its shards without a successful
 * step, from the start of the last successful write, default 10 s
 * @param retryPeriod how often a member writes its Lease and lists the group, default 2 s
 */
public record ShardMembershipOptions(String prefix, String namespace, String identity, int shards,
		Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {

	/** The label that puts a Lease in a group; its value is the prefix. */
	public static final String GROUP_LABEL = "listwatch.dev/shard-group";

	/** The annotation that lists the shards a member runs or claims: {@code 0,3,7}. */
	public static final String SHARDS_ANNOTATION = "listwatch.dev/shards";

	/**
	 * The annotation that says how many shards a member hashes keys into: members that
	 * disagree run nothing.
	 */
	public static final String SHARD_COUNT_ANNOTATION = "listwatch.dev/shard-count";

	/** The most shards a group may have. */
	public static final int MAX_SHARDS = 1024;

	/** 52 characters, a dash and 10 hex digits: 63, a DNS label. */
	private static final Pattern PREFIX = Pattern.compile("[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?");

	/**
	 * Checks the options.
	 * @throws IllegalArgumentException naming the value that cannot work
	 */
	public ShardMembershipOptions {
		Objects.requireNonNull(prefix, "prefix");
		// the same rules as leader election's, checked by its options
		new LeaderElectionOptions(prefix, namespace, identity, leaseDuration, renewDeadline, retryPeriod);
		if (!PREFIX.matcher(prefix).matches()) {
			throw new IllegalArgumentException("prefix (" + prefix
					+ ") must be a lowercase DNS label of at most 52 characters (letters, digits and '-')");
		}
		if (shards < 1 || shards > MAX_SHARDS) {
			throw new IllegalArgumentException("shards must be from 1 to " + MAX_SHARDS
					+ " (each member lists its shards on its Lease), not " + shards);
		}
	}

	/**
	 * Options with client-go's default durations (15 s, 10 s, 2 s).
	 * @param prefix the group's name
	 * @param namespace the namespace of the Leases
	 * @param identity this replica's identity
	 * @param shards the number of shards
	 * @return the options
	 */
	public static ShardMembershipOptions of(String prefix, String namespace, String identity, int shards) {
		return new ShardMembershipOptions(prefix, namespace, identity, shards,
				LeaderElectionOptions.DEFAULT_LEASE_DURATION, LeaderElectionOptions.DEFAULT_RENEW_DEADLINE,
				LeaderElectionOptions.DEFAULT_RETRY_PERIOD);
	}

	/**
	 * These options with other durations.
	 * @param leaseDuration the lease duration
	 * @param renewDeadline the renew deadline
	 * @param retryPeriod the retry period
	 * @return new options
	 */
	public ShardMembershipOptions withDurations(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
		return new ShardMembershipOptions(this.prefix, this.namespace, this.identity, this.shards, leaseDuration,
				renewDeadline, retryPeriod);
	}

	/**
	 * The name of this replica's Lease: the prefix, a dash and 10 hex digits of the
	 * identity's stable hash (an identity may be longer than a name allows, or not a DNS
	 * name).
	 * @return e.g. {@code orders-3f2a9c01b7}
	 */
	public String leaseName() {
		return this.prefix + "-" + HexFormat.of().toHexDigits(ShardAssignment.hash(this.identity)).substring(0, 10);
	}

	/**
	 * The shard of a key, the same on every replica and JVM: a stable hash of the key
	 * (FNV-1a over its UTF-8 bytes, mixed), modulo the number of shards.
	 * @param key the key, {@code namespace/name} or {@code name}
	 * @return the shard, from 0 to {@code shards - 1}
	 */
	public int shardOf(String key) {
		return ShardAssignment.shardOf(key, this.shards);
	}

	/**
	 * Names the group, for logs.
	 * @return {@code <namespace>/<prefix>}
	 */
	public String group() {
		return this.namespace + "/" + this.prefix;
	}

}
