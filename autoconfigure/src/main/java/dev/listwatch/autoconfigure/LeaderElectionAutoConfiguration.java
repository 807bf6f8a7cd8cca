package dev.listwatch.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.informer.Informer;
import dev.listwatch.leader.LeaderElectionOptions;
import dev.listwatch.leader.LeaderElector;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Auto-configuration of leader election ({@code listwatch.leader-election.enabled=true}):
 * a {@link LeaderElector} bean on the Lease {@code lease-namespace/lease-name} through
 * the application's {@link ApiServerClient}, and the starting and stopping of the watches
 * declared {@code leader-only: true} as leadership is granted and revoked. Settings that
 * cannot work fail startup with the property and the fix.
 */
@AutoConfiguration(after = ListwatchAutoConfiguration.class)
@ConditionalOnBooleanProperty("listwatch.leader-election.enabled")
@ConditionalOnBean(ApiServerClient.class)
@EnableConfigurationProperties(LeaderElectionProperties.class)
public final class LeaderElectionAutoConfiguration {

	private static final String PREFIX = "listwatch.leader-election.";

	/** A DNS subdomain (RFC 1123), what a Lease's name must be. */
	private static final Pattern SUBDOMAIN = Pattern
		.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

	/** A DNS label (RFC 1123), what a namespace must be. */
	private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

	@Bean
	@ConditionalOnMissingBean
	LeaderElector listwatchLeaderElector(LeaderElectionProperties properties, ApiServerClient client,
			ObjectProvider<Cluster> cluster, ObjectProvider<JsonMapper> jsonMapper, Environment environment,
			ApplicationEventPublisher publisher) {
		Cluster connection = cluster.getIfAvailable();
		LeaderElectionOptions options = options(properties, environment.getProperty("spring.application.name"),
				(connection != null) ? connection.namespace() : "default",
				LeaderElectionAutoConfiguration::replicaIdentity);
		return LeaderElector.create(client, jsonMapper.getIfAvailable(JsonMapper::shared), options, publisher);
	}

	@Bean
	LeaderOnlyWatches listwatchLeaderOnlyWatches(LeaderElector elector, Environment environment,
			ListableBeanFactory beanFactory) {
		return new LeaderOnlyWatches(elector, LeaderOnlyWatches.declared(environment), beanFactory);
	}

	@Bean
	SmartLifecycle listwatchLeaderOnlyWatchesCheck(LeaderOnlyWatches leaderOnlyWatches) {
		return new WatchStartupChecks.Phase(Informer.PHASE + 1, leaderOnlyWatches::stopUnlessLeader);
	}

