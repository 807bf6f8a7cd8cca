package dev.listwatch.autoconfigure.health;

import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerRuntime;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@code listwatch} health contributor (bean
 * {@code listwatchHealthContributor}): one component per watch. Needs {@code spring-boot-health}
 * on the classpath; {@code management.health.listwatch.enabled=false} switches it off. Add it to
 * readiness with {@code management.endpoint.health.group.readiness.include=readinessState,listwatch}.
 */
@AutoConfiguration(after = ListwatchAutoConfiguration.class,
		beforeName = "org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration")
@ConditionalOnClass(HealthContributor.class)
@ConditionalOnBean(InformerRuntime.class)
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
			return new ListwatchHealthContributor(informers, properties);
		}

	}

}
