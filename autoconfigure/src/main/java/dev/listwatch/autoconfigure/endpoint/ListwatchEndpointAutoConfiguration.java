package dev.listwatch.autoconfigure.endpoint;

import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.endpoint.ListwatchEndpoint;
import dev.listwatch.controller.Controller;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@code listwatch} actuator endpoint, when the actuator is
 * there and the endpoint is available (enabled and exposed, as
 * {@code management.endpoints.web.exposure.include} says).
 */
@AutoConfiguration(after = ListwatchAutoConfiguration.class)
@ConditionalOnClass(name = { "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
		"org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint" })
@ConditionalOnBean(InformerFactory.class)
public final class ListwatchEndpointAutoConfiguration {

	// nested, so that the condition class is loaded only once the actuator is known to be
	// there
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnAvailableEndpoint(ListwatchEndpoint.class)
	static class ListwatchEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ListwatchEndpoint listwatchEndpoint(ObjectProvider<Informer<?>> informers,
				ObjectProvider<Controller<?>> controllers) {
			return new ListwatchEndpoint(informers, controllers);
		}

	}

}
