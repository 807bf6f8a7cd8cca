package dev.listwatch.autoconfigure.health;

import java.time.Duration;
import java.util.Locale;

import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.health.ListwatchHealthContributor;
import dev.listwatch.health.ListwatchSyncedHealthIndicator;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StringUtils;

/**
 * Auto-configuration of the {@code listwatch} health contributor (bean
 * {@code listwatchHealthContributor}): one component per watch. Needs {@code spring-boot-health}
 * on the classpath; {@code management.health.listwatch.enabled=false} switches it off. Add it to monitoring, not to readiness.
 * Also the {@code listwatchSynced} indicator (bean {@code listwatchSyncedHealthIndicator}), the one
 * for the readiness group ({@code management.endpoint.health.group.readiness.include=readinessState,listwatchSynced}):
 * UP once every running watch synced, and through an outage that every replica shares;
 * {@code management.health.listwatch-synced.enabled=false} switches it off.
 */
@AutoConfiguration(after = ListwatchAutoConfiguration.class,
		beforeName = "org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration")
@ConditionalOnClass(HealthContributor.class)
@ConditionalOnBean(InformerFactory.class)
public final class ListwatchHealthContributorAutoConfiguration {

	// nested, so that the condition class is loaded only once spring-boot-health is known to be there
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnEnabledHealthIndicator("listwatch")
	@EnableConfigurationProperties(ListwatchHealthProperties.class)
	static class ListwatchHealthContributorConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "listwatchHealthContributor")
		CompositeHealthContributor listwatchHealthContributor(ObjectProvider<Informer<?>> informers,
				ListwatchHealthProperties properties) {
			return new ListwatchHealthContributor(informers,
					(properties.getBackoffGracePeriod() != null) ? properties.getBackoffGracePeriod() : Duration.ZERO,
					status(properties.getUnhealthyStatus(), Status.DOWN),
					status(properties.getNotSyncedStatus(), Status.OUT_OF_SERVICE),
					status(properties.getNotStartedStatus(), Status.UP));
		}

	}

	// nested, so that the condition class is loaded only once spring-boot-health is known to be there
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnEnabledHealthIndicator("listwatch-synced")
	@EnableConfigurationProperties(ListwatchHealthProperties.class)
	static class ListwatchSyncedHealthIndicatorConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "listwatchSyncedHealthIndicator")
		ListwatchSyncedHealthIndicator listwatchSyncedHealthIndicator(ObjectProvider<Informer<?>> informers,
				ListwatchHealthProperties properties) {
			return new ListwatchSyncedHealthIndicator(informers,
					status(properties.getNotSyncedStatus(), Status.OUT_OF_SERVICE));
		}

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
