package dev.listwatch.autoconfigure;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.Credentials;
import dev.listwatch.cluster.KubeconfigException;
import dev.listwatch.cluster.TestPki;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ListwatchConnectionDetails}: an application's bean wins over the properties and
 * the kubeconfig; without one the properties are the details, and
 * {@code listwatch.connection.ssl-bundle} takes the TLS material from Boot's SSL bundles.
 */
class ListwatchConnectionDetailsTests {

	@TempDir
	static Path dir;

	static Path kubeconfig;

	static Path caFile;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
				SslAutoConfiguration.class, ListwatchAutoConfiguration.class));

	@BeforeAll
	static void files() throws IOException {
		kubeconfig = ListwatchAutoConfigurationTests.writeKubeconfig(dir.resolve("kubeconfig.yaml"),
				"https://127.0.0.1:" + ListwatchAutoConfigurationTests.closedPort());
		caFile = Files.writeString(dir.resolve("ca.crt"), TestPki.ca("details-ca").certificatePem());
	}

	@Test
	void anApplicationsConnectionDetailsWinOverThePropertiesAndTheKubeconfig() {
		ListwatchConnectionDetails details = new ListwatchConnectionDetails() {

			@Override
			public URI getServer() {
				return URI.create("https://details.example:6443");
			}

			@Override
			public Credentials getCredentials() {
				return Credentials.bearerToken("d3tails-token");
			}

			@Override
			public String getNamespace() {
				return "team-a";
			}

		};
		// a kubeconfig that does not exist: reading it would fail startup
		this.runner.withBean(ListwatchConnectionDetails.class, () -> details)
			.withPropertyValues("listwatch.kubeconfig=" + dir.resolve("missing.yaml"),
					"listwatch.connection.server=https://properties.example", "listwatch.connection.namespace=ignored",
					"listwatch.connection.connect-timeout=3s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(ListwatchConnectionDetails.class)
					.doesNotHaveBean(PropertiesListwatchConnectionDetails.class);
				Cluster cluster = context.getBean(Cluster.class);
				assertThat(cluster.server()).isEqualTo(URI.create("https://details.example:6443"));
				assertThat(cluster.namespace()).isEqualTo("team-a");
				assertThat(cluster.credentials().authorization()).isEqualTo("Bearer d3tails-token");
				assertThat(cluster.connectTimeout()).hasSeconds(3);
				assertThat(cluster.insecureSkipTlsVerify()).isFalse();
				assertThat(cluster.proxy()).isNull();
				assertThat(cluster.description()).startsWith("connection details ");
				assertThat(cluster.toString()).doesNotContain("d3tails-token");
				assertThat(context.getBean(ApiServerClient.class))
					.hasToString("ApiServerClient[https://details.example:6443]");
			});
	}

	@Test
	void withoutConnectionDetailsThePropertiesAreTheDetails() {
		this.runner.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.connection.namespace=team-b")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ListwatchConnectionDetails details = context.getBean(ListwatchConnectionDetails.class);
				assertThat(details).isInstanceOf(PropertiesListwatchConnectionDetails.class);
				Cluster cluster = context.getBean(Cluster.class);
				assertThat(details.getServer()).isEqualTo(cluster.server());
				assertThat(details.getNamespace()).isEqualTo("team-b");
				assertThat(cluster.description()).startsWith("context x in " + kubeconfig);
			});
	}

	@Test
	void anApplicationsClusterNeedsNoKubeconfigEvenWithTheDefaultDetails() {
		Cluster own = new Cluster(URI.create("https://own.example"), null, false, null, Credentials.none(), null,
				java.time.Duration.ofSeconds(1), "default", "own");
		this.runner.withBean(Cluster.class, () -> own)
			.withPropertyValues("listwatch.kubeconfig=" + dir.resolve("missing.yaml"))
			.run((context) -> assertThat(context).hasNotFailed().getBean(Cluster.class).isSameAs(own));
	}

	@Test
	void anSslBundleByNameReplacesTheKubeconfigsTlsMaterial() {
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.connection.ssl-bundle=apiserver",
					"spring.ssl.bundle.pem.apiserver.truststore.certificate=" + caFile.toUri())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Cluster cluster = context.getBean(Cluster.class);
				assertThat(cluster.ssl()).isSameAs(context.getBean(SslBundles.class).getBundle("apiserver"));
				assertThat(cluster.description()).endsWith(" with SSL bundle 'apiserver'");
			});
	}

	@Test
	void anUnknownSslBundleFailsStartupNamingThePropertyAndTheFix() {
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.connection.ssl-bundle=apiservr",
					"spring.ssl.bundle.pem.apiserver.truststore.certificate=" + caFile.toUri())
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new KubeconfigFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getCause()).isInstanceOf(KubeconfigException.class);
				assertThat(((KubeconfigException) analysis.getCause()).field())
					.isEqualTo("listwatch.connection.ssl-bundle");
				assertThat(analysis.getDescription()).contains(
						"listwatch.connection.ssl-bundle names SSL bundle 'apiservr' which is not defined (defined bundles: [apiserver])");
				assertThat(analysis.getAction()).contains("define it under spring.ssl.bundle.pem.apiservr")
					.contains("set listwatch.connection.ssl-bundle to one of the defined bundles");
			});
	}

	@Test
	void anSslBundleWithoutBootsSslAutoConfigurationFailsStartupNamingTheFix() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class))
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.connection.ssl-bundle=apiserver")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new KubeconfigFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains(
						"listwatch.connection.ssl-bundle names SSL bundle 'apiserver' but the application has no SSL bundles");
				assertThat(analysis.getAction()).contains("spring.ssl.bundle.pem.apiserver");
			});
	}

}
