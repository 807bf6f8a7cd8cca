package dev.listwatch.client;

/**
 * Every TLS guarantee of {@link TransportTlsTests} on the JDK client asking for HTTP/2:
 * its SSL parameters (which name TLS 1.2 and 1.3, so that the client offers h2 by ALPN)
 * keep the CA, {@code tls-server-name}, {@code insecure-skip-tls-verify}, client
 * certificates and the SSL bundle's protocols and ciphers; the test server speaks
 * HTTP/1.1 only, so the client also falls back to it.
 */
class TransportTlsOverHttp2Tests extends TransportTlsTests {

	@Override
	boolean http2() {
		return true;
	}

}
