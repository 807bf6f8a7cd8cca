package dev.listwatch.client;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.Corpus;
import dev.listwatch.cluster.Credentials;
import dev.listwatch.cluster.TestPki;
import dev.listwatch.cluster.TestSettings;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.pem.PemSslStore;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * TLS of the transport built from a loaded {@link Cluster}, against a local HTTPS server
 * with certificates generated at test time; on Jetty's client, through a proxy, in
 * {@link TransportTlsThroughJettyTests}.
 */
class TransportTlsTests {

	static TestPki.Issued ca;

	static TestPki.Issued otherCa;

	static TestPki.Issued serverForIp;

	static TestPki.Issued serverForOtherName;

	@TempDir
	Path dir;

	private HttpsServer server;

	private final Map<String, String> seen = new ConcurrentHashMap<>();

	@BeforeAll
	static void pki() {
		ca = TestPki.ca("listwatch-test-ca");
		otherCa = TestPki.ca("listwatch-other-ca");
		serverForIp = TestPki.issue(ca, "apiserver", TestPki.KeyType.EC, "127.0.0.1", "localhost");
		serverForOtherName = TestPki.issue(ca, "apiserver", TestPki.KeyType.EC, "api.internal.example");
	}

	@AfterEach
	void stop() {
		if (this.server != null) {
			this.server.stop(0);
		}
	}

	private URI start(TestPki.Issued certificate, boolean needClientAuth) throws IOException {
		SSLContext context = certificate.serverContext(ca.certificate());
		this.server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.server.setHttpsConfigurator(new HttpsConfigurator(context) {
			@Override
			public void configure(HttpsParameters params) {
				SSLParameters parameters = context.getDefaultSSLParameters();
				parameters.setNeedClientAuth(needClientAuth);
				params.setSSLParameters(parameters);
			}
		});
		this.server.createContext("/", (exchange) -> {
			HttpsExchange https = (HttpsExchange) exchange;
			List<SNIServerName> names = ((ExtendedSSLSession) https.getSSLSession()).getRequestedServerNames();
			this.seen.put("sni", names.isEmpty() ? "" : ((SNIHostName) names.get(0)).getAsciiName());
			try {
				this.seen.put("client", https.getSSLSession().getPeerPrincipal().getName());
			}
			catch (Exception ex) {
				this.seen.put("client", "");
			}
			this.seen.put("path", exchange.getRequestURI().getPath());
			byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(200, body.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(body);
			}
		});
		this.server.start();
		return URI.create("https://127.0.0.1:" + this.server.getAddress().getPort());
	}

	private Path kubeconfig(URI server, String clusterExtra, String userExtra) throws IOException {
		Path file = this.dir.resolve("config");
		Files.writeString(file, """
				apiVersion: v1
				kind: Config
				current-context: test
				clusters:
				- name: test
				  cluster:
				    server: %s
				%s
				users:
				- name: test
				  user:
				%s
				contexts:
				- name: test
				  context:
				    cluster: test
				    user: test
				""".formatted(server, indent(clusterExtra), indent(userExtra)));
		return file;
	}

	private static String indent(String lines) {
		return lines.isEmpty() ? "" : lines.lines().map((l) -> "    " + l).reduce((a, b) -> a + "\n" + b).orElse("");
	}

	private Cluster load(Path kubeconfig) {
		return throughProxy(new TestSettings(this.dir).kubeconfig(kubeconfig).load());
	}

	/**
	 * The proxy every cluster of these tests is reached through.
	 * @return {@code null} here: a direct connection
	 */
	Cluster.@Nullable Proxy proxy() {
		return null;
	}

	private Cluster throughProxy(Cluster cluster) {
		Cluster.Proxy proxy = proxy();
		return (proxy == null) ? cluster
				: new Cluster(cluster.server(), cluster.ssl(), cluster.insecureSkipTlsVerify(), cluster.tlsServerName(),
						cluster.credentials(), proxy, cluster.connectTimeout(), cluster.namespace(),
						cluster.description());
	}

	/** Whether the transport asks for HTTP/2 (negotiated by ALPN). */
	boolean http2() {
		return false;
	}

