package dev.listwatch.autoconfigure.health;

import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

import dev.listwatch.informer.Informer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.Status;
import org.springframework.util.StringUtils;

/**
 * The {@code listwatch} health contributor: one {@link WatchHealthIndicator} per informer, named
 * after its watch ({@code /actuator/health/listwatch/<watch>}). The informers are looked up on
 * every call, so that every informer bean is covered however it was declared.
 */
final class ListwatchHealthContributor implements CompositeHealthContributor {

	private final ObjectProvider<Informer<?>> informers;

	private final Duration gracePeriod;

	private final Status unhealthy;

	private final Status notSynced;

	ListwatchHealthContributor(ObjectProvider<Informer<?>> informers, ListwatchHealthProperties properties) {
		this.informers = informers;
		this.gracePeriod = (properties.getBackoffGracePeriod() != null) ? properties.getBackoffGracePeriod()
				: Duration.ZERO;
		this.unhealthy = status(properties.getUnhealthyStatus(), Status.DOWN);
		this.notSynced = status(properties.getNotSyncedStatus(), Status.OUT_OF_SERVICE);
	}

	@Override
	public HealthContributor getContributor(String name) {
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
		return new WatchHealthIndicator(informer, this.gracePeriod, this.unhealthy, this.notSynced);
	}

	private static Status status(String code, Status fallback) {
		if (!StringUtils.hasText(code)) {
			return fallback;
		}
		String normalized = code.trim().toUpperCase(Locale.ROOT).replace('-', '_');
		for (Status known : new Status[] { Status.UP, Status.DOWN, Status.OUT_OF_SERVICE, Status.UNKNOWN }) {
			if (known.getCode().equals(normalized)) {
				return known;
			}
		}
		return new Status(normalized);
	}

}
