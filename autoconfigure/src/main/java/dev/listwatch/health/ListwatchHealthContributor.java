package dev.listwatch.health;

import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

import dev.listwatch.WatchStatus;
import dev.listwatch.informer.Informer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code listwatch} health contributor: one indicator per informer, named after its
 * watch ({@code /actuator/health/listwatch/<watch>}), computed from the watch's
 * {@link WatchStatus} and nothing else. The informers are looked up on every call, so
 * that every informer bean is covered however it was declared. A watch that is not making
 * progress is never reported healthy past the grace period, and the reason is in its
 * details: see the rules below.
 * <ul>
 * <li>{@code unhealthy} when its reading thread failed ({@link WatchStatus.State#FAILED},
 * until a resync succeeds), or when it has been failing for longer than the grace
 * period;</li>
 * <li>{@code notSynced} before its initial sync, and when it is not running;</li>
 * <li>{@code notStarted} for a watch with auto-startup false that the application has not
 * started;</li>
 * <li>UP otherwise, also while it fails within the grace period and while its stream is
 * silent (the details say so).</li>
 * </ul>
 * Thread-safe; details never hold secrets nor object values.
 */
public final class ListwatchHealthContributor implements CompositeHealthContributor {

	private final ObjectProvider<Informer<?>> informers;

	private final Duration gracePeriod;

	private final Status unhealthy;

	private final Status notSynced;

	private final Status notStarted;

	/**
	 * Makes the contributor.
	 * @param informers the informers, looked up on every call
	 * @param gracePeriod how long a watch may fail without progress before it is
	 * unhealthy
	 * @param unhealthy the status of an unhealthy watch (Boot's default: DOWN)
	 * @param notSynced the status of a watch not synced or not running (default:
	 * OUT_OF_SERVICE)
	 * @param notStarted the status of a watch with auto-startup false that the
	 * application has not started yet (default: UP, so that it does not hold readiness
	 * back)
	 */
	public ListwatchHealthContributor(ObjectProvider<Informer<?>> informers, Duration gracePeriod, Status unhealthy,
			Status notSynced, Status notStarted) {
		this.informers = informers;
		this.gracePeriod = gracePeriod;
		this.unhealthy = unhealthy;
		this.notSynced = notSynced;
		this.notStarted = notStarted;
	}

	@Override
	public @Nullable HealthContributor getContributor(String name) {
		return informers().filter((informer) -> informer.watch().equals(name))
			.findFirst()
			.map(this::indicator)
			.orElse(null);
	}

	@Override
	public Stream<Entry> stream() {
		return informers().map((informer) -> new Entry(informer.watch(), indicator(informer)));
	}

	private Stream<Informer<?>> informers() {
		return this.informers.stream().sorted(Comparator.comparing(Informer::watch));
	}

	private HealthContributor indicator(Informer<?> informer) {
		return new WatchHealthIndicator(informer::status, this.gracePeriod, this.unhealthy, this.notSynced,
				this.notStarted);
	}

}