	/**
	 * The options from the properties, checked.
	 * @param properties the properties
	 * @param applicationName {@code spring.application.name}, the default Lease name
	 * @param namespace the connection's namespace, the default Lease namespace
	 * @param identity the default identity
	 * @return the options
	 * @throws InvalidConfigurationPropertyValueException naming the property and the fix
	 */
	static LeaderElectionOptions options(LeaderElectionProperties properties, @Nullable String applicationName,
			String namespace, Supplier<String> identity) {
		String leaseName = trimmed(properties.getLeaseName());
		if (leaseName == null) {
			leaseName = trimmed(applicationName);
			if (leaseName == null) {
				throw new InvalidConfigurationPropertyValueException(PREFIX + "lease-name", null,
						"Leader election needs a Lease name, and neither lease-name nor spring.application.name (its "
								+ "default) is set. Set " + PREFIX + "lease-name, e.g. to the application's name.");
			}
			if (!isSubdomain(leaseName)) {
				throw new InvalidConfigurationPropertyValueException(PREFIX + "lease-name", leaseName,
						"The Lease name defaults to spring.application.name, '" + leaseName + "', which is not a "
								+ "Kubernetes object name (lowercase letters, digits, '-' and '.'). Set " + PREFIX
								+ "lease-name, e.g. to '" + suggestedName(leaseName) + "'.");
			}
		}
		if (!isSubdomain(leaseName)) {
			throw new InvalidConfigurationPropertyValueException(PREFIX + "lease-name", leaseName,
					"A Lease name must be a Kubernetes object name: lowercase letters, digits, '-' and '.', starting and "
							+ "ending with a letter or digit, at most 253 characters, e.g. '" + suggestedName(leaseName)
							+ "'.");
		}
		String leaseNamespace = trimmed(properties.getLeaseNamespace());
		if (leaseNamespace == null) {
			leaseNamespace = namespace;
		}
		if (!LABEL.matcher(leaseNamespace).matches() || leaseNamespace.length() > 63) {
			throw new InvalidConfigurationPropertyValueException(PREFIX + "lease-namespace", leaseNamespace,
					"A namespace is a DNS label: lowercase letters, digits and '-', at most 63 characters. Set "
							+ PREFIX + "lease-namespace to the namespace the replicas run in.");
		}
		String id = trimmed(properties.getIdentity());
		if (id == null) {
			id = identity.get();
		}
		Duration lease = properties.getLeaseDuration();
		Duration renew = properties.getRenewDeadline();
		Duration retry = properties.getRetryPeriod();
		positive("lease-duration", lease);
		positive("renew-deadline", renew);
		positive("retry-period", retry);
		if (lease.getNano() != 0) {
			throw new InvalidConfigurationPropertyValueException(PREFIX + "lease-duration", lease,
					"The Lease holds its duration in whole seconds (spec.leaseDurationSeconds). Set " + PREFIX
							+ "lease-duration to whole seconds, e.g. " + Math.max(1, lease.toSeconds() + 1) + "s.");
		}
		if (lease.compareTo(renew) <= 0) {
			throw new InvalidConfigurationPropertyValueException(PREFIX + "renew-deadline", renew,
					"renew-deadline (" + renew.toMillis() + " ms) must be shorter than lease-duration ("
							+ lease.toMillis()
							+ " ms): a leader that cannot renew must stop acting before the others may take the Lease "
							+ "over. Lower " + PREFIX + "renew-deadline or raise " + PREFIX
							+ "lease-duration (client-go's defaults: 10s and 15s).");
		}
		if (renew.toNanos() <= (long) (LeaderElectionOptions.JITTER_FACTOR * retry.toNanos())) {
			throw new InvalidConfigurationPropertyValueException(PREFIX + "retry-period", retry,
					"renew-deadline (" + renew.toMillis() + " ms) must be longer than retry-period (" + retry.toMillis()
							+ " ms) * " + LeaderElectionOptions.JITTER_FACTOR
							+ ", so that the leader can retry a failed renewal before its deadline. Lower " + PREFIX
							+ "retry-period or raise " + PREFIX + "renew-deadline (client-go's defaults: 2s and 10s).");
		}
		return new LeaderElectionOptions(leaseName, leaseNamespace, id, lease, renew, retry);
	}

	private static void positive(String property, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidConfigurationPropertyValueException(PREFIX + property, value,
					"It must be a positive duration. Set " + PREFIX + property + ", or remove it for the default.");
		}
	}

	/**
	 * This replica's identity when none is configured, from this process's environment:
	 * see {@link #defaultIdentity(Map, Supplier, RandomGenerator)}; the same for the
	 * whole process (the elector and the shard memberships of controllers take it).
	 * @return the identity
	 */
	public static String replicaIdentity() {
		return ProcessIdentity.VALUE;
	}

	/**
	 * This replica's identity when none is configured: {@code POD_NAME} (the downward
	 * API), else {@code HOSTNAME} in a pod (where it is the pod's name), else the host
	 * name; always with a random suffix, as controller-runtime's, so that two processes
	 * never share one (a pod with {@code spec.hostname} and no {@code POD_NAME}, two
	 * processes on one machine, a restarted container beside its predecessor).
	 * @param env the environment variables
	 * @param hostName the host name
	 * @param random the source of the suffix
	 * @return the identity
	 */
	static String defaultIdentity(Map<String, String> env, Supplier<String> hostName, RandomGenerator random) {
		String name = trimmed(env.get("POD_NAME"));
		if (name == null) {
			String host = trimmed(env.get("HOSTNAME"));
			name = (host != null && trimmed(env.get("KUBERNETES_SERVICE_HOST")) != null) ? host : hostName.get();
		}
		byte[] suffix = new byte[4];
		random.nextBytes(suffix);
		return name + "_" + HexFormat.of().formatHex(suffix);
	}

	/** The identity of this process, made once. */
	private static final class ProcessIdentity {

		static final String VALUE = defaultIdentity(System.getenv(), LeaderElectionAutoConfiguration::hostName,
				RandomGenerator.getDefault());

	}

	private static String hostName() {
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			return "localhost";
		}
	}

	private static boolean isSubdomain(String name) {
		return name.length() <= 253 && SUBDOMAIN.matcher(name).matches();
	}

	private static String suggestedName(String name) {
		String suggested = name.toLowerCase(java.util.Locale.ROOT)
			.replaceAll("[^a-z0-9.-]+", "-")
			.replaceAll("^[-.]+|[-.]+$", "");
		return suggested.isEmpty() ? "my-app" : suggested;
	}

	private static @Nullable String trimmed(@Nullable String value) {
		return StringUtils.hasText(value) ? value.trim() : null;
	}

}
