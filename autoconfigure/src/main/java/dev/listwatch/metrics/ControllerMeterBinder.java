package dev.listwatch.metrics;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.listwatch.controller.Controller;
import dev.listwatch.controller.ControllerStatus;
import dev.listwatch.leader.ShardMembership;
import dev.listwatch.leader.ShardStatus;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Binds the meters of every controller, tagged {@code controller} (its name) and
 * {@code watch}; never keys. client-go's workqueue metrics, read from each controller's
 * {@link ControllerStatus} (totals, so nothing counted before binding is lost):
 * <ul>
 * <li>{@code listwatch.controller.depth} (gauge): keys ready for a worker;</li>
 * <li>{@code listwatch.controller.waiting} (gauge): keys waiting out a backoff or a
 * requeue delay;</li>
 * <li>{@code listwatch.controller.adds} (counter): keys queued;</li>
 * <li>{@code listwatch.controller.retries} (counter): keys queued again after a failure
 * or a requeue;</li>
 * <li>{@code listwatch.controller.reconciles} (counter): reconciles done, failed ones
 * included; {@code listwatch.controller.failures} (counter): those that threw, of which
 * {@code listwatch.controller.conflicts} (counter) because an object had changed
 * (409);</li>
 * <li>{@code listwatch.controller.queue.duration} (function timer): how long keys waited
 * ready for a worker;</li>
 * <li>{@code listwatch.controller.work.duration} (function timer): how long reconciles
 * took;</li>
 * <li>{@code listwatch.controller.unfinished.work} (time gauge): how long the reconciles
 * under way have run, in all; {@code listwatch.controller.longest.running} (time gauge):
 * the longest of them, which grows when a worker is stuck;</li>
 * <li>{@code listwatch.controller.failing} (gauge): keys whose last reconcile
 * failed.</li>
 * </ul>
 * A sharded controller also has {@code listwatch.controller.shards.owned} (gauge),
 * {@code listwatch.controller.shards.members} (gauge),
 * {@code listwatch.controller.shards.handovers} (counter),
 * {@code listwatch.controller.shards.fences} (counter: self-fences) and
 * {@code listwatch.controller.shard.queued} (gauge, tagged {@code shard}: keys queued
 * here by shard). The reconciles are also observed ({@code listwatch.reconcile}), which
 * makes a timer per outcome where Boot's observation handlers are set up.
 */
public final class ControllerMeterBinder implements MeterBinder {

	private final ObjectProvider<Controller<?>> controllers;

	/**
	 * Makes a binder for the controllers.
	 * @param controllers the controllers, looked up on binding
	 */
	public ControllerMeterBinder(ObjectProvider<Controller<?>> controllers) {
		this.controllers = controllers;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.controllers.orderedStream().forEach((controller) -> bind(controller, registry));
	}

	private static void bind(Controller<?> controller, MeterRegistry registry) {
		Tags tags = Tags.of("controller", controller.name(), "watch", controller.informer().watch());
		Gauge.builder("listwatch.controller.depth", controller, (c) -> c.status().ready())
			.description("Keys ready for a worker")
			.baseUnit("keys")
			.tags(tags)
			.register(registry);
		Gauge.builder("listwatch.controller.waiting", controller, (c) -> c.status().waiting())
			.description("Keys waiting out a backoff or a requeue delay")
			.baseUnit("keys")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("listwatch.controller.adds", controller, (c) -> c.status().adds())
			.description("Keys queued")
			.baseUnit("keys")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("listwatch.controller.retries", controller, (c) -> c.status().retries())
			.description("Keys queued again after a failure or a requeue")
			.baseUnit("keys")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("listwatch.controller.reconciles", controller, (c) -> c.status().reconciles())
			.description("Reconciles done, failed ones included")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("listwatch.controller.failures", controller, (c) -> c.status().failures())
			.description("Reconciles that threw")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("listwatch.controller.conflicts", controller, (c) -> c.status().conflicts())
			.description("Reconciles that failed because an object had changed meanwhile (409 Conflict)")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("listwatch.controller.errors", controller, (c) -> c.status().errors())
			.description("Reconciles and resyncs that threw an Error (a StackOverflowError, an OutOfMemoryError)")
			.tags(tags)
			.register(registry);
		FunctionTimer
			.builder("listwatch.controller.queue.duration", controller, (c) -> c.status().reconciles(),
					(c) -> c.status().queueWait().toNanos(), TimeUnit.NANOSECONDS)
			.description("Time keys waited ready for a worker")
			.tags(tags)
			.register(registry);
		FunctionTimer
			.builder("listwatch.controller.work.duration", controller, (c) -> c.status().reconciles(),
					(c) -> c.status().work().toNanos(), TimeUnit.NANOSECONDS)
			.description("Time reconciles took")
			.tags(tags)
			.register(registry);
		TimeGauge
			.builder("listwatch.controller.unfinished.work", controller, TimeUnit.NANOSECONDS,
					(c) -> c.status().unfinishedWork().toNanos())
			.description("Time the reconciles under way have run, in all")
			.tags(tags)
			.register(registry);
		TimeGauge
			.builder("listwatch.controller.longest.running", controller, TimeUnit.NANOSECONDS,
					(c) -> c.status().longestRunning().toNanos())
			.description("Time the longest-running reconcile under way has run")
			.tags(tags)
			.register(registry);
		Gauge.builder("listwatch.controller.failing", controller, (c) -> c.status().failing().size())
			.description("Keys whose last reconcile failed")
			.baseUnit("keys")
			.tags(tags)
			.register(registry);
		controller.shardMembership().ifPresent((membership) -> bindShards(controller, membership, tags, registry));
	}

	private static void bindShards(Controller<?> controller, ShardMembership membership, Tags tags,
			MeterRegistry registry) {
		Gauge.builder("listwatch.controller.shards.owned", membership, (m) -> m.status().running().size())
			.description("Shards of the controller's keys this replica runs")
			.baseUnit("shards")
			.tags(tags)
			.register(registry);
		Gauge.builder("listwatch.controller.shards.members", membership, (m) -> m.status().members().size())
			.description("Live replicas in the controller's shard group, as this replica sees them")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("listwatch.controller.shards.handovers", membership, (m) -> m.status().handOvers())
			.description("Shards started after another replica had them, plus shards handed to another")
			.baseUnit("shards")
			.tags(tags)
			.register(registry);
		TimeGauge
			.builder("listwatch.controller.shards.standing.down", membership, TimeUnit.SECONDS,
					(m) -> standingDownSeconds(m.status()))
			.description("How long the replicas of the shard group have disagreed on the number of shards, "
					+ "reconciling nothing (0 while they agree)")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("listwatch.controller.shards.fences", membership, (m) -> m.status().fences())
			.description("Times this replica stopped all its shards, unable to renew its Lease in time")
			.tags(tags)
			.register(registry);
		for (int shard = 0; shard < membership.options().shards(); shard++) {
			int which = shard;
			Gauge
				.builder("listwatch.controller.shard.queued", controller,
						(c) -> c.status().queuedByShard().getOrDefault(which, 0))
				.description("Keys queued on this replica, by shard (0 for shards it does not run)")
				.baseUnit("keys")
				.tags(tags.and("shard", Integer.toString(shard)))
				.register(registry);
		}
	}

	private static double standingDownSeconds(ShardStatus status) {
		Duration standingDown = status.standingDown();
		return (standingDown != null) ? standingDown.toNanos() / 1e9 : 0;
	}

}
