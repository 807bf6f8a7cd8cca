package dev.listwatch.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;

import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A run whose credentials are refused (403, RBAC) through a static token and through an
 * exec plugin: everything it logs, its health details and its exceptions hold none of the
 * secrets.
 */
@ExtendWith({ LocalApiServerExtension.class, OutputCaptureExtension.class })
class SecretsIT {

	@TempDir
	Path dir;

	@Test
	void refusedCredentialsNeverShowTheirSecrets(LocalApiServer server, CapturedOutput output) throws Exception {
		String token = server.forbiddenToken();
		// unknown to the server: 401, the plugin is run again, 401 again
		String execToken = "exec-secret-" + java.util.UUID.randomUUID();
		Path plugin = this.dir.resolve("plugin.sh");
		Files.writeString(plugin, "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
				+ "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"" + execToken + "\"}}'\n");
		Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwx------"));
		Map<String, String> users = Map.of("token", "token: " + token, "exec", "exec: {apiVersion: "
				+ "client.authentication.k8s.io/v1, command: " + plugin + ", interactiveMode: Never}");
		for (Map.Entry<String, String> user : users.entrySet()) {
			Path kubeconfig = this.dir.resolve(user.getKey() + ".yaml");
			Files.writeString(kubeconfig, """
					apiVersion: v1
					kind: Config
					clusters: [{name: c, cluster: {server: "%s", certificate-authority: "%s"}}]
					users: [{name: u, user: {%s}}]
					contexts: [{name: x, context: {cluster: c, user: u}}]
					current-context: x
					""".formatted(server.serverUrl(), server.caCertificatePath(), user.getValue()));
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
						RestClientAutoConfiguration.class, ListwatchAutoConfiguration.class))
				.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.watches.cms.api-version=v1",
						"listwatch.watches.cms.kind=ConfigMap", "listwatch.defaults.initial-backoff=50ms",
						"listwatch.defaults.max-backoff=100ms", "logging.level.dev.listwatch=DEBUG")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					Informer<?> informer = context.getBean("cmsInformer", Informer.class);
					RestartReason reason = user.getKey().equals("token") ? RestartReason.FORBIDDEN
							: RestartReason.UNAUTHORIZED;
					await().atMost(Duration.ofSeconds(20)).until(() -> informer.status().restarts(reason) >= 3);
					WatchStatus status = informer.status();
					assertThat(status.lastError().reason())
						.isEqualTo(user.getKey().equals("token") ? "Forbidden" : "Unauthorized");
					assertThat(status.toString()).doesNotContain(token).doesNotContain(execToken);
					assertThat(context.getBean(Cluster.class).toString()).doesNotContain(token)
						.doesNotContain(execToken);
					assertThat(context.getBean(Cluster.class).credentials().toString()).doesNotContain(token)
						.doesNotContain(execToken);
				});
		}
		assertThat(output.getAll()).contains("Forbidden")
			.contains("Unauthorized")
			.doesNotContain(token)
			.doesNotContain(execToken);
	}

}