	String get(Cluster cluster) throws IOException {
		try (Transport transport = Transport.create(cluster, http2());
				ClientHttpResponse response = transport.requestFactory()
					.createRequest(URI.create(cluster.server() + "/version"), HttpMethod.GET)
					.execute()) {
			return response.getStatusCode().value() + " "
					+ new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	@Test
	void acceptsServerSignedByConfiguredCa() throws IOException {
		URI uri = start(serverForIp, false);
		Cluster cluster = load(kubeconfig(uri, "certificate-authority-data: " + ca.certificateBase64(), ""));
		assertThat(get(cluster)).isEqualTo("200 ok");
		assertThat(this.seen).containsEntry("path", "/version");
	}

	@Test
	void acceptsCaFromFileRelativeToKubeconfig() throws IOException {
		URI uri = start(serverForIp, false);
		Files.createDirectories(this.dir.resolve("pki"));
		Files.writeString(this.dir.resolve("pki/ca.crt"), ca.certificatePem());
		Cluster cluster = load(kubeconfig(uri, "certificate-authority: pki/ca.crt", ""));
		assertThat(get(cluster)).isEqualTo("200 ok");
	}

	@Test
	void refusesServerSignedByAnotherCa() throws IOException {
		URI uri = start(serverForIp, false);
		Cluster cluster = load(kubeconfig(uri, "certificate-authority-data: " + otherCa.certificateBase64(), ""));
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> get(cluster));
	}

	@Test
	void refusesServerWithoutCaAgainstJvmDefaults() throws IOException {
		URI uri = start(serverForIp, false);
		Cluster cluster = load(kubeconfig(uri, "", ""));
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> get(cluster));
	}

