package dev.listwatch.client;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;

import org.junit.jupiter.api.Test;

import org.springframework.web.client.ResourceAccessException;

import static org.assertj.core.api.Assertions.assertThat;

class ApiErrorsTests {

	@Test
	void aConnectionFailureNamesEachCauseOnceWithoutSpringsWrapper() {
		ConnectException refused = new ConnectException("Connection refused");
		refused.initCause(new ClosedChannelException());
		ResourceAccessException wrapped = new ResourceAccessException("I/O error on GET request", refused);
		assertThat(ApiErrors.connection("GET https://10.0.0.1:6443/api/v1", wrapped).getMessage())
			.isEqualTo("GET https://10.0.0.1:6443/api/v1 failed: ConnectException: Connection refused"
					+ " <- ClosedChannelException");
		assertThat(ApiErrors.describe(new UncheckedIOException(new java.io.EOFException("truncated"))))
			.isEqualTo("EOFException: truncated");
		javax.net.ssl.SSLHandshakeException handshake = new javax.net.ssl.SSLHandshakeException("PKIX path building failed");
		handshake.initCause(new java.security.cert.CertificateException("PKIX path building failed"));
		assertThat(ApiErrors.describe(handshake)).isEqualTo("SSLHandshakeException: PKIX path building failed");
	}

}
