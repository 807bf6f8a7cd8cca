package dev.listwatch.client;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

import dev.listwatch.KubernetesApiException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.mock.http.client.MockClientHttpResponse;
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
		javax.net.ssl.SSLHandshakeException handshake = new javax.net.ssl.SSLHandshakeException(
				"PKIX path building failed");
		handshake.initCause(new java.security.cert.CertificateException("PKIX path building failed"));
		assertThat(ApiErrors.describe(handshake)).isEqualTo("SSLHandshakeException: PKIX path building failed");
	}

	@ParameterizedTest
	@ValueSource(
			strings = { "86400", "3601", "9223372036854775807", "99999999999999999999", " 1000000000000000000000000 " })
	void aHugeRetryAfterIsClampedToAnHour(String value) {
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.RETRY_AFTER, value);
		Duration retryAfter = ApiErrors.retryAfter(headers, Clock.systemUTC());
		assertThat(retryAfter).isEqualTo(ApiErrors.MAX_RETRY_AFTER).isEqualTo(Duration.ofHours(1));
		assertThat(retryAfter.toMillis()).isEqualTo(3_600_000L);
	}

	@Test
	void aRetryAfterDateFarAheadIsClampedToAnHour() {
		Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.RETRY_AFTER,
				DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.parse("9999-12-31T23:59:59Z")));
		assertThat(ApiErrors.retryAfter(headers, clock)).isEqualTo(Duration.ofHours(1));
		headers.set(HttpHeaders.RETRY_AFTER,
				DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.parse("2026-01-01T00:00:30Z")));
		assertThat(ApiErrors.retryAfter(headers, clock)).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void aSmallRetryAfterIsKeptAndNonsenseIgnored() {
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.RETRY_AFTER, "7");
		assertThat(ApiErrors.retryAfter(headers, Clock.systemUTC())).isEqualTo(Duration.ofSeconds(7));
		headers.set(HttpHeaders.RETRY_AFTER, "3600");
		assertThat(ApiErrors.retryAfter(headers, Clock.systemUTC())).isEqualTo(Duration.ofHours(1));
		for (String nonsense : new String[] { "-5", "soon", "1e9", "" }) {
			headers.set(HttpHeaders.RETRY_AFTER, nonsense);
			assertThat(ApiErrors.retryAfter(headers, Clock.systemUTC())).as(nonsense).isNull();
		}
	}

	@Test
	void aThrottledResponseWithAHugeRetryAfterIsATypedException() {
		MockClientHttpResponse response = new MockClientHttpResponse(
				"{\"kind\":\"Status\",\"reason\":\"TooManyRequests\",\"code\":429}".getBytes(StandardCharsets.UTF_8),
				HttpStatus.TOO_MANY_REQUESTS);
		response.getHeaders().set(HttpHeaders.RETRY_AFTER, "9223372036854775807");
		KubernetesApiException ex = ApiErrors.fromResponse("GET /api/v1/pods", response, Clock.systemUTC());
		assertThat(ex.kind()).isEqualTo(KubernetesApiException.Kind.TOO_MANY_REQUESTS);
		assertThat(ex.retryAfter()).isEqualTo(Duration.ofHours(1));
		assertThat(ex.getMessage()).contains("retry after 3600000 ms");
	}

	@Test
	void anExceptionWithAHugeRetryAfterStillHasAMessage() {
		KubernetesApiException ex = KubernetesApiException.of("GET /api/v1/pods",
				new dev.listwatch.Status(429, "TooManyRequests", null), Duration.ofSeconds(Long.MAX_VALUE));
		assertThat(ex.getMessage()).startsWith("GET /api/v1/pods failed: 429 TooManyRequests (retry after");
	}

}