	@Test
	void refusesCertificateForAnotherNameWithoutTlsServerName() throws IOException {
		URI uri = start(serverForOtherName, false);
		Cluster cluster = load(kubeconfig(uri, "certificate-authority-data: " + ca.certificateBase64(), ""));
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> get(cluster));
	}

	@Test
	void tlsServerNameMakesCertificateForThatNameAcceptableAndIsSentAsSni() throws IOException {
		URI uri = start(serverForOtherName, false);
		Cluster cluster = load(kubeconfig(uri, """
				certificate-authority-data: %s
				tls-server-name: api.internal.example""".formatted(ca.certificateBase64()), ""));
		assertThat(get(cluster)).isEqualTo("200 ok");
		assertThat(this.seen).containsEntry("sni", "api.internal.example");
	}

	@Test
	void tlsServerNameStillRequiresTrustedCa() throws IOException {
		URI uri = start(serverForOtherName, false);
		Cluster cluster = load(kubeconfig(uri, """
				certificate-authority-data: %s
				tls-server-name: api.internal.example""".formatted(otherCa.certificateBase64()), ""));
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> get(cluster));
	}

	@Test
	void tlsServerNameMustMatchCertificate() throws IOException {
		URI uri = start(serverForOtherName, false);
		Cluster cluster = load(kubeconfig(uri, """
				certificate-authority-data: %s
				tls-server-name: somewhere.else.example""".formatted(ca.certificateBase64()), ""));
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> get(cluster));
	}

	@Test
	void insecureSkipTlsVerifyAcceptsAnyCertificateOnlyWhenTrue() throws IOException {
		URI uri = start(serverForOtherName, false);
		Cluster insecure = load(kubeconfig(uri, "insecure-skip-tls-verify: true", ""));
		assertThat(get(insecure)).isEqualTo("200 ok");
		Cluster explicitFalse = load(kubeconfig(uri, "insecure-skip-tls-verify: false", ""));
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> get(explicitFalse));
		Cluster unset = load(kubeconfig(uri, "certificate-authority-data: " + otherCa.certificateBase64(), ""));
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> get(unset));
	}

	@Test
	void insecureFromSettingsOverridesFile() throws IOException {
		URI uri = start(serverForOtherName, false);
		Path config = kubeconfig(uri, "insecure-skip-tls-verify: true", "");
		TestSettings settings = new TestSettings(this.dir).kubeconfig(config);
		settings.insecure = false;
		Cluster cluster = throughProxy(settings.load());
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> get(cluster));
	}

	@Test
	void caFromSettingsClearsInsecureSkipTlsVerify() throws IOException {
		URI uri = start(serverForIp, false);
		Path config = kubeconfig(uri, "insecure-skip-tls-verify: true", "");
		TestSettings wrongCa = new TestSettings(this.dir).kubeconfig(config);
		wrongCa.certificateAuthorityData = otherCa.certificatePem();
		Cluster verified = throughProxy(wrongCa.load());
		assertThatExceptionOfType(IOException.class).as("verification is on again").isThrownBy(() -> get(verified));
		Files.writeString(this.dir.resolve("ca.crt"), ca.certificatePem());
		TestSettings rightCa = new TestSettings(this.dir).kubeconfig(config);
		rightCa.certificateAuthority = this.dir.resolve("ca.crt").toString();
		assertThat(get(throughProxy(rightCa.load()))).isEqualTo("200 ok");
	}

	@Test
	void insecureFromSettingsDropsTheKubeconfigCa() throws IOException {
		URI uri = start(serverForOtherName, false);
		Path config = kubeconfig(uri, "certificate-authority-data: " + otherCa.certificateBase64(), "");
		TestSettings settings = new TestSettings(this.dir).kubeconfig(config);
		settings.insecure = true;
		assertThat(get(throughProxy(settings.load()))).isEqualTo("200 ok");
	}

	@Test
	void tlsServerNameIsSentAsSniWhenTheServerUrlNamesAHost() throws IOException {
		URI uri = start(serverForOtherName, false);
		Cluster cluster = load(kubeconfig(URI.create("https://localhost:" + uri.getPort()), """
				certificate-authority-data: %s
				tls-server-name: api.internal.example""".formatted(ca.certificateBase64()), ""));
		assertThat(get(cluster)).isEqualTo("200 ok");
		assertThat(this.seen).containsEntry("sni", "api.internal.example");
	}

	@Test
	void tlsServerNameIsSentAsSniWithoutVerification() throws IOException {
		URI uri = start(serverForOtherName, false);
		Cluster cluster = load(kubeconfig(URI.create("https://localhost:" + uri.getPort()), """
				insecure-skip-tls-verify: true
				tls-server-name: api.internal.example""", ""));
		assertThat(get(cluster)).isEqualTo("200 ok");
		assertThat(this.seen).containsEntry("sni", "api.internal.example");
	}

	@Test
	void tlsServerNameThatIsAnAddressSendsNoSni() throws IOException {
		URI uri = start(serverForIp, false);
		Cluster cluster = load(kubeconfig(URI.create("https://localhost:" + uri.getPort()), """
				certificate-authority-data: %s
				tls-server-name: 127.0.0.1""".formatted(ca.certificateBase64()), ""));
		assertThat(get(cluster)).isEqualTo("200 ok");
		assertThat(this.seen).containsEntry("sni", "");
	}

	@Test
	void presentsClientCertificateEcSec1() throws IOException {
		assertClientCertificate(TestPki.KeyType.EC, false);
	}

	@Test
	void presentsClientCertificateEcPkcs8() throws IOException {
		assertClientCertificate(TestPki.KeyType.EC, true);
	}

	@Test
	void presentsClientCertificateRsaPkcs1() throws IOException {
		assertClientCertificate(TestPki.KeyType.RSA, false);
	}

	@Test
	void presentsClientCertificateRsaPkcs8FromFiles() throws IOException {
		TestPki.Issued client = TestPki.issue(ca, "admin", TestPki.KeyType.RSA);
		URI uri = start(serverForIp, true);
		Files.writeString(this.dir.resolve("client.crt"), client.certificatePem());
		Files.writeString(this.dir.resolve("client.key"), client.pkcs8Pem());
		Cluster cluster = load(kubeconfig(uri, "certificate-authority-data: " + ca.certificateBase64(), """
				client-certificate: client.crt
				client-key: client.key"""));
		assertThat(get(cluster)).isEqualTo("200 ok");
		assertThat(this.seen.get("client")).isEqualTo("CN=admin");
	}

	private void assertClientCertificate(TestPki.KeyType type, boolean pkcs8) throws IOException {
		TestPki.Issued client = TestPki.issue(ca, "admin", type);
		URI uri = start(serverForIp, true);
		String key = pkcs8 ? client.pkcs8Pem() : client.traditionalPem();
		Cluster cluster = load(kubeconfig(uri, "certificate-authority-data: " + ca.certificateBase64(), """
				client-certificate-data: %s
				client-key-data: %s""".formatted(client.certificateBase64(), TestPki.base64(key))));
		assertThat(get(cluster)).isEqualTo("200 ok");
		assertThat(this.seen.get("client")).isEqualTo("CN=admin");
		assertThat(cluster.credentials().authorization()).isNull();
	}

	@Test
	void clientCertificateNotSignedByServerCaIsStillPresented() throws IOException {
		// like client-go: the certificate is sent whatever CAs the server lists; the
		// server decides
		TestPki.Issued client = TestPki.issue(otherCa, "stranger", TestPki.KeyType.EC);
		URI uri = start(serverForIp, true);
		Cluster cluster = load(kubeconfig(uri, "certificate-authority-data: " + ca.certificateBase64(), """
				client-certificate-data: %s
				client-key-data: %s""".formatted(client.certificateBase64(), TestPki.base64(client.traditionalPem()))));
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> get(cluster));
	}

	@Test
	void presentsClientCertificateFromExecPlugin() throws IOException {
		TestPki.Issued client = TestPki.issue(ca, "exec-user", TestPki.KeyType.EC);
		URI uri = start(serverForIp, true);
		Corpus.write(this.dir.resolve("credential.json"), """
				{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
				 "status":{"clientCertificateData":"%s","clientKeyData":"%s"}}
				""".formatted(client.certificatePem().replace("\n", "\\n"), client.pkcs8Pem().replace("\n", "\\n")));
		Corpus.script(this.dir.resolve("plugin"), "cat \"$(dirname \"$0\")/credential.json\"");
		Cluster cluster = load(kubeconfig(uri, "certificate-authority-data: " + ca.certificateBase64(), """
				exec:
				  apiVersion: client.authentication.k8s.io/v1
				  command: ./plugin
				  interactiveMode: Never"""));
		assertThat(get(cluster)).isEqualTo("200 ok");
		assertThat(this.seen.get("client")).isEqualTo("CN=exec-user");
		assertThat(cluster.credentials().authorization()).isNull();
	}

	private static SslBundle bundle(TestPki.Issued trusted, TestPki.Issued client) {
		PemSslStore keyStore = (client != null)
				? PemSslStore.of(null, "client", null, List.of(client.certificate()), client.keys().getPrivate())
				: null;
		return SslBundle.of(new PemSslStoreBundle(keyStore, PemSslStore.of(List.of(trusted.certificate()), null)));
	}

	private Cluster cluster(URI server, SslBundle ssl, String tlsServerName) {
		return new Cluster(server, ssl, false, tlsServerName, Credentials.none(), proxy(), Duration.ofSeconds(5),
				"default", "test");
	}

	@Test
	void anApplicationsSslBundleSuppliesTrustAndTheClientCertificate() throws IOException {
		TestPki.Issued client = TestPki.issue(ca, "bundle-user", TestPki.KeyType.EC);
		URI uri = start(serverForIp, true);
		assertThat(get(cluster(uri, bundle(ca, client), null))).isEqualTo("200 ok");
		assertThat(this.seen.get("client")).isEqualTo("CN=bundle-user");
		assertThatExceptionOfType(IOException.class).as("a bundle that trusts another CA")
			.isThrownBy(() -> get(cluster(uri, bundle(otherCa, client), null)));
		assertThatExceptionOfType(IOException.class).as("no bundle: the JVM's trust store")
			.isThrownBy(() -> get(cluster(uri, null, null)));
	}

	@Test
	void tlsServerNameAppliesToAnApplicationsSslBundle() throws IOException {
		URI uri = start(serverForOtherName, false);
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> get(cluster(uri, bundle(ca, null), null)));
		assertThat(get(cluster(uri, bundle(ca, null), "api.internal.example"))).isEqualTo("200 ok");
		assertThat(this.seen).containsEntry("sni", "api.internal.example");
		assertThatExceptionOfType(IOException.class)
			.isThrownBy(() -> get(cluster(uri, bundle(ca, null), "somewhere.else.example")));
	}

}
