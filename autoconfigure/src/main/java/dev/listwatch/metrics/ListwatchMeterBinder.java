package dev.listwatch.metrics;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.informer.Informer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Binds the meters of every watch, tagged {@code watch} (the watch's name) and, where it
 * fits, the low-cardinality {@code type} (watch event type) or {@code reason} (restart
 * reason); never object names. Every meter reads the watch's {@link WatchStatus} and
 * nothing else: counters and timers read its totals, so nothing counted before binding is
 * lost.
 * <ul>
 * <li>{@code listwatch.events} (counter; watch, type): watch events received, bookmarks
 * and errors included;</li>
 * <li>{@code listwatch.restarts} (counter; watch, reason): watches restarted, by
 * {@link RestartReason#tag() reason}, one counter per reason;</li>
 * <li>{@code listwatch.relists} (counter): relists after the first list (410 Gone);</li>
 * <li>{@code listwatch.listener.failures} (counter): event listeners that threw;</li>
 * <li>{@code listwatch.index.failures} (counter): index functions that failed for an
 * object;</li>
 * <li>{@code listwatch.list.duration} (function timer): how long each list took;</li>
 * <li>{@code listwatch.sync.duration} (function timer): how long each full sync took,
 * list or streaming list;</li>
 * <li>{@code listwatch.cache.size} (gauge): objects cached;</li>
 * <li>{@code listwatch.dispatch.backlog} (gauge): events waiting for listeners;</li>
 * <li>{@code listwatch.last.event.age} (time gauge, seconds): time since the last event,
 * NaN before the first;</li>
 * <li>{@code listwatch.staleness} (time gauge, seconds): how long the watch has been
 * failing without progress, so how long its cache may have missed changes; 0 while it
 * makes progress (a replica that serves from its cache through an API server outage shows
 * here how stale it is);</li>
 * <li>{@code listwatch.synced} (gauge): 1 once the initial sync has completed, else
 * 0;</li>
 * <li>{@code listwatch.unbindable} (gauge): objects the server has that the watch cannot
 * hold (they do not bind to its Java type, or are too large).</li>
 * </ul>
 */
public final class ListwatchMeterBinder implements MeterBinder {

	private final ObjectProvider<Informer<?>> informers;

	private final Clock clock;

	/**
	 * Makes a binder for the informers.
	 * @param informers the informers, looked up on binding
	 * @param clock the clock the informers run on
	 */
	public ListwatchMeterBinder(ObjectProvider<Informer<?>> informers, Clock clock) {
		this.informers = informers;
		this.clock = clock;
	}

	/** The registries bound to, for informers made later. */
	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registries.add(registry);
		this.informers.orderedStream().forEach((informer) -> bind(informer, registry));
	}

	/**
	 * Binds the meters of an informer made after this binder was bound (one declared in
	 * code), to every registry it was bound to.
	 * @param informer the informer
	 */
	public void bind(Informer<?> informer) {
		for (MeterRegistry registry : this.registries) {
			bind(informer, registry);
		}
	}

	private void bind(Informer<?> informer, MeterRegistry registry) {
		Tags tags = Tags.of("watch", informer.watch());
		// meters hold their state object weakly: it is the informer, which the context
		// holds; each reads the informer's status only
		for (WatchEvent.Type type : WatchEvent.Type.values()) {
			FunctionCounter.builder("listwatch.events", informer, (s) -> s.status().events(type))
				.description("Watch events received")
				.baseUnit("events")
				.tags(tags)
				.tag("type", type.name())
				.register(registry);
		}
		for (RestartReason reason : RestartReason.values()) {
			FunctionCounter.builder("listwatch.restarts", informer, (s) -> s.status().restarts(reason))
				.description("Watches restarted, by reason")
				.tags(tags)
				.tag("reason", reason.tag())
				.register(registry);
		}
		FunctionCounter.builder("listwatch.relists", informer, (s) -> s.status().relists())
			.description("Relists after the first list, when the watch's resourceVersion had expired")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("listwatch.listener.failures", informer, (s) -> s.status().listenerFailures())
			.description("Event listeners that threw")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("listwatch.index.failures", informer, (s) -> s.status().indexFailures())
			.description("Index functions that failed for an object (cached without values in that index)")
			.tags(tags)
			.register(registry);
		FunctionTimer
			.builder("listwatch.list.duration", informer, (s) -> s.status().lists().count(),
					(s) -> s.status().lists().total().toNanos(), TimeUnit.NANOSECONDS)
			.description("Time taken by a list of the watched resource")
			.tags(tags)
			.register(registry);
		FunctionTimer
			.builder("listwatch.sync.duration", informer, (s) -> s.status().syncs().count(),
					(s) -> s.status().syncs().total().toNanos(), TimeUnit.NANOSECONDS)
			.description("Time taken by a full sync (list or streaming list) until the cache was replaced")
			.tags(tags)
			.register(registry);
		Gauge.builder("listwatch.cache.size", informer, (s) -> s.status().objects())
			.description("Objects in the watch's cache")
			.baseUnit("objects")
			.tags(tags)
			.register(registry);
		Gauge.builder("listwatch.dispatch.backlog", informer, (s) -> s.status().backlog())
			.description("Events waiting to be delivered to listeners")
			.baseUnit("events")
			.tags(tags)
			.register(registry);
		TimeGauge.builder("listwatch.last.event.age", informer, TimeUnit.MILLISECONDS, this::lastEventAge)
			.description("Time since the watch's last event, bookmarks included")
			.tags(tags)
			.register(registry);
		TimeGauge.builder("listwatch.staleness", informer, TimeUnit.MILLISECONDS, ListwatchMeterBinder::staleness)
			.description("How long the watch has been failing without progress (0 while it makes progress): "
					+ "its cache may have missed changes for that long")
			.tags(tags)
			.register(registry);
		Gauge.builder("listwatch.unbindable", informer, (s) -> s.status().unbindable().size())
			.description("Objects the server has that the watch cannot hold (not bindable to its type, or too large)")
			.baseUnit("objects")
			.tags(tags)
			.register(registry);
		Gauge.builder("listwatch.synced", informer, (s) -> s.status().synced() ? 1 : 0)
			.description("Whether the watch has completed its initial sync (1) or not (0)")
			.tags(tags)
			.register(registry);
	}

	private static double staleness(Informer<?> informer) {
		Duration failingFor = informer.status().failingFor();
		return (failingFor != null) ? failingFor.toMillis() : 0;
	}

	private double lastEventAge(Informer<?> informer) {
		Instant last = informer.status().lastEventTime();
		if (last == null) {
			return Double.NaN;
		}
		return Math.max(0, Duration.between(last, this.clock.instant()).toMillis());
	}

}
