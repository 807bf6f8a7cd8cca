package dev.listwatch.autoconfigure.controller;

import dev.listwatch.autoconfigure.LeaderElectionAutoConfiguration;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.leader.LeaderElector;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the controllers declared under
 * {@code listwatch.controllers.<name>}: a {@code <name>Controller} bean each (a
 * {@link dev.listwatch.controller.Controller}, started after the informers and stopped
 * before them, within its shutdown timeout, by Boot's graceful shutdown), running the
 * application's {@link dev.listwatch.controller.Reconciler} bean on the keys of a
 * declared watch; the leader-only ones run while this replica is the elected leader.
 */
@AutoConfiguration(after = { ListwatchAutoConfiguration.class, LeaderElectionAutoConfiguration.class })
@ConditionalOnBean(InformerFactory.class)
@EnableConfigurationProperties(ControllerProperties.class)
public final class ControllerAutoConfiguration {

	@Bean
	static ControllerBeanRegistrar listwatchControllerBeanRegistrar(Environment environment) {
		return new ControllerBeanRegistrar(environment);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(LeaderElector.class)
	static class LeaderOnlyControllersConfiguration {

		@Bean
		LeaderOnlyControllers listwatchLeaderOnlyControllers(LeaderElector elector, Environment environment,
				ListableBeanFactory beanFactory) {
			return new LeaderOnlyControllers(elector, LeaderOnlyControllers.declared(environment), beanFactory);
		}

	}

}
