package dev.listwatch.client;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link DeferredSslContext}: once asked for TLS, the JVM's default context exactly.
 */
class DeferredSslContextTests {

	@Test
	void itsEnginesAreTheDefaultContextsClientEngines() throws Exception {
		SSLContext deferred = new DeferredSslContext();
		SSLEngine engine = deferred.createSSLEngine("api.example", 6443);
		SSLEngine reference = SSLContext.getDefault().createSSLEngine("api.example", 6443);
		assertThat(engine.getPeerHost()).isEqualTo("api.example");
		assertThat(engine.getPeerPort()).isEqualTo(6443);
		assertThat(engine.getEnabledProtocols()).containsExactly(reference.getEnabledProtocols());
		assertThat(engine.getEnabledCipherSuites()).containsExactly(reference.getEnabledCipherSuites());
		assertThat(deferred.getDefaultSSLParameters().getProtocols())
			.containsExactly(SSLContext.getDefault().getDefaultSSLParameters().getProtocols());
		assertThat(deferred.getClientSessionContext()).isSameAs(SSLContext.getDefault().getClientSessionContext());
	}

	@Test
	void itCannotBeInitializedAgain() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> new DeferredSslContext().init(null, null, null));
	}

	@Test
	void theParametersGivenBesideItLeaveTheEnginesDefaultsAlone() throws Exception {
		SSLEngine engine = new DeferredSslContext().createSSLEngine();
		String[] protocols = engine.getEnabledProtocols();
		String[] suites = engine.getEnabledCipherSuites();
		engine.setSSLParameters(DeferredSslContext.parameters());
		assertThat(engine.getEnabledProtocols()).containsExactly(protocols);
		assertThat(engine.getEnabledCipherSuites()).containsExactly(suites);
	}

}
