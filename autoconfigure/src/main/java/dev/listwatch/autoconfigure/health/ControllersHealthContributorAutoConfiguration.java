package dev.listwatch.autoconfigure.health;

import dev.listwatch.autoconfigure.controller.ControllerAutoConfiguration;
import dev.listwatch.controller.Controller;
import dev.listwatch.health.ControllersHealthContributor;
import dev.listwatch.informer.InformerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Auto-configuration of the {@code listwatchControllers} health contributor (bean
 * {@code listwatchControllersHealthContributor}), when controllers are declared under
 * {@code listwatch.controllers}: one component per controller, DOWN when a worker is
 * stuck or a key waits too long for one. Needs {@code spring-boot-health};
 * {@code management.health.listwatch-controllers.enabled=false} switches it off. Add it
 * to monitoring, not to readiness nor liveness.
 */
@AutoConfiguration(after = ControllerAutoConfiguration.class,
		beforeName = "org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration")
@ConditionalOnClass(HealthContributor.class)
@ConditionalOnBean(InformerFactory.class)
public final class ControllersHealthContributorAutoConfiguration {

	// nested, so that the condition class is loaded only once spring-boot-health is known
	// to be there
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnEnabledHealthIndicator("listwatch-controllers")
	@Conditional(ControllersDeclared.class)
	@EnableConfigurationProperties(ControllersHealthProperties.class)
	static class ControllersHealthContributorConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "listwatchControllersHealthContributor")
		CompositeHealthContributor listwatchControllersHealthContributor(ObjectProvider<Controller<?>> controllers,
				ControllersHealthProperties properties) {
			return new ControllersHealthContributor(controllers, properties.getStuckAfter(),
					properties.getMaxQueueWait(),
					ListwatchHealthContributorAutoConfiguration.status(properties.getUnhealthyStatus(), Status.DOWN));
		}

	}

	/** Matches when a controller is declared under {@code listwatch.controllers}. */
	static final class ControllersDeclared extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			boolean declared = Binder.get(context.getEnvironment())
				.bind("listwatch.controllers", Bindable.mapOf(String.class, Object.class))
				.map((controllers) -> !controllers.isEmpty())
				.orElse(false);
			return declared ? ConditionOutcome.match("controllers are declared under listwatch.controllers")
					: ConditionOutcome.noMatch("no controller is declared under listwatch.controllers");
		}

	}

}
