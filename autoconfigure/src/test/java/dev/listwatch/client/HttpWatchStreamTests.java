package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.KubernetesObject;
import dev.listwatch.WatchEvent;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpStatus;
import org.springframework.mock.http.client.MockClientHttpResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A watch stream over a response body: an event larger than {@code max-event-size} is
 * handed up as an object that cannot be held (when its first bytes say which object it
 * is) and the watch goes on with the next event, instead of failing on it for ever.
 */
class HttpWatchStreamTests {

	private static final int MAX = 4096;

	private static final int[] CHUNKS = { 1, 7, 100, 1000, Integer.MAX_VALUE };

	@Test
	void anOversizedEventIsHandedUpByItsMetadataAndTheWatchGoesOn() {
		String big = configMap("big", 11, "x{\\\"}[".repeat(20_000));
		String stream = event("MODIFIED", configMap("a", 10, "1")) + event("MODIFIED", big)
				+ event("DELETED", configMap("c", 12, "3"));
		for (int chunk : CHUNKS) {
			List<WatchEvent<KubernetesObject>> events = events(stream, chunk);
			assertThat(events).as("chunk %d", chunk)
				.extracting((e) -> e.type() + " " + e.meta().key() + " " + e.resourceVersion())
				.containsExactly("MODIFIED ns/a 10", "MODIFIED ns/big 11", "DELETED ns/c 12");
			WatchEvent<KubernetesObject> oversized = events.get(1);
			assertThat(oversized.object()).isNull();
			assertThat(oversized.unbindable().meta().uid()).isEqualTo("uid-big");
			assertThat(oversized.unbindable().path()).isEmpty();
			assertThat(oversized.unbindable().targetType()).isEqualTo(KubernetesObject.class.getName());
			assertThat(oversized.unbindable().reason()).isEqualTo("larger than max-event-size (4096 bytes)");
			assertThat(events.get(2).object().at("/data/v").asString()).isEqualTo("3");
		}
	}

	@Test
	void anOversizedEventCutInsideManagedFieldsIsHandedUpByItsMetadata() {
		String big = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"big\",\"namespace\":\"ns\","
				+ "\"uid\":\"uid-big\",\"resourceVersion\":\"11\",\"labels\":{\"app\":\"web\"},\"managedFields\":["
				+ "{\"manager\":\"m\",\"fieldsV1\":{\"f:data\":{}}},".repeat(500) + "{}]},\"data\":{}}";
		String stream = event("ADDED", big) + event("MODIFIED", configMap("a", 12, "1"));
		for (int chunk : CHUNKS) {
			assertThat(events(stream, chunk)).as("chunk %d", chunk)
				.extracting((e) -> e.type() + " " + e.meta().key() + " " + e.meta().labels() + " "
						+ (e.unbindable() != null))
				.containsExactly("ADDED ns/big {app=web} true", "MODIFIED ns/a {} false");
		}
	}

	@Test
	void anOversizedEventWhoseFirstBytesDoNotTellItsObjectFailsTheWatch() {
		// metadata after a huge data
		String late = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"v\":\"" + "x".repeat(10_000)
				+ "\"},\"metadata\":{\"name\":\"late\",\"namespace\":\"ns\",\"resourceVersion\":\"11\"}}";
		// the type after the object
		String typeLast = "{\"object\":" + configMap("t", 11, "x".repeat(10_000)) + ",\"type\":\"MODIFIED\"}\n";
		for (String bad : List.of(event("MODIFIED", late), typeLast,
				event("BOOKMARK", configMap("b", 11, "x".repeat(10_000))),
				event("ERROR", "{\"kind\":\"Status\",\"message\":\"" + "x".repeat(10_000) + "\",\"code\":500}"))) {
			for (int chunk : CHUNKS) {
				HttpWatchStream<KubernetesObject> watch = watch(event("ADDED", configMap("a", 10, "1")) + bad, chunk);
				assertThat(watch.next().meta().key()).isEqualTo("ns/a");
				assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(watch::hasNext)
					.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.DECODE))
					.withMessageContaining("larger than the limit of 4096 bytes");
				assertThat(watch.isClosed()).isTrue();
			}
		}
	}

	@Test
	void aStreamThatEndsInsideTheSkippedRestIsADroppedConnection() {
		String big = event("MODIFIED", configMap("big", 11, "x".repeat(20_000)));
		for (int chunk : CHUNKS) {
			HttpWatchStream<KubernetesObject> watch = watch(big.substring(0, 10_000), chunk);
			// the head is handed up as soon as it is read; the rest is skipped on the
			// next read
			assertThat(watch.next().unbindable()).isNotNull();
			assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(watch::hasNext)
				.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CONNECTION))
				.withMessageContaining("truncated");
		}
	}

	@Test
	void anErrorEventWithoutAStatusFailsTheWatchWithDecode() {
		HttpWatchStream<KubernetesObject> watch = watch(
				"{\"type\":\"ERROR\",\"object\":{\"code\":410,\"details\":{\"a\" 1}}}\n", Integer.MAX_VALUE);
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(watch::hasNext)
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.DECODE))
			.withMessageContaining("an ERROR watch event whose object is not a Status");
	}

	private static List<WatchEvent<KubernetesObject>> events(String stream, int chunk) {
		List<WatchEvent<KubernetesObject>> events = new ArrayList<>();
		try (HttpWatchStream<KubernetesObject> watch = watch(stream, chunk)) {
			watch.forEachRemaining(events::add);
		}
		return events;
	}

	private static HttpWatchStream<KubernetesObject> watch(String stream, int chunk) {
		JsonFrameReaderTests.Chunked body = new JsonFrameReaderTests.Chunked(stream.getBytes(StandardCharsets.UTF_8),
				chunk);
		MockClientHttpResponse response = new MockClientHttpResponse(body, HttpStatus.OK);
		return new HttpWatchStream<>("GET /api/v1/configmaps?watch=1", response, body,
				new ObjectDecoder<>(KubernetesObject.class, JsonMapper.shared(), false), MAX);
	}

	static String configMap(String name, long resourceVersion, String value) {
		return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
				+ "\",\"namespace\":\"ns\",\"uid\":\"uid-" + name + "\",\"resourceVersion\":\"" + resourceVersion
				+ "\"},\"data\":{\"v\":\"" + value + "\"}}";
	}

	static String event(String type, String object) {
		return "{\"type\":\"" + type + "\",\"object\":" + object + "}\n";
	}

}
