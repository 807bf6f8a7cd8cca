package dev.listwatch.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.Lister;
import dev.listwatch.ListerWatcher;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.ClientCertificate;
import dev.listwatch.testsupport.KeyFormat;
import dev.listwatch.testsupport.KeyType;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code listwatch.connection.ssl-bundle} against a real kube-apiserver: a kubeconfig
 * that names only the server (no CA, no user) connects with the trust material and the
 * client certificate of a Boot PEM bundle, which the server authenticates as an admin.
 */
@ExtendWith(LocalApiServerExtension.class)
class SslBundleConnectionIT {

	private static LocalApiServer server;

	@TempDir
	static Path dir;

	private static Path kubeconfig;

	private static Path clientCertificate;

	private static Path clientKey;

	private static String namespace;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
				SslAutoConfiguration.class, ListwatchAutoConfiguration.class));

	@BeforeAll
	static void start(LocalApiServer localApiServer) throws IOException {
		server = localApiServer;
		kubeconfig = Files.writeString(dir.resolve("server-only.yaml"), """
				apiVersion: v1
				kind: Config
				clusters: [{name: c, cluster: {server: "%s"}}]
				contexts: [{name: x, context: {cluster: c}}]
				current-context: x
				""".formatted(server.serverUrl()));
		ClientCertificate admin = server.mintClientCertificate(KeyType.EC, KeyFormat.PKCS8, "bundle-admin",
				"system:masters");
		clientCertificate = Files.writeString(dir.resolve("client.crt"), admin.certificatePem());
		clientKey = Files.writeString(dir.resolve("client.key"), admin.privateKeyPem());
		namespace = server.createNamespace("lw-ssl-bundle");
		server.writer()
			.create("/api/v1/namespaces/" + namespace + "/configmaps",
					ApiWriter.configMap(namespace, "before-start", "k", "v"));
	}

	private static String[] properties(String... more) {
		String[] base = { "listwatch.kubeconfig=" + kubeconfig, "listwatch.watches.cms.api-version=v1",
				"listwatch.watches.cms.kind=ConfigMap", "listwatch.watches.cms.namespace=" + namespace,
				"spring.ssl.bundle.pem.apiserver.truststore.certificate=" + server.caCertificatePath().toUri(),
				"spring.ssl.bundle.pem.apiserver.keystore.certificate=" + clientCertificate.toUri(),
				"spring.ssl.bundle.pem.apiserver.keystore.private-key=" + clientKey.toUri() };
		String[] all = new String[base.length + more.length];
		System.arraycopy(base, 0, all, 0, base.length);
		System.arraycopy(more, 0, all, base.length, more.length);
		return all;
	}

	@Test
	void theBundlesTrustAndClientCertificateConnectAndAuthenticate() {
		this.runner.withPropertyValues(properties("listwatch.connection.ssl-bundle=apiserver")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(Cluster.class).description()).endsWith(" with SSL bundle 'apiserver'");
			@SuppressWarnings("unchecked")
			Lister<KubernetesObject> lister = context.getBean("cmsLister", Lister.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> lister.get(namespace, "before-start").isPresent());
			server.writer()
				.create("/api/v1/namespaces/" + namespace + "/configmaps",
						ApiWriter.configMap(namespace, "after-start", "k", "v"));
			await().atMost(Duration.ofSeconds(30)).until(() -> lister.get(namespace, "after-start").isPresent());
		});
	}

	@Test
	void withoutTheBundleTheServerOnlyKubeconfigCannotConnect() {
		this.runner.withPropertyValues(properties()).run((context) -> {
			assertThat(context).hasNotFailed();
			ApiServerClient client = context.getBean(ApiServerClient.class);
			ListerWatcher<KubernetesObject> configMaps = client.listerWatcher(
					new ApiServerClient.Target("v1", "ConfigMap", null, namespace), KubernetesObject.class,
					ApiServerClient.Decoding.DEFAULTS);
			assertThatExceptionOfType(KubernetesApiException.class)
				.isThrownBy(() -> configMaps.list(ListOptions.none()))
				.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(KubernetesApiException.Kind.CONNECTION));
		});
	}

}
