package dev.listwatch.etcd;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.Lister;
import dev.listwatch.ListerWatcher;
import dev.listwatch.WatchStatus;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.LocalEtcd;
import dev.listwatch.testsupport.fault.FaultProxy;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * etcd watches against a real etcd that wants TLS with client certificates, or a user and
 * a password; the password never shows. A token etcd no longer takes is replaced whatever
 * etcd says of it (invalid, issued before an auth change, none at all because auth was
 * off when it was fetched), once for all the watches refused together.
 */
@ExtendWith(OutputCaptureExtension.class)
class EtcdSecurityIT {

	private static final String PASSWORD = "pw-Zq81-never-shown";

	/** etcd's count of the Authenticate requests it applied and granted. */
	private static final Pattern AUTHENTICATED = Pattern
		.compile("etcd_server_apply_duration_seconds_count\\{op=\"Authenticate\",success=\"true\"[^}]*\\} (\\d+)");

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

	@Test
	void aTokenOfNoneTakenWhileAuthWasOffIsReplacedOnceAuthIsOn(CapturedOutput output) {
		try (LocalEtcd etcd = new LocalEtcd(LocalEtcd.Options.defaults()).start();
				FaultProxy proxy = FaultProxy.start(etcd.port())) {
			etcd.put("/later/a", "{}");
			EtcdWatchIT
				.runner("http://127.0.0.1:" + proxy.port(), "/later/", "listwatch.etcd.username=" + LocalEtcd.ROOT,
						"listwatch.etcd.password=" + PASSWORD)
				.run((context) -> {
					Informer<?> informer = EtcdWatchIT.informer(context);
					await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
					// auth was off: the client holds no token, and sends none
					etcd.enableAuth(PASSWORD);
					assertThat(proxy.cutAll()).isPositive();
					etcd.put("/later/b", "{}");
					await().atMost(Duration.ofSeconds(20))
						.until(() -> EtcdWatchIT.lister(context).get(null, "b").isPresent());
					assertThat(informer.status().relists()).isZero();
				});
		}
		assertThat(output).doesNotContain(PASSWORD);
	}

	@Test
	void aJwtIssuedBeforeAnAuthChangeIsReplaced(CapturedOutput output) {
		try (LocalEtcd etcd = new LocalEtcd(LocalEtcd.Options.defaults().withPassword(PASSWORD).withJwtTokens(true))
			.start(); FaultProxy proxy = FaultProxy.start(etcd.port())) {
			etcd.put("/jwt/a", "{}");
			EtcdWatchIT
				.runner("http://127.0.0.1:" + proxy.port(), "/jwt/", "listwatch.etcd.username=" + LocalEtcd.ROOT,
						"listwatch.etcd.password=" + PASSWORD)
				.run((context) -> {
					Informer<?> informer = EtcdWatchIT.informer(context);
					await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
					// a user added: the auth store's revision moves past the one in the
					// client's token ("revision of auth store is old")
					addUser(etcd, "reader-1");
					assertThat(proxy.cutAll()).isPositive();
					etcd.put("/jwt/b", "{}");
					await().atMost(Duration.ofSeconds(20))
						.until(() -> EtcdWatchIT.lister(context).get(null, "b").isPresent());
					// a range read too
					addUser(etcd, "reader-2");
					@SuppressWarnings("unchecked")
					ListerWatcher<KubernetesObject> listerWatcher = context.getBean("cfgListerWatcher",
							ListerWatcher.class);
					assertThat(listerWatcher.list(ListOptions.none()).items()).hasSize(2);
					assertThat(informer.status().relists()).isZero();
				});
		}
		assertThat(output).doesNotContain(PASSWORD);
	}

	@Test
	void watchesRefusedTogetherForTheirTokenAuthenticateOnce() {
		int watches = 6;
		try (LocalEtcd etcd = new LocalEtcd(LocalEtcd.Options.defaults().withPassword(PASSWORD)).start();
				FaultProxy proxy = FaultProxy.start(etcd.port())) {
			List<String> properties = new ArrayList<>(
					List.of("listwatch.etcd.username=" + LocalEtcd.ROOT, "listwatch.etcd.password=" + PASSWORD));
			for (int i = 1; i < watches; i++) {
				properties.add("listwatch.watches.w" + i + ".source=etcd");
				properties.add("listwatch.watches.w" + i + ".key-prefix=/many/" + i + "/");
			}
			EtcdWatchIT.runner("http://127.0.0.1:" + proxy.port(), "/many/0/", properties.toArray(String[]::new))
				.run((context) -> {
					List<String> names = new ArrayList<>(List.of("cfg"));
					for (int i = 1; i < watches; i++) {
						names.add("w" + i);
					}
					for (String name : names) {
						Informer<?> informer = context.getBean(name + "Informer", Informer.class);
						await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
					}
					// root's password set again (to the same): every token of root is
					// invalid; the test's own writes authenticate again before counting
					etcd.call("/v3/auth/user/changepw",
							"{\"name\":\"" + LocalEtcd.ROOT + "\",\"password\":\"" + PASSWORD + "\"}");
					etcd.put("/elsewhere/x", "{}");
					long before = authentications(etcd);
					// every watch resumes at once, and is refused for its token
					assertThat(proxy.cutAll()).isPositive();
					for (int i = 0; i < watches; i++) {
						etcd.put("/many/" + i + "/k", "{}");
					}
					for (String name : names) {
						@SuppressWarnings("unchecked")
						Lister<KubernetesObject> lister = context.getBean(name + "Lister", Lister.class);
						await().atMost(Duration.ofSeconds(20)).until(() -> lister.get(null, "k").isPresent());
					}
					assertThat(authentications(etcd) - before)
						.as("Authenticate calls for %d watches refused together", watches)
						.isEqualTo(1);
				});
		}
	}

	private static void addUser(LocalEtcd etcd, String name) {
		etcd.call("/v3/auth/user/add", "{\"name\":\"" + name + "\",\"password\":\"pw-" + name + "\"}");
	}

	/** The Authenticate calls etcd has answered, from its metrics. */
	private static long authentications(LocalEtcd etcd) throws IOException, InterruptedException {
		HttpResponse<String> metrics = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create(etcd.endpoint() + "/metrics")).build(),
					HttpResponse.BodyHandlers.ofString());
		Matcher matcher = AUTHENTICATED.matcher(metrics.body());
		assertThat(matcher.find()).as("etcd's metrics count Authenticate calls").isTrue();
		return Long.parseLong(matcher.group(1));
	}

}
