package dev.listwatch.autoconfigure;

import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link SanitizingFunction} that keeps listwatch's secrets
 * ({@code listwatch.connection.token} and the like) out of the actuator's
 * {@code configprops} and {@code env} endpoints, when the actuator is there. It applies
 * whether or not listwatch itself is enabled: a token in the configuration is a secret
 * either way.
 */
@AutoConfiguration
@ConditionalOnClass(SanitizingFunction.class)
public final class ListwatchSanitizingAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "listwatchSanitizingFunction")
	SanitizingFunction listwatchSanitizingFunction() {
		return new ListwatchSanitizingFunction();
	}

}
