package dev.listwatch.autoconfigure;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

import dev.listwatch.cluster.KubeconfigException;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A kubeconfig that asks for a CA and for no verification at once fails startup with a
 * failure analysis, as client-go refuses it; a CA from the properties clears the flag
 * instead.
 */
class InsecureWithCaStartupTests {

	@TempDir
	Path dir;

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations
		.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class, ListwatchAutoConfiguration.class));

	@Test
	void kubeconfigWithCaAndInsecureSkipTlsVerifyFailsStartup() throws Exception {
		Path kubeconfig = kubeconfig();
		this.runner.withPropertyValues("listwatch.kubeconfig=" + kubeconfig).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new KubeconfigFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).startsWith("Kubeconfig " + kubeconfig + ": ")
				.contains("clusters[c].cluster.insecure-skip-tls-verify is true while "
						+ "clusters[c].cluster.certificate-authority is set");
			assertThat(analysis.getAction()).contains("remove insecure-skip-tls-verify")
				.contains("listwatch.connection.certificate-authority");
			assertThat(analysis.getCause()).isInstanceOf(KubeconfigException.class);
		});
	}

	@Test
	void caFromPropertiesClearsTheKubeconfigsInsecureSkipTlsVerify() throws Exception {
		Path kubeconfig = kubeconfig();
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig,
					"listwatch.connection.certificate-authority=" + this.dir.resolve("ca.crt"))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	private Path kubeconfig() throws Exception {
		Files.writeString(this.dir.resolve("ca.crt"), selfSignedCa());
		return Files.writeString(this.dir.resolve("config"),
				"""
						apiVersion: v1
						kind: Config
						current-context: x
						clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", certificate-authority: ca.crt, insecure-skip-tls-verify: true}}]
						contexts: [{name: x, context: {cluster: c}}]
						""");
	}

	/** A self-signed CA certificate, made now. */
	private static String selfSignedCa() throws Exception {
		KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
		generator.initialize(256);
		KeyPair keys = generator.generateKeyPair();
		X500Name name = new X500Name("CN=listwatch-test-ca");
		Instant now = Instant.now();
		X509CertificateHolder certificate = new JcaX509v3CertificateBuilder(name, BigInteger.ONE,
				Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), name,
				keys.getPublic())
			.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate()));
		return "-----BEGIN CERTIFICATE-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
			.encodeToString(certificate.getEncoded()) + "\n-----END CERTIFICATE-----\n";
	}

}
