package dev.listwatch.health;

import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.listwatch.controller.Controller;
import dev.listwatch.controller.ControllerStatus;
import dev.listwatch.leader.ShardStatus;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code listwatchControllers} health contributor: one indicator per controller,
 * named after it ({@code /actuator/health/listwatchControllers/<controller>}), computed
 * from its {@link ControllerStatus} and nothing else. DOWN (or the status set) when a
 * reconcile has run longer than {@code stuck-after} (a worker is stuck: on a call without
 * a timeout, a lock) or when a key has waited ready for a worker longer than
 * {@code max-queue-wait} (the workers cannot keep up, or are all stuck); DOWN too while
 * the last reconcile of a key threw an {@link Error} (a {@link StackOverflowError} on a
 * cyclic object, an {@link OutOfMemoryError} the JVM survived: retried after the key's
 * backoff, and UP again once it succeeds), while the last resync failed, and when a
 * worker has ended (which a failure in a reconcile never does); UP otherwise, keys whose
 * reconciles keep throwing exceptions included: they are retried after their backoff, and
 * the details count them (the {@code listwatch} endpoint lists them). A controller that
 * is not running (a leader-only one on a follower, one stopped) is UP with
 * {@code running:
 * false}. A sharded controller's details show its shards here (running, members seen,
 * hand-overs, self-fences, and the last error of its Lease renewals while they fail):
 * owning no shard is no fault (more replicas than shards, or a replica cut off from the
 * API server, whose watches' health tells). Details hold counts and durations, never
 * object values.
 */
public final class ControllersHealthContributor implements CompositeHealthContributor {

	private final ObjectProvider<Controller<?>> controllers;

	private final Duration stuckAfter;

	private final Duration maxQueueWait;

	private final Status unhealthy;

	/**
	 * Makes the contributor.
	 * @param controllers the controllers, looked up on every call
	 * @param stuckAfter how long a reconcile may run before its controller is unhealthy
	 * @param maxQueueWait how long a key may wait ready for a worker before its
	 * controller is unhealthy
	 * @param unhealthy the status of an unhealthy controller (Boot's default: DOWN)
	 */
	public ControllersHealthContributor(ObjectProvider<Controller<?>> controllers, Duration stuckAfter,
			Duration maxQueueWait, Status unhealthy) {
		this.controllers = controllers;
		this.stuckAfter = stuckAfter;
		this.maxQueueWait = maxQueueWait;
		this.unhealthy = unhealthy;
	}

	@Override
	public @Nullable HealthContributor getContributor(String name) {
		return controllers().filter((controller) -> controller.name().equals(name))
			.findFirst()
			.map(this::indicator)
			.orElse(null);
	}

	@Override
	public Stream<Entry> stream() {
		return controllers().map((controller) -> new Entry(controller.name(), indicator(controller)));
	}

	private Stream<Controller<?>> controllers() {
		return this.controllers.stream().sorted(Comparator.comparing(Controller::name));
	}

	private HealthIndicator indicator(Controller<?> controller) {
		return () -> health(controller.status());
	}

	Health health(ControllerStatus status) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("watch", status.watch());
		details.put("running", status.running());
		details.put("workers", status.workers());
		details.put("liveWorkers", status.liveWorkers());
		details.put("ready", status.ready());
		details.put("waiting", status.waiting());
		details.put("processing", status.processing());
		details.put("reconciles", status.reconciles());
		details.put("failures", status.failures());
		details.put("failingKeys", status.failing().size());
		details.put("errors", status.errors());
		List<ControllerStatus.Failure> errors = status.failing()
			.values()
			.stream()
			.filter(ControllerStatus.Failure::error)
			.toList();
		ControllerStatus.Failure resync = status.resyncFailure();
		Status state = Status.UP;
		if (status.running() && status.liveWorkers() < status.workers()) {
			state = this.unhealthy;
			details.put("reason", (status.workers() - status.liveWorkers()) + " of " + status.workers()
					+ " workers have ended on a failure (see the log)");
		}
		else if (status.longestRunning().compareTo(this.stuckAfter) > 0) {
			state = this.unhealthy;
			details.put("reason", "a reconcile has run for " + seconds(status.longestRunning())
					+ ", longer than stuck-after (" + seconds(this.stuckAfter) + ")");
		}
		else if (!errors.isEmpty()) {
			state = this.unhealthy;
			details.put("reason",
					"the last reconcile of " + errors.size() + ((errors.size() == 1) ? " key" : " keys")
							+ " threw an Error ("
							+ errors.stream()
								.map(ControllerStatus.Failure::exception)
								.distinct()
								.sorted()
								.collect(Collectors.joining(", "))
							+ "); retried after the backoff");
		}
		else if (resync != null) {
			state = this.unhealthy;
			details.put("reason", "the last resync failed (" + resync.exception() + ", " + resync.inARow()
					+ " in a row); retried each resync period");
		}
		else if (status.running() && status.shards() != null && status.shards().ended()) {
			state = this.unhealthy;
			details.put("reason", "the shard membership's thread has ended on a failure (see the log): this "
					+ "replica runs no shard until the controller is started again");
		}
		else if (status.running() && status.shards() != null && status.shards().impostor()) {
			state = this.unhealthy;
			details.put("reason", "another process writes this replica's shard Lease under the same identity: "
					+ "this replica stands down; give each replica its own sharding.identity");
		}
		else if (status.running() && status.shards() != null && status.shards().standingDown() != null
				&& status.shards().standingDown().compareTo(this.maxQueueWait) > 0) {
			state = this.unhealthy;
			details.put("reason",
					"the members of the shard group have disagreed on the number of shards for "
							+ seconds(status.shards().standingDown())
							+ ", longer than max-queue-wait: no replica reconciles meanwhile");
		}
		else if (status.oldestReady().compareTo(this.maxQueueWait) > 0) {
			state = this.unhealthy;
			details.put("reason", "a key has waited " + seconds(status.oldestReady())
					+ " for a worker, longer than max-queue-wait (" + seconds(this.maxQueueWait) + ")");
		}
		details.put("longestRunning", seconds(status.longestRunning()));
		details.put("oldestReady", seconds(status.oldestReady()));
		ShardStatus shards = status.shards();
		if (shards != null) {
			Map<String, Object> sharding = new LinkedHashMap<>();
			sharding.put("identity", shards.identity());
			sharding.put("running", shards.running());
			sharding.put("members", shards.members().size());
			sharding.put("handOvers", shards.handOvers());
			sharding.put("fences", shards.fences());
			if (shards.standingDown() != null) {
				sharding.put("standingDown", seconds(shards.standingDown()));
			}
			if (shards.lastError() != null) {
				sharding.put("failingSince", String.valueOf(shards.failingSince()));
				sharding.put("lastError", shards.lastError());
			}
			details.put("shards", sharding);
		}
		return Health.status(state).withDetails(details).build();
	}

	private static String seconds(Duration duration) {
		return (duration.toMillis() / 1000.0) + " s";
	}

}
