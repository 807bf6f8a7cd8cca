package dev.listwatch.autoconfigure;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;

import dev.listwatch.ListerWatcher;
import dev.listwatch.etcd.EtcdClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Declarations of etcd watches ({@code source: etcd}) and the {@code listwatch.etcd.*}
 * settings, against no etcd and no API server: what starts, and what fails startup naming
 * the property and the fix.
 */
class EtcdDeclarationTests {

	static String closedEndpoint;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, ListwatchAutoConfiguration.class,
				EtcdAutoConfiguration.class))
		.withPropertyValues("listwatch.kubeconfig=/nonexistent/kubeconfig");

	@BeforeAll
	static void closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			closedEndpoint = "http://127.0.0.1:" + socket.getLocalPort();
		}
	}

	@Test
	void anEtcdOnlyApplicationStartsWithoutAKubeconfig() {
		this.runner
			.withPropertyValues("listwatch.etcd.endpoints[0]=" + closedEndpoint, "listwatch.watches.flags.source=etcd",
					"listwatch.watches.flags.key-prefix=/flags")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(EtcdClient.class);
				assertThat(context.getBean("flagsListerWatcher", ListerWatcher.class).resource().plural())
					.isEqualTo("/flags/");
				assertThat(context.getBeanFactory().containsSingleton("listwatchApiServerClient")).isFalse();
				assertThat(context.getBeanFactory().containsSingleton("listwatchCluster")).isFalse();
			});
	}

	@Test
	void withAKubernetesWatchBesideItTheKubeconfigIsLoadedAsBefore() {
		this.runner
			.withPropertyValues("listwatch.etcd.endpoints=" + closedEndpoint, "listwatch.watches.flags.source=etcd",
					"listwatch.watches.flags.key-prefix=/flags", "listwatch.watches.cms.api-version=v1",
					"listwatch.watches.cms.kind=ConfigMap")
			.run((context) -> assertThat(context).hasFailed());
	}

	@Test
	void withoutEndpointsThereIsNoEtcdClient() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, EtcdAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(EtcdClient.class));
	}

	@Test
	void anEtcdWatchWithoutAKeyPrefixFails() {
		assertDeclarationFailure(
				List.of("listwatch.etcd.endpoints=" + closedEndpoint, "listwatch.watches.flags.source=etcd"),
				"key-prefix", "listwatch.watches.flags.key-prefix is not set, and the watch's source is etcd",
				"Set listwatch.watches.flags.key-prefix to the etcd key prefix");
	}

	@Test
	void anEtcdWatchWithoutEndpointsFails() {
		assertDeclarationFailure(
				List.of("listwatch.watches.flags.source=etcd", "listwatch.watches.flags.key-prefix=/f/"), "source",
				"listwatch.watches.flags.source is etcd, but listwatch.etcd.endpoints is not set",
				"Set listwatch.etcd.endpoints to etcd's client URLs");
	}

	@Test
	void aKubernetesPropertyOnAnEtcdWatchFails() {
		assertDeclarationFailure(
				List.of("listwatch.etcd.endpoints=" + closedEndpoint, "listwatch.watches.flags.source=etcd",
						"listwatch.watches.flags.key-prefix=/f/", "listwatch.watches.flags.label-selector=app=web"),
				"label-selector", "label-selector is set, but means nothing to an etcd watch", "Remove it");
	}

	@Test
	void aKeyPrefixOnAKubernetesWatchFails() {
		assertDeclarationFailure(
				List.of("listwatch.watches.cms.api-version=v1", "listwatch.watches.cms.kind=ConfigMap",
						"listwatch.watches.cms.key-prefix=/f/"),
				"key-prefix", "key-prefix is set, but the watch's source is kubernetes", "source=etcd");
	}

	@Test
	void anUnknownSourceFails() {
		assertDeclarationFailure(List.of("listwatch.watches.cms.source=etcd3", "listwatch.watches.cms.key-prefix=/f/"),
				"source", "is 'etcd3', which is not a source", "Write 'kubernetes'");
	}

	@Test
	void aClientCertificateWithoutItsKeyFailsNamingTheProperty() {
		this.runner
			.withPropertyValues("listwatch.etcd.endpoints=" + closedEndpoint,
					"listwatch.etcd.client-certificate=/nonexistent/client.crt", "listwatch.watches.flags.source=etcd",
					"listwatch.watches.flags.key-prefix=/flags")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new EtcdConfigurationException.Analyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("listwatch.etcd.client-key is not set");
				assertThat(analysis.getAction())
					.contains("set both listwatch.etcd.client-certificate and " + "listwatch.etcd.client-key");
			});
	}

	@Test
	void aPasswordWithoutAUserFails() {
		this.runner
			.withPropertyValues("listwatch.etcd.endpoints=" + closedEndpoint, "listwatch.etcd.password=pw-never-shown")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new EtcdConfigurationException.Analyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription())
					.contains("listwatch.etcd.password is set, but listwatch.etcd.username is not")
					.doesNotContain("pw-never-shown");
			});
	}

	@Test
	void theEtcdPasswordAndClientKeyAreHiddenByTheActuator() {
		assertThat(ListwatchSanitizingFunction.isSecret("listwatch.etcd.password")).isTrue();
		// it may hold the PEM text of the key itself
		assertThat(ListwatchSanitizingFunction.isSecret("listwatch.etcd.client-key")).isTrue();
		assertThat(ListwatchSanitizingFunction.isSecret("LISTWATCH_ETCD_CLIENTKEY")).isTrue();
		assertThat(ListwatchSanitizingFunction.isSecret("listwatch.etcd.client-certificate")).isFalse();
		assertThat(ListwatchSanitizingFunction.isSecret("LISTWATCH_ETCD_PASSWORD")).isTrue();
	}

	private void assertDeclarationFailure(List<String> properties, String property, String description, String action) {
		this.runner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new ListwatchFailureAnalyzers.WatchDeclaration()
				.analyze(context.getStartupFailure());
			assertThat(analysis).as("a failure analysis").isNotNull();
			assertThat(analysis.getDescription()).contains(description);
			assertThat(analysis.getAction()).contains(action);
			assertThat(((WatchDeclarationException) analysis.getCause()).property()).isEqualTo(property);
		});
	}

}
