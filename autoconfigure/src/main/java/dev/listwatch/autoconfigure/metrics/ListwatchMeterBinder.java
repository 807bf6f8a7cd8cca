package dev.listwatch.autoconfigure.metrics;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import dev.listwatch.WatchEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.ReflectorStatus;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Binds the meters of every watch, tagged {@code watch} (the watch's name) and, where it fits, the
 * low-cardinality {@code type} (watch event type) or {@code reason} (restart reason); never object
 * names. Counters read the reflector's totals, so nothing counted before binding is lost; timers
 * hear the reflector through {@link ReflectorStatus.Listener}.
 * <ul>
 * <li>{@code listwatch.events} (counter; watch, type): watch events received, bookmarks and
 * errors included;</li>
 * <li>{@code listwatch.restarts} (counter; watch, reason): watches restarted, by reason;</li>
 * <li>{@code listwatch.relists} (counter): relists after the first list (410 Gone);</li>
 * <li>{@code listwatch.listener.failures} (counter): event listeners that threw;</li>
 * <li>{@code listwatch.index.failures} (counter): index functions that failed for an object;</li>
 * <li>{@code listwatch.list.duration} (timer): how long each list took;</li>
 * <li>{@code listwatch.sync.duration} (timer): how long each full sync took, list or streaming
 * list;</li>
 * <li>{@code listwatch.cache.size} (gauge): objects cached;</li>
 * <li>{@code listwatch.dispatch.backlog} (gauge): events waiting for listeners;</li>
 * <li>{@code listwatch.last.event.age} (time gauge, seconds): time since the last event, NaN
 * before the first;</li>
 * <li>{@code listwatch.synced} (gauge): 1 once the initial sync has completed, else 0;</li>
 * <li>{@code listwatch.unbindable} (gauge): objects the server has that the watch cannot hold
 * (they do not bind to its Java type, or are too large).</li>
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

	@Override
	public void bindTo(MeterRegistry registry) {
		this.informers.orderedStream().forEach((informer) -> bind(informer, registry));
	}

	private void bind(Informer<?> informer, MeterRegistry registry) {
		Tags tags = Tags.of("watch", informer.watch());
		ReflectorStatus status = informer.status();
		for (WatchEvent.Type type : WatchEvent.Type.values()) {
			FunctionCounter.builder("listwatch.events", status, (s) -> s.snapshot().events().getOrDefault(type, 0L))
				.description("Watch events received")
				.baseUnit("events")
				.tags(tags)
				.tag("type", type.name())
				.register(registry);
		}
		status.snapshot().restarts().keySet().forEach((reason) -> restarts(registry, tags, status, reason));
		FunctionCounter.builder("listwatch.relists", status, (s) -> s.snapshot().relists())
			.description("Relists after the first list, when the watch's resourceVersion had expired")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("listwatch.listener.failures", informer, Informer::listenerFailures)
			.description("Event listeners that threw")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("listwatch.index.failures", informer, Informer::indexFailures)
			.description("Index functions that failed for an object (cached without values in that index)")
			.tags(tags)
			.register(registry);
		Timer list = Timer.builder("listwatch.list.duration")
			.description("Time taken by a list of the watched resource")
			.tags(tags)
			.register(registry);
		Timer sync = Timer.builder("listwatch.sync.duration")
			.description("Time taken by a full sync (list or streaming list) until the cache was replaced")
			.tags(tags)
			.register(registry);
		Gauge.builder("listwatch.cache.size", informer, Informer::size)
			.description("Objects in the watch's cache")
			.baseUnit("objects")
			.tags(tags)
			.register(registry);
		Gauge.builder("listwatch.dispatch.backlog", informer, Informer::backlog)
			.description("Events waiting to be delivered to listeners")
			.baseUnit("events")
			.tags(tags)
			.register(registry);
		TimeGauge.builder("listwatch.last.event.age", status, TimeUnit.MILLISECONDS, this::lastEventAge)
			.description("Time since the watch's last event, bookmarks included")
			.tags(tags)
			.register(registry);
		Gauge.builder("listwatch.unbindable", informer, Informer::unbindableCount)
			.description("Objects the server has that the watch cannot hold (not bindable to its type, or too large)")
			.baseUnit("objects")
			.tags(tags)
			.register(registry);
		Gauge.builder("listwatch.synced", status, (s) -> s.hasSynced() ? 1 : 0)
			.description("Whether the watch has completed its initial sync (1) or not (0)")
			.tags(tags)
			.register(registry);
		status.addListener(new ReflectorStatus.Listener() {

			@Override
			public void listed(Duration took, int objects) {
				list.record(took);
			}

			@Override
			public void synced(Duration took) {
				sync.record(took);
			}

			@Override
			public void restarted(String reason) {
				restarts(registry, tags, status, reason);
			}

		});
	}

	private static void restarts(MeterRegistry registry, Tags tags, ReflectorStatus status, String reason) {
		// registering again returns the meter already registered
		FunctionCounter.builder("listwatch.restarts", status, (s) -> s.snapshot().restarts().getOrDefault(reason, 0L))
			.description("Watches restarted, by reason")
			.tags(tags)
			.tag("reason", reason)
			.register(registry);
	}

	private double lastEventAge(ReflectorStatus status) {
		Instant last = status.snapshot().lastEventTime();
		if (last == null) {
			return Double.NaN;
		}
		return Math.max(0, Duration.between(last, this.clock.instant()).toMillis());
	}

}
