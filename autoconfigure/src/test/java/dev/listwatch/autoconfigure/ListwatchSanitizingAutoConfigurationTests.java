package dev.listwatch.autoconfigure;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.context.properties.ConfigurationPropertiesReportEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.env.EnvironmentEndpointAutoConfiguration;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint.ConfigurationPropertiesBeanDescriptor;
import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.env.EnvironmentEndpoint;
import org.springframework.boot.actuate.env.EnvironmentEndpoint.EnvironmentEntryDescriptor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The actuator never shows listwatch's secrets, even where it shows values.
 */
class ListwatchSanitizingAutoConfigurationTests {

	private static final String TOKEN = "cOnFiGpRoPsToKeN-42";

	private static final String ENV_TOKEN = "eNvVaRiAbLeToKeN-43";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ListwatchSanitizingAutoConfiguration.class,
				ConfigurationPropertiesReportEndpointAutoConfiguration.class,
				EnvironmentEndpointAutoConfiguration.class))
		.withUserConfiguration(Properties.class)
		.withPropertyValues("management.endpoints.web.exposure.include=configprops,env",
				"management.endpoint.configprops.show-values=always", "management.endpoint.env.show-values=always",
				"listwatch.connection.token=" + TOKEN, "listwatch.connection.server=https://10.0.0.1:6443",
				"listwatch.connection.token-file=/var/run/token");

	@Test
	void configpropsHidesTheTokenAndShowsTheRest() {
		this.runner.run((context) -> {
			Map<String, Object> connection = connection(context.getBean(ConfigurationPropertiesReportEndpoint.class));
			assertThat(connection).containsEntry("token", SanitizableData.SANITIZED_VALUE)
				.containsEntry("server", "https://10.0.0.1:6443")
				.containsEntry("tokenFile", "/var/run/token");
			assertThat(connection.toString()).doesNotContain(TOKEN);
		});
	}

	@Test
	void envHidesTheTokenInEverySpelling() {
		this.runner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(new SystemEnvironmentPropertySource("testEnvironment",
						Map.of("LISTWATCH_CONNECTION_TOKEN", ENV_TOKEN, "LISTWATCH_CONNECTION_TOKEN_FILE", "/t"))))
			.run((context) -> {
				EnvironmentEndpoint endpoint = context.getBean(EnvironmentEndpoint.class);
				EnvironmentEntryDescriptor token = endpoint.environmentEntry("listwatch.connection.token");
				assertThat(token.getProperty().getValue()).isEqualTo(SanitizableData.SANITIZED_VALUE);
				String everything = String.valueOf(endpoint.environment(null)
					.getPropertySources()
					.stream()
					.flatMap((source) -> source.getProperties().entrySet().stream())
					.map((entry) -> entry.getKey() + "=" + entry.getValue().getValue())
					.toList());
				assertThat(everything).doesNotContain(TOKEN)
					.doesNotContain(ENV_TOKEN)
					.contains("LISTWATCH_CONNECTION_TOKEN")
					.contains("/var/run/token");
			});
	}

	@Test
	void coversCredentialNamesUnderListwatchOnly() {
		assertThat(ListwatchSanitizingFunction.isSecret("listwatch.connection.token")).isTrue();
		assertThat(ListwatchSanitizingFunction.isSecret("LISTWATCH_CONNECTION_TOKEN")).isTrue();
		assertThat(ListwatchSanitizingFunction.isSecret("listwatch.etcd.password")).isTrue();
		assertThat(ListwatchSanitizingFunction.isSecret("listwatch.etcd.client-key-data")).isTrue();
		assertThat(ListwatchSanitizingFunction.isSecret("listwatch.etcd.clientSecret")).isTrue();
		assertThat(ListwatchSanitizingFunction.isSecret("listwatch.connection.token-file")).isFalse();
		assertThat(ListwatchSanitizingFunction.isSecret("listwatch.connection.tokenFile")).isFalse();
		assertThat(ListwatchSanitizingFunction.isSecret("LISTWATCH_CONNECTION_TOKEN_FILE")).isFalse();
		assertThat(ListwatchSanitizingFunction.isSecret("listwatch.connection.certificate-authority-data")).isFalse();
		assertThat(ListwatchSanitizingFunction.isSecret("listwatch.watches.token.kind")).isFalse();
		assertThat(ListwatchSanitizingFunction.isSecret("other.token")).isFalse();
		assertThat(ListwatchSanitizingFunction.isSecret(null)).isFalse();
	}

	@Test
	void backsOffWithoutTheActuator() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ListwatchSanitizingAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(SanitizingFunction.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("listwatchSanitizingFunction"));
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> connection(ConfigurationPropertiesReportEndpoint endpoint) {
		ConfigurationPropertiesBeanDescriptor listwatch = endpoint.configurationPropertiesWithPrefix("listwatch")
			.getContexts()
			.values()
			.iterator()
			.next()
			.getBeans()
			.values()
			.iterator()
			.next();
		return (Map<String, Object>) listwatch.getProperties().get("connection");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(ListwatchProperties.class)
	static class Properties {

	}

}
