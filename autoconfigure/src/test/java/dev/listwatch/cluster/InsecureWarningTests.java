package dev.listwatch.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * TLS is verified unless {@code insecure-skip-tls-verify} is set; when it is, one warning
 * says so.
 */
@ExtendWith(OutputCaptureExtension.class)
class InsecureWarningTests {

	@TempDir
	Path dir;

	@Test
	void insecureSkipTlsVerifyWarnsOnceAndOnlyWhenSet(CapturedOutput output) throws Exception {
		Cluster verified = load("verified", "");
		assertThat(output.getAll()).doesNotContain("insecure-skip-tls-verify");
		Cluster insecure = load("insecure", "insecure-skip-tls-verify: true, ");
		assertThat(insecure.insecureSkipTlsVerify()).isTrue();
		assertThat(verified.insecureSkipTlsVerify()).isFalse();
		assertThat(output.getAll().lines().filter((line) -> line.contains("insecure-skip-tls-verify"))).hasSize(1);
		assertThat(verified.server()).isEqualTo(insecure.server());
	}

	@Test
	void caFromSettingsClearsTheFlagAndTheWarning(CapturedOutput output) throws Exception {
		Path kubeconfig = this.dir.resolve("insecure.yaml");
		Files.writeString(kubeconfig, """
				apiVersion: v1
				kind: Config
				clusters: [{name: c, cluster: {insecure-skip-tls-verify: true, server: "https://127.0.0.1:6443"}}]
				contexts: [{name: x, context: {cluster: c}}]
				current-context: x
				""");
		Cluster cluster = Cluster.load(ConnectionOptions.builder()
			.kubeconfig(kubeconfig.toString())
			.certificateAuthorityData(Corpus.ca().certificatePem())
			.environment(Map.of())
			.homeDirectory(this.dir)
			.serviceAccountDirectory(this.dir)
			.build());
		assertThat(cluster.insecureSkipTlsVerify()).isFalse();
		assertThat(output.getAll()).doesNotContain("insecure-skip-tls-verify");
	}

	private Cluster load(String name, String insecure) throws Exception {
		Path kubeconfig = this.dir.resolve(name + ".yaml");
		Files.writeString(kubeconfig, """
				apiVersion: v1
				kind: Config
				clusters: [{name: c, cluster: {%sserver: "https://127.0.0.1:6443"}}]
				users: [{name: u, user: {token: abc}}]
				contexts: [{name: x, context: {cluster: c, user: u}}]
				current-context: x
				""".formatted(insecure));
		return Cluster.load(ConnectionOptions.builder()
			.kubeconfig(kubeconfig.toString())
			.environment(Map.of())
			.homeDirectory(this.dir)
			.serviceAccountDirectory(this.dir)
			.build());
	}

}
