package dev.listwatch.autoconfigure;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;

import dev.listwatch.ListerWatcher;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code metadata-only} reaches the lister-watcher (per watch, or from
 * {@code listwatch.defaults.metadata-only}), and a declared {@code type} with it fails
 * startup naming both properties. Against no API server (a kubeconfig pointing at a
 * closed port).
 */
class MetadataOnlyDeclarationTests {

	@TempDir
	static Path dir;

	static Path kubeconfig;

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations
		.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class, ListwatchAutoConfiguration.class));

	@BeforeAll
	static void kubeconfig() throws IOException {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		kubeconfig = ListwatchAutoConfigurationTests.writeKubeconfig(dir.resolve("kubeconfig.yaml"),
				"https://127.0.0.1:" + closedPort);
	}

	@Test
	void metadataOnlyIsPassedToTheListerWatcherPerWatchOrByDefault() {
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.watches.secrets.api-version=v1",
					"listwatch.watches.secrets.kind=Secret", "listwatch.watches.secrets.metadata-only=true",
					"listwatch.watches.configmaps.api-version=v1", "listwatch.watches.configmaps.kind=ConfigMap",
					"listwatch.watches.pods.api-version=v1", "listwatch.watches.pods.kind=Pod",
					"listwatch.watches.pods.metadata-only=false", "listwatch.defaults.metadata-only=true",
					"listwatch.watches.services.api-version=v1", "listwatch.watches.services.kind=Service",
					"listwatch.watches.services.type=dev.listwatch.KubernetesObject")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean("secretsListerWatcher", ListerWatcher.class)).asString()
					.endsWith(", metadata only]");
				assertThat(context.getBean("configmapsListerWatcher", ListerWatcher.class)).asString()
					.endsWith(", metadata only]");
				assertThat(context.getBean("servicesListerWatcher", ListerWatcher.class)).asString()
					.endsWith(", metadata only]");
				assertThat(context.getBean("podsListerWatcher", ListerWatcher.class)).asString()
					.doesNotContain("metadata only");
			});
	}

	@Test
	void byDefaultWatchesAreNotMetadataOnly() {
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.watches.secrets.api-version=v1",
					"listwatch.watches.secrets.kind=Secret")
			.run((context) -> assertThat(context.getBean("secretsListerWatcher", ListerWatcher.class)).asString()
				.doesNotContain("metadata only"));
	}

	@Test
	void aTypeWithAMetadataOnlyWatchFailsStartupNamingBothProperties() {
		assertDeclarationFailure("listwatch.watches.secrets.metadata-only=true",
				"listwatch.watches.secrets.type is java.util.Map, but the watch is metadata-only "
						+ "(listwatch.watches.secrets.metadata-only=true)");
	}

	@Test
	void aTypeWithMetadataOnlyByDefaultFailsStartupNamingTheDefault() {
		assertDeclarationFailure("listwatch.defaults.metadata-only=true",
				"listwatch.watches.secrets.type is java.util.Map, but the watch is metadata-only "
						+ "(listwatch.defaults.metadata-only=true)");
	}

	private void assertDeclarationFailure(String metadataOnly, String description) {
		this.runner.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.watches.secrets.api-version=v1",
				"listwatch.watches.secrets.kind=Secret", "listwatch.watches.secrets.type=java.util.Map", metadataOnly)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new ListwatchFailureAnalyzers.WatchDeclaration()
					.analyze(context.getStartupFailure());
				assertThat(analysis).as("a failure analysis").isNotNull();
				assertThat(analysis.getDescription()).contains("Watch 'secrets' cannot work: " + description)
					.contains("which Map would hold with every other field empty");
				assertThat(analysis.getAction()).contains("Remove listwatch.watches.secrets.type")
					.contains("set listwatch.watches.secrets.metadata-only=false");
				assertThat(((WatchDeclarationException) analysis.getCause()).property()).isEqualTo("type");
			});
	}

}
