package dev.listwatch.autoconfigure.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.listwatch.controller.ControllerOptions;
import dev.listwatch.leader.LeaderElectionOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The controllers declared under {@code listwatch.controllers.<name>}: each runs a
 * {@code Reconciler} bean on the keys of a declared watch.
 */
@ConfigurationProperties("listwatch")
public class ControllerProperties {

	/**
	 * The controllers, by name. The name names the bean <name>Controller, the reconciler
	 * bean looked for (<name>Reconciler, unless set), the worker threads, the meters'
	 * controller tag and the health entry.
	 */
	private Map<String, Declaration> controllers = new LinkedHashMap<>();

	public Map<String, Declaration> getControllers() {
		return this.controllers;
	}

	public void setControllers(Map<String, Declaration> controllers) {
		this.controllers = controllers;
	}

	/**
	 * One controller.
	 */
	public static class Declaration {

		/**
		 * Whether the controller runs.
		 */
		private boolean enabled = true;

		/**
		 * The name of the watch whose keys it reconciles (a watch declared under
		 * listwatch.watches, or any informer bean named <watch>Informer). Defaults to the
		 * controller's name.
		 */
		private @Nullable String watch;

		/**
		 * The name of the Reconciler bean it runs. Defaults to <name>Reconciler (for a
		 * name such as web-status, webStatusReconciler also).
		 */
		private @Nullable String reconciler;

		/**
		 * How many keys are reconciled at once; one key is never reconciled by two
		 * workers at once.
		 */
		private int workers = ControllerOptions.DEFAULTS.workers();

		/**
		 * Whether the controller runs only on the replica elected leader (needs
		 * listwatch.leader-election.enabled=true). A controller on a leader-only watch is
		 * leader-only too.
		 */
		private boolean leaderOnly;

		/**
		 * How often every cached key is queued again (level-triggered polling of what the
		 * watch does not see). None by default.
		 */
		private @Nullable Duration resyncPeriod;

		/**
		 * The longest any delay may be, a requeue-after asked for by the reconciler
		 * included.
		 */
		private Duration maxDelay = ControllerOptions.DEFAULTS.maxDelay();

		/**
		 * How long a stop (a shutdown, a lost leadership) waits for the reconciles under
		 * way.
		 */
		private Duration shutdownTimeout = ControllerOptions.DEFAULTS.shutdownTimeout();

		/**
		 * Secondary watches: names of declared watches whose objects, when they change,
		 * queue the key of their owner of the controller's kind
		 * (metadata.ownerReferences), as a change of a Pod queues its ReplicaSet.
		 */
		private List<String> owns = new ArrayList<>();

		/**
		 * Which changes of the watch queue their key: any (the default), or
		 * generation-changed (a modification only when metadata.generation changed, so a
		 * status update alone does not reconcile again).
		 */
		private Filter filter = Filter.ANY;

		private final Backoff backoff = new Backoff();

		private final RetryRate retryRate = new RetryRate();

		private final Sharding sharding = new Sharding();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable String getWatch() {
			return this.watch;
		}

		public void setWatch(@Nullable String watch) {
			this.watch = watch;
		}

		public @Nullable String getReconciler() {
			return this.reconciler;
		}

		public void setReconciler(@Nullable String reconciler) {
			this.reconciler = reconciler;
		}

		public int getWorkers() {
			return this.workers;
		}

		public void setWorkers(int workers) {
			this.workers = workers;
		}

		public boolean isLeaderOnly() {
			return this.leaderOnly;
		}

		public void setLeaderOnly(boolean leaderOnly) {
			this.leaderOnly = leaderOnly;
		}

		public @Nullable Duration getResyncPeriod() {
			return this.resyncPeriod;
		}

		public void setResyncPeriod(@Nullable Duration resyncPeriod) {
			this.resyncPeriod = resyncPeriod;
		}

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
		}

		public List<String> getOwns() {
			return this.owns;
		}

		public void setOwns(List<String> owns) {
			this.owns = owns;
		}

		public Filter getFilter() {
			return this.filter;
		}

		public void setFilter(Filter filter) {
			this.filter = filter;
		}

		public Backoff getBackoff() {
			return this.backoff;
		}

