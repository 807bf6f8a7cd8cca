package dev.listwatch.autoconfigure;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;

import dev.listwatch.ListerWatcher;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code compress-objects} reaches the lister-watcher, per watch or from
 * {@code listwatch.defaults.compress-objects}, a watch's own setting winning, and only
 * for watches of {@code KubernetesObject}. Against no API server (a kubeconfig pointing
 * at a closed port).
 */
class CompressObjectsDeclarationTests {

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
	void compressObjectsIsPassedToTheListerWatcherPerWatch() {
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.watches.pods.api-version=v1",
					"listwatch.watches.pods.kind=Pod", "listwatch.watches.pods.compress-objects=true",
					"listwatch.watches.secrets.api-version=v1", "listwatch.watches.secrets.kind=Secret")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean("podsListerWatcher", ListerWatcher.class)).asString()
					.endsWith(", objects compressed]");
				assertThat(context.getBean("secretsListerWatcher", ListerWatcher.class)).asString()
					.doesNotContain("compressed");
			});
	}

	@Test
	void compressObjectsByDefaultAppliesToWatchesThatDoNotSayOtherwise() {
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.defaults.compress-objects=true",
					"listwatch.watches.pods.api-version=v1", "listwatch.watches.pods.kind=Pod",
					"listwatch.watches.secrets.api-version=v1", "listwatch.watches.secrets.kind=Secret",
					"listwatch.watches.secrets.compress-objects=false", "listwatch.watches.maps.api-version=v1",
					"listwatch.watches.maps.kind=ConfigMap", "listwatch.watches.maps.type=java.util.Map")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean("podsListerWatcher", ListerWatcher.class)).asString()
					.endsWith(", objects compressed]");
				assertThat(context.getBean("secretsListerWatcher", ListerWatcher.class)).asString()
					.doesNotContain("compressed");
				// objects bound to a type are held as that type: nothing to compress
				assertThat(context.getBean("mapsListerWatcher", ListerWatcher.class)).asString()
					.doesNotContain("compressed");
			});
	}

	@Test
	void byDefaultObjectsAreNotCompressed() {
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.watches.pods.api-version=v1",
					"listwatch.watches.pods.kind=Pod")
			.run((context) -> assertThat(context.getBean("podsListerWatcher", ListerWatcher.class)).asString()
				.doesNotContain("compressed"));
	}

}
