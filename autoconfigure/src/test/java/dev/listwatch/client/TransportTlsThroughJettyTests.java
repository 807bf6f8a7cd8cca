package dev.listwatch.client;

import java.io.IOException;

import dev.listwatch.cluster.AuthenticatingProxy;
import dev.listwatch.cluster.Cluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every TLS guarantee of {@link TransportTlsTests} on Jetty's client: each cluster is
 * reached through an {@code http://} proxy with credentials (which the JDK client cannot
 * use for an {@code https} server), and the API server's TLS runs inside the proxy's
 * CONNECT tunnel ({@code tls-server-name} as SNI and as the name checked,
 * {@code insecure-skip-tls-verify}, the CA, client certificates, an SSL bundle).
 */
class TransportTlsThroughJettyTests extends TransportTlsTests {

	private AuthenticatingProxy proxy;

	@BeforeEach
	void startProxy() throws IOException {
		this.proxy = new AuthenticatingProxy("tls-user", "tls-pw");
	}

	@AfterEach
	void everyRequestWentThroughTheProxy() throws IOException {
		assertThat(this.proxy.requests()).as("CONNECTs with the proxy credentials")
			.isNotEmpty()
			.allMatch((head) -> head.startsWith("CONNECT ") && head.contains("Proxy-Authorization: Basic "));
		this.proxy.close();
	}

	@Override
	Cluster.Proxy proxy() {
		return new Cluster.Proxy("127.0.0.1", this.proxy.port(), "tls-user", "tls-pw");
	}

}