		public RetryRate getRetryRate() {
			return this.retryRate;
		}

		public Sharding getSharding() {
			return this.sharding;
		}

	}

	/**
	 * Which changes of a controller's watch queue their key.
	 */
	public enum Filter {

		/** Every change. */
		ANY,

		/** A modification only when metadata.generation changed; every other change. */
		GENERATION_CHANGED

	}

	/**
	 * The per-key backoff after failures: doubling from the initial delay up to the
	 * maximum.
	 */
	public static class Backoff {

		/**
		 * The delay after a key's first failure.
		 */
		private Duration initial = ControllerOptions.DEFAULTS.backoffInitial();

		/**
		 * The longest delay after failures.
		 */
		private Duration max = ControllerOptions.DEFAULTS.backoffMax();

		public Duration getInitial() {
			return this.initial;
		}

		public void setInitial(Duration initial) {
			this.initial = initial;
		}

		public Duration getMax() {
			return this.max;
		}

		public void setMax(Duration max) {
			this.max = max;
		}

	}

	/**
	 * The overall limit on retries after failures, over all keys (a token bucket), so
	 * that many keys failing at once cannot retry faster.
	 */
	public static class RetryRate {

		/**
		 * Retries a second.
		 */
		private double perSecond = ControllerOptions.DEFAULTS.retriesPerSecond();

		/**
		 * How many retries may go at once before the rate applies.
		 */
		private int burst = ControllerOptions.DEFAULTS.retryBurst();

		public double getPerSecond() {
			return this.perSecond;
		}

		public void setPerSecond(double perSecond) {
			this.perSecond = perSecond;
		}

		public int getBurst() {
			return this.burst;
		}

		public void setBurst(int burst) {
			this.burst = burst;
		}

	}

	/**
	 * How a controller's keys are shared out among the replicas, on one Lease per
	 * replica.
	 */
	public static class Sharding {

		/**
		 * Whether the replicas share the keys out: each key (namespace/name) belongs to
		 * one of a fixed number of shards, each shard is run by one live replica at a
		 * time. Not with leader-only.
		 */
		private boolean enabled;

		/**
		 * How many shards the keys are hashed into: the same on every replica, and more
		 * than the replicas expected (the shares differ by one shard at most).
		 */
		private int shards = 16;

		/**
		 * The name of the group: the prefix of the replicas' Lease names and the value of
		 * their label listwatch.dev/shard-group (a lowercase DNS label of at most 52
		 * characters). Default: <spring.application.name>-<controller name>.
		 */
		private @Nullable String leasePrefix;

		/**
		 * Namespace of the Leases. Default: the connection's namespace (the kubeconfig
		 * context's, or the pod's in-cluster).
		 */
		private @Nullable String leaseNamespace;

		/**
		 * Identity of this replica, unique among the replicas: two processes with one
		 * identity share one Lease and each runs every shard, so never one value for all
		 * replicas. Default: $POD_NAME, else $HOSTNAME in a pod, else the host name;
		 * always with a random suffix, so unique per process.
		 */
		private @Nullable String identity;

		/**
		 * How long the others wait, from when they see a replica's Lease change, before
		 * they take its shards over: whole seconds, longer than renew-deadline.
		 */
		private Duration leaseDuration = LeaderElectionOptions.DEFAULT_LEASE_DURATION;

		/**
		 * How long a replica keeps running its shards without renewing its Lease, from
		 * the start of its last successful renewal: shorter than lease-duration (the
		 * difference is the margin in which its reconciles in flight must end) and longer
		 * than retry-period * 1.2.
		 */
		private Duration renewDeadline = LeaderElectionOptions.DEFAULT_RENEW_DEADLINE;

		/**
		 * How often a replica renews its Lease and reads the others'.
		 */
		private Duration retryPeriod = LeaderElectionOptions.DEFAULT_RETRY_PERIOD;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getShards() {
			return this.shards;
		}

		public void setShards(int shards) {
			this.shards = shards;
		}

		public @Nullable String getLeasePrefix() {
			return this.leasePrefix;
		}

		public void setLeasePrefix(@Nullable String leasePrefix) {
			this.leasePrefix = leasePrefix;
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

}
