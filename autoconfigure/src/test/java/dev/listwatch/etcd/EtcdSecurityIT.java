package dev.listwatch.etcd;

import java.time.Duration;

import dev.listwatch.WatchStatus;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.LocalEtcd;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * etcd watches against a real etcd that wants TLS with client certificates, or a user and
 * a password; the password never shows.
 */
@ExtendWith(OutputCaptureExtension.class)
class EtcdSecurityIT {

	private static final String PASSWORD = "pw-Zq81-never-shown";

	@BeforeAll
	static void overTheGateway() {
		EtcdWatchIT.protocol = "gateway";
	}

	@Test
	void tlsWithAClientCertificate() {
		try (LocalEtcd etcd = new LocalEtcd(LocalEtcd.Options.defaults().withTls(true)).start()) {
			etcd.put("/tls/a", "{}");
			EtcdWatchIT
				.runner(etcd.endpoint(), "/tls/", "listwatch.etcd.certificate-authority=" + etcd.caCertificatePath(),
						"listwatch.etcd.client-certificate=" + etcd.clientCertificatePath(),
						"listwatch.etcd.client-key=" + etcd.clientKeyPath())
				.run((context) -> {
					assertThat(context.getBean(EtcdClient.class).protocol().name())
						.isEqualToIgnoringCase(EtcdWatchIT.protocol);
					Informer<?> informer = EtcdWatchIT.informer(context);
					await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
					etcd.put("/tls/b", "{}");
					await().atMost(Duration.ofSeconds(10))
						.until(() -> EtcdWatchIT.lister(context).get(null, "b").isPresent());
				});
			// the CA alone: etcd refuses the handshake without a client certificate
			EtcdWatchIT
				.runner(etcd.endpoint(), "/tls/", "listwatch.etcd.certificate-authority=" + etcd.caCertificatePath())
				.run((context) -> {
					Informer<?> informer = EtcdWatchIT.informer(context);
					await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().lastError() != null);
					WatchStatus status = informer.status();
					assertThat(status.synced()).isFalse();
					assertThat(status.lastError().reason()).isEqualTo("CONNECTION");
					assertThat(status.lastError().message()).contains("etcd range of /tls/ at " + etcd.endpoint());
				});
		}
	}

	@Test
	void aUserAndPasswordAuthenticateAgainAfterEtcdRestarts(CapturedOutput output) {
		try (LocalEtcd etcd = new LocalEtcd(LocalEtcd.Options.defaults().withPassword(PASSWORD)).start()) {
			etcd.put("/auth/a", "{}");
			EtcdWatchIT
				.runner(etcd.endpoint(), "/auth/", "listwatch.etcd.username=" + LocalEtcd.ROOT,
						"listwatch.etcd.password=" + PASSWORD)
				.run((context) -> {
					Informer<?> informer = EtcdWatchIT.informer(context);
					await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
					etcd.put("/auth/b", "{}");
					await().atMost(Duration.ofSeconds(10))
						.until(() -> EtcdWatchIT.lister(context).get(null, "b").isPresent());
					// a restarted etcd forgets its simple tokens: the next calls
					// authenticate again
					etcd.stopProcess();
					etcd.start();
					etcd.put("/auth/c", "{}");
					await().atMost(Duration.ofSeconds(30))
						.until(() -> EtcdWatchIT.lister(context).get(null, "c").isPresent());
					assertThat(informer.status().relists()).isZero();
				});
			EtcdWatchIT
				.runner(etcd.endpoint(), "/auth/", "listwatch.etcd.username=" + LocalEtcd.ROOT,
						"listwatch.etcd.password=wrong-" + PASSWORD)
				.run((context) -> {
					Informer<?> informer = EtcdWatchIT.informer(context);
					await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().lastError() != null);
					WatchStatus status = informer.status();
					assertThat(status.lastError().reason()).isEqualTo("Unauthorized");
					assertThat(status.lastError().message()).contains("etcd authentication of user 'root'")
						.contains("check listwatch.etcd.username and listwatch.etcd.password")
						.doesNotContain(PASSWORD);
				});
		}
		assertThat(output).doesNotContain(PASSWORD);
	}

}
