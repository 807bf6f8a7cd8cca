package dev.listwatch.autoconfigure.health;

import java.time.Duration;
import java.util.Locale;

import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.health.ListwatchHealthContributor;
import dev.listwatch.health.ListwatchSyncedHealthIndicator;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Auto-configuration of the {@code listwatch} health contributor (bean
 * {@code listwatchHealthContributor}): one component per watch. Needs
 * {@code spring-boot-health} on the classpath;
 * {@code management.health.listwatch.enabled=false} switches it off. Add it to
 * monitoring, not to readiness. Also the {@code listwatchSynced} indicator (bean
 * {@code listwatchSyncedHealthIndicator}), the one for the readiness group
 * ({@code management.endpoint.health.group.readiness.include=readinessState,listwatchSynced}):
 * UP once every running watch synced, and through an outage that every replica shares;
 * {@code management.health.listwatch-synced.enabled=false} switches it off.
 */
@AutoConfiguration(after = ListwatchAutoConfiguration.class,
		beforeName = "org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration")
@ConditionalOnClass(HealthContributor.class)
@ConditionalOnBean(InformerFactory.class)
public final class ListwatchHealthContributorAutoConfiguration {

	private static final Log logger = LogFactory.getLog(ListwatchHealthContributorAutoConfiguration.class);

	private static final String PREFIX = "management.health.listwatch";

	private static final String DEPRECATED_PREFIX = "listwatch.health";

	// nested, so that the condition class is loaded only once spring-boot-health is known
	// to be there
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnEnabledHealthIndicator("listwatch")
	@EnableConfigurationProperties(ListwatchHealthProperties.class)
	static class ListwatchHealthContributorConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "listwatchHealthContributor")
		CompositeHealthContributor listwatchHealthContributor(ObjectProvider<Informer<?>> informers,
				ListwatchHealthProperties bound, Environment environment) {
			ListwatchHealthProperties properties = withDeprecatedKeys(bound, environment);
			return new ListwatchHealthContributor(informers,
					(properties.getBackoffGracePeriod() != null) ? properties.getBackoffGracePeriod() : Duration.ZERO,
					status(properties.getUnhealthyStatus(), Status.DOWN),
					status(properties.getNotSyncedStatus(), Status.OUT_OF_SERVICE),
					status(properties.getNotStartedStatus(), Status.UP));
		}

	}

	// nested, so that the condition class is loaded only once spring-boot-health is known
	// to be there
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnEnabledHealthIndicator("listwatch-synced")
	@EnableConfigurationProperties(ListwatchHealthProperties.class)
	static class ListwatchSyncedHealthIndicatorConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "listwatchSyncedHealthIndicator")
		ListwatchSyncedHealthIndicator listwatchSyncedHealthIndicator(ObjectProvider<Informer<?>> informers,
				ListwatchHealthProperties bound, Environment environment) {
			return new ListwatchSyncedHealthIndicator(informers,
					status(withDeprecatedKeys(bound, environment).getNotSyncedStatus(), Status.OUT_OF_SERVICE));
		}

	}

	/**
	 * The properties with the deprecated {@code listwatch.health.*} keys of earlier
	 * versions read too, under the new ones: a key set under both takes
	 * {@code management.health.listwatch.*}.
	 */
	static ListwatchHealthProperties withDeprecatedKeys(ListwatchHealthProperties bound, Environment environment) {
		Binder binder = Binder.get(environment);
		if (!binder.bind(DEPRECATED_PREFIX, Bindable.mapOf(String.class, Object.class)).isBound()) {
			return bound;
		}
		ListwatchHealthProperties merged = new ListwatchHealthProperties();
		binder.bind(DEPRECATED_PREFIX, Bindable.ofInstance(merged));
		binder.bind(PREFIX, Bindable.ofInstance(merged));
		logger.warn(DEPRECATED_PREFIX + ".* is deprecated and read for now: set the same keys under " + PREFIX
				+ ".* instead");
		return merged;
	}

	static Status status(String code, Status fallback) {
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
