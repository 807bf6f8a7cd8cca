package dev.listwatch.autoconfigure.health;

import dev.listwatch.autoconfigure.LeaderElectionAutoConfiguration;
import dev.listwatch.health.LeaderElectionHealthIndicator;
import dev.listwatch.leader.LeaderElector;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@code leaderElection} health indicator (bean
 * {@code leaderElectionHealthIndicator}) when leader election runs: the role, the
 * identity and the Lease's holder. Needs {@code spring-boot-health};
 * {@code management.health.leaderelection.enabled=false} switches it off. It is UP for
 * followers too, so adding it to readiness holds back no replica.
 */
@AutoConfiguration(after = LeaderElectionAutoConfiguration.class,
		beforeName = "org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration")
@ConditionalOnClass(HealthContributor.class)
@ConditionalOnBean(LeaderElector.class)
public final class LeaderElectionHealthContributorAutoConfiguration {

	// nested, so that the condition class is loaded only once spring-boot-health is known
	// to be there
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnEnabledHealthIndicator("leaderelection")
	static class LeaderElectionHealthIndicatorConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "leaderElectionHealthIndicator")
		LeaderElectionHealthIndicator leaderElectionHealthIndicator(LeaderElector elector) {
			return new LeaderElectionHealthIndicator(elector::status);
		}

	}

}
