package dev.listwatch.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;

import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.Credentials;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which HTTP version the transport asks for.
 */
class TransportHttp2Tests {

	private static Cluster cluster(String server) {
		return new Cluster(URI.create(server), null, true, null, Credentials.none(), null, Duration.ofSeconds(1),
				"default", "test");
	}

	@Test
	void anHttpsServerIsAskedForHttp2WhenOn() {
		try (Transport transport = Transport.create(cluster("https://127.0.0.1:1"), true)) {
			assertThat(transport.protocol()).isEqualTo("HTTP/2");
			Http2Pool pool = transport.http2Pool();
			assertThat(pool).isNotNull();
			assertThat(pool.current().client.version()).isEqualTo(HttpClient.Version.HTTP_2);
			// without TLS 1.2 or 1.3 named, the JDK client offers no h2 by ALPN
			assertThat(pool.current().client.sslParameters().getProtocols()).contains("TLSv1.2");
		}
	}

	@Test
	void plainHttpAndHttp2OffStayOnHttp1() {
		try (Transport plain = Transport.create(cluster("http://127.0.0.1:1"), true);
				Transport off = Transport.create(cluster("https://127.0.0.1:1"), false)) {
			assertThat(plain.protocol()).isEqualTo("HTTP/1.1");
			assertThat(plain.http2Pool()).isNull();
			assertThat(off.protocol()).isEqualTo("HTTP/1.1");
			assertThat(off.http2Pool()).isNull();
		}
	}

	@Test
	void theStreamLimitIsToldApartFromOtherFailures() {
		assertThat(Http2Pool.refusedForStreams(new IOException("too many concurrent streams"))).isTrue();
		assertThat(Http2Pool.refusedForStreams(new IOException("Connection reset"))).isFalse();
		assertThat(Http2Pool.refusedForStreams(new IOException((String) null))).isFalse();
	}

	@Test
	void onlyWritesTheServerRefusesOnceDoneAreSentAgainAfterAGoaway() {
		java.util.function.Function<String, byte[]> bytes = (text) -> text
			.getBytes(java.nio.charset.StandardCharsets.UTF_8);
		org.springframework.http.HttpMethod post = org.springframework.http.HttpMethod.POST;
		org.springframework.http.HttpMethod put = org.springframework.http.HttpMethod.PUT;
		org.springframework.http.HttpMethod patch = org.springframework.http.HttpMethod.PATCH;
		org.springframework.http.HttpMethod delete = org.springframework.http.HttpMethod.DELETE;
		assertThat(ReadAheadRequestFactory.replayable(org.springframework.http.HttpMethod.GET, new byte[0])).isTrue();
		// a create never: with generateName it would make a second object
		assertThat(ReadAheadRequestFactory.replayable(post,
				bytes.apply("{\"metadata\":{\"generateName\":\"a-\",\"resourceVersion\":\"\"}}")))
			.isFalse();
		assertThat(ReadAheadRequestFactory.replayable(put, bytes.apply("{\"metadata\":{\"name\":\"a\"}}")))
			.as("a PUT without resourceVersion")
			.isFalse();
		assertThat(ReadAheadRequestFactory.replayable(put,
				bytes.apply("{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"7\"}}")))
			.isTrue();
		assertThat(ReadAheadRequestFactory.replayable(patch, bytes.apply("{\"data\":{\"a\":\"b\"}}")))
			.as("a merge patch without precondition")
			.isFalse();
		assertThat(ReadAheadRequestFactory.replayable(patch,
				bytes.apply("{\"metadata\":{\"resourceVersion\":\"7\"},\"data\":{\"a\":\"b\"}}")))
			.isTrue();
		assertThat(ReadAheadRequestFactory.replayable(patch, bytes.apply(
				"[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"7\"},{\"op\":\"add\",\"path\":\"/data/a\",\"value\":\"b\"}]")))
			.isTrue();
		assertThat(ReadAheadRequestFactory.replayable(patch, bytes.apply("apiVersion: v1\nkind: ConfigMap\n")))
			.as("an apply")
			.isFalse();
		assertThat(ReadAheadRequestFactory.replayable(delete, new byte[0])).as("a DELETE without preconditions")
			.isFalse();
		assertThat(ReadAheadRequestFactory.replayable(delete,
				bytes.apply("{\"kind\":\"DeleteOptions\",\"preconditions\":{\"uid\":\"u-1\"}}")))
			.isTrue();
	}

}
