package dev.listwatch.autoconfigure.controller;

import java.util.Map;

import org.springframework.aot.AotDetector;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Registers the bean {@code <name>Controller} of each controller declared under
 * {@code listwatch.controllers.<name>}, after the watches' beans. Declarations that
 * cannot work fail here, before any bean is made, with a
 * {@link ControllerDeclarationException}: options out of range, or a leader-only
 * controller without leader election. In a run of the code generated ahead of time it
 * checks the declarations, and registers nothing.
 */
final class ControllerBeanRegistrar implements BeanDefinitionRegistryPostProcessor, Ordered {

	private final Environment environment;

	ControllerBeanRegistrar(Environment environment) {
		this.environment = environment;
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
		Map<String, ControllerProperties.Declaration> declared = ControllerBeans.declared(this.environment);
		boolean electing = Binder.get(this.environment)
			.bind("listwatch.leader-election.enabled", Boolean.class)
			.orElse(false);
		declared.forEach((name, declaration) -> {
			boolean leaderOnly = ControllerBeans.leaderOnly(name, declaration, this.environment);
			ControllerBeans.options(name, declaration, leaderOnly);
			// checked now with stand-ins for what only the connection knows
			ControllerBeans.sharding(name, declaration, leaderOnly, this.environment, () -> "default", () -> "replica");
			if (leaderOnly && !electing) {
				throw new ControllerDeclarationException(name, declaration.isLeaderOnly() ? "leader-only" : null,
						declaration.isLeaderOnly() ? "is true, but leader election is not enabled"
								: "runs on watch '" + ControllerBeans.watch(name, declaration)
										+ "', which is leader-only, but leader election is not enabled",
						"Set listwatch.leader-election.enabled=true (the replicas then elect a leader on a Lease, see "
								+ "listwatch.leader-election.*), or run the controller on every replica.");
			}
			if (!AotDetector.useGeneratedArtifacts()) {
				registry.registerBeanDefinition(name + ControllerBeans.CONTROLLER, ControllerBeans.definition(name));
			}
		});
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
	}

}
