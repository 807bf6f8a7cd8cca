package dev.listwatch.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectList;
import dev.listwatch.WatchEvent;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class ObjectDecoderTests {

	private static final String POD = """
			{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"shop","uid":"u-1",\
			"resourceVersion":"42","labels":{"app":"web","tier":"front"},"managedFields":[{"manager":"kubectl",\
			"fieldsV1":{"f:metadata":{"f:labels":{}}}}],"annotations":{"a":"{\\"x\\":1}"}},"spec":{"containers":[]}}""";

	private final ObjectDecoder<KubernetesObject> decoder = new ObjectDecoder<>(KubernetesObject.class,
			JsonMapper.shared(), false);

	@Test
	void decodesAnEventReadingMetadataAndDroppingManagedFields() {
		WatchEvent<KubernetesObject> event = event("{\"type\":\"MODIFIED\",\"object\":" + POD + "}");
		assertThat(event.type()).isEqualTo(WatchEvent.Type.MODIFIED);
		KubernetesObject pod = event.object();
		assertThat(pod.kind()).isEqualTo("Pod");
		assertThat(pod.apiVersion()).isEqualTo("v1");
		assertThat(pod.key()).isEqualTo("shop/web-1");
		assertThat(pod.uid()).isEqualTo("u-1");
		assertThat(pod.resourceVersion()).isEqualTo("42");
		assertThat(pod.labels()).isEqualTo(Map.of("app", "web", "tier", "front"));
		assertThat(pod.json()).doesNotContain("managedFields").doesNotContain("kubectl");
		assertThat(pod.toTree()).isEqualTo(JsonMapper.shared()
			.readTree(POD.replaceFirst(
					",\"managedFields\":\\[\\{\"manager\":\"kubectl\",\"fieldsV1\":\\{\"f:metadata\":\\{\"f:labels\":\\{}}}}]",
					"")));
		assertThat(event.meta()).isEqualTo(pod.metadata());
	}

	@Test
	void cutsManagedFieldsWhereverTheyStandInMetadata() {
		String first = "{\"metadata\":{\"managedFields\":[{}] , \"name\":\"a\"}}";
		String only = "{\"metadata\":{ \"managedFields\":[] }}";
		assertThat(event("{\"type\":\"ADDED\",\"object\":" + first + "}").object().json())
			.isEqualTo("{\"metadata\":{ \"name\":\"a\"}}");
		assertThat(event("{\"type\":\"ADDED\",\"object\":" + only + "}").object().toTree())
			.isEqualTo(JsonMapper.shared().readTree("{\"metadata\":{}}"));
	}

	@Test
	void keepsManagedFieldsWhenAsked() {
		ObjectDecoder<KubernetesObject> keeping = new ObjectDecoder<>(KubernetesObject.class, JsonMapper.shared(),
				true);
		byte[] bytes = ("{\"type\":\"ADDED\",\"object\":" + POD + "}").getBytes(StandardCharsets.UTF_8);
		assertThat(keeping.decodeEvent(bytes, 0, bytes.length).object().json()).isEqualTo(POD);
	}

	@Test
	void readsTypeAfterObjectAndBindsUserTypes() {
		ObjectDecoder<PodView> typed = new ObjectDecoder<>(PodView.class, JsonMapper.shared(), false);
		byte[] bytes = ("{\"object\":" + POD + ",\"type\":\"ADDED\"}").getBytes(StandardCharsets.UTF_8);
		WatchEvent<PodView> event = typed.decodeEvent(bytes, 0, bytes.length);
		assertThat(event.type()).isEqualTo(WatchEvent.Type.ADDED);
		assertThat(event.object().kind()).isEqualTo("Pod");
		assertThat(event.meta().key()).isEqualTo("shop/web-1");
	}

	@Test
	void reportsAnObjectThatDoesNotBindWithoutFailingTheEvent() {
		ObjectDecoder<Strict> strict = new ObjectDecoder<>(Strict.class, JsonMapper.shared(), false);
		byte[] bytes = ("{\"type\":\"MODIFIED\",\"object\":" + POD + "}").getBytes(StandardCharsets.UTF_8);
		WatchEvent<Strict> event = strict.decodeEvent(bytes, 0, bytes.length);
		assertThat(event.type()).isEqualTo(WatchEvent.Type.MODIFIED);
		assertThat(event.object()).isNull();
		assertThat(event.meta().key()).isEqualTo("shop/web-1");
		assertThat(event.resourceVersion()).isEqualTo("42");
		assertThat(event.unbindable()).isNotNull();
		assertThat(event.unbindable().targetType()).isEqualTo(Strict.class.getName());
		assertThat(event.unbindable().path()).isEqualTo("/spec");
		assertThat(event.unbindable().reason()).isEqualTo("a value of the wrong shape for int");
		byte[] list = ("{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"9\"},\"items\":[" + POD + "]}")
			.getBytes(StandardCharsets.UTF_8);
		ObjectList<Strict> page = strict.decodeList(list, 0, list.length);
		assertThat(page.objects()).isEmpty();
		assertThat(page.items().stream().map(ObjectList.Item::meta).toList()).isEmpty();
		assertThat(page.resourceVersion()).isEqualTo("9");
		assertThat(page.unbindable()).singleElement().isEqualTo(event.unbindable());
	}

	@Test
	void decodesBookmarksAndTheEndOfInitialEvents() {
		WatchEvent<KubernetesObject> plain = event(
				"{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"resourceVersion\":\"77\"}}}");
		assertThat(plain.type()).isEqualTo(WatchEvent.Type.BOOKMARK);
		assertThat(plain.resourceVersion()).isEqualTo("77");
		assertThat(plain.object()).isNull();
		assertThat(plain.initialEventsEnd()).isFalse();
		WatchEvent<KubernetesObject> end = event(
				"{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"78\","
						+ "\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}");
		assertThat(end.initialEventsEnd()).isTrue();
	}

	@Test
	void decodesErrorEventsToTheirStatus() {
		WatchEvent<KubernetesObject> error = event(
				"{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
						+ "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: 1 (5)\",\"reason\":\"Expired\",\"code\":410}}");
		assertThat(error.type()).isEqualTo(WatchEvent.Type.ERROR);
		assertThat(error.status().code()).isEqualTo(410);
		assertThat(error.status().reason()).isEqualTo("Expired");
		assertThat(error.status().message()).contains("too old resource version");
	}

	@Test
	void refusesAnErrorEventWhoseObjectIsNotAStatus() {
		// the skipping scan does not check literals inside the object: the Status
		// decoding finds it broken
		assertThatExceptionOfType(DecodeException.class)
			.isThrownBy(() -> event("{\"type\":\"ERROR\",\"object\":{\"code\":410,\"details\":{\"a\" tru}}}"))
			.withMessageContaining("an ERROR watch event whose object is not a Status");
		assertThatExceptionOfType(DecodeException.class)
			.isThrownBy(() -> event("{\"type\":\"ERROR\",\"object\":\"Expired\"}"))
			.withMessageContaining("an ERROR watch event without an \"object\"");
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> event("{\"type\":\"ERROR\",\"object\":null}"))
			.withMessageContaining("an ERROR watch event without an \"object\"");
	}

	@Test
	void refusesUnknownTypesAndBrokenEvents() {
		assertThatExceptionOfType(DecodeException.class)
			.isThrownBy(() -> event("{\"type\":\"EXPLODED\",\"object\":{}}"))
			.withMessageContaining("unknown watch event type \"EXPLODED\"");
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> event("{\"type\":\"ADDED\"}"))
			.withMessageContaining("without an \"object\"");
		assertThatExceptionOfType(DecodeException.class)
			.isThrownBy(() -> event("{\"type\":\"ADDED\",\"object\":{\"a\":tru}}"))
			.withMessageContaining("not valid JSON");
	}

	@Test
	void decodesAListPageAndRefusesWhatIsNotAList() {
		String list = "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"9\",\"continue\":\"tok\","
				+ "\"remainingItemCount\":3},\"items\":[" + POD + "," + POD.replace("web-1", "web-2") + "]}";
		byte[] bytes = list.getBytes(StandardCharsets.UTF_8);
		ObjectList<KubernetesObject> page = this.decoder.decodeList(bytes, 0, bytes.length);
		assertThat(page.resourceVersion()).isEqualTo("9");
		assertThat(page.continueToken()).isEqualTo("tok");
		assertThat(page.hasMore()).isTrue();
		assertThat(page.remainingItemCount()).isEqualTo(3);
		assertThat(page.objects()).extracting(KubernetesObject::name).containsExactly("web-1", "web-2");
		assertThat(page.items().stream().map(ObjectList.Item::meta).toList()).extracting(dev.listwatch.ObjectMeta::key)
			.containsExactly("shop/web-1", "shop/web-2");
		byte[] notAList = "{\"kind\":\"Pod\",\"metadata\":{}}".getBytes(StandardCharsets.UTF_8);
		assertThatExceptionOfType(DecodeException.class)
			.isThrownBy(() -> this.decoder.decodeList(notAList, 0, notAList.length))
			.withMessageContaining("expected a list with \"items\" but got a Pod");
	}

	@Test
	void decodesAListAsItStreamsInWhereverItsReadsEnd() throws IOException {
		String items = POD + "," + POD.replace("web-1", "web-2") + " ,\n  " + POD.replace("web-1", "web-3");
		String metadata = "\"metadata\":{\"resourceVersion\":\"9\",\"continue\":\"tok\",\"remainingItemCount\":3}";
		List<String> lists = List.of(
				"{\"kind\":\"PodList\",\"apiVersion\":\"v1\"," + metadata + ",\"items\":[" + items + "]}",
				"{\"kind\":\"PodList\",\"items\":[" + items + "]," + metadata + ",\"apiVersion\":\"v1\"}",
				"\n{\n  \"kind\": \"PodList\",\n  \"items\": [\n    " + items + "\n  ],\n  " + metadata + "\n}\n");
		for (String list : lists) {
			byte[] bytes = list.getBytes(StandardCharsets.UTF_8);
			for (int chunk : new int[] { 1, 7, 100, Integer.MAX_VALUE }) {
				ObjectList<KubernetesObject> page = this.decoder
					.decodeList(new JsonFrameReaderTests.Chunked(bytes, chunk), 1 << 20);
				assertThat(page.objects()).as("chunk %d of %s", chunk, list)
					.extracting(KubernetesObject::name)
					.containsExactly("web-1", "web-2", "web-3");
				assertThat(page.objects().get(2).json()).doesNotContain("managedFields");
				assertThat(page.objects().get(0).toTree())
					.isEqualTo(event("{\"type\":\"ADDED\",\"object\":" + POD + "}").object().toTree());
				assertThat(page.items().stream().map(ObjectList.Item::meta).toList())
					.extracting(dev.listwatch.ObjectMeta::key)
					.containsExactly("shop/web-1", "shop/web-2", "shop/web-3");
				assertThat(page.resourceVersion()).isEqualTo("9");
				assertThat(page.continueToken()).isEqualTo("tok");
				assertThat(page.remainingItemCount()).isEqualTo(3);
				assertThat(this.decoder.decodeList(bytes, 0, bytes.length)).isEqualTo(page);
			}
		}
	}

	@Test
	void decodesEmptyListsAndRefusesBrokenOnes() throws IOException {
		for (String empty : List.of("{\"items\":[],\"metadata\":{\"resourceVersion\":\"3\"}}",
				"{\"metadata\":{\"resourceVersion\":\"3\"},\"items\":null}",
				" { \"items\" : [ ] , \"metadata\":{\"resourceVersion\":\"3\"} } ")) {
			ObjectList<KubernetesObject> page = list(empty, 1 << 20);
			assertThat(page.objects()).as(empty).isEmpty();
			assertThat(page.resourceVersion()).isEqualTo("3");
		}
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> list("{\"items\":[1]}", 100))
			.withMessageContaining("expected an object in \"items\"");
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> list("{\"items\":[{}{}]}", 100))
			.withMessageContaining("expected ','");
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> list("[]", 100))
			.withMessageContaining("a list is not valid JSON: expected '{'");
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> list("{\"items\":[]}]", 100))
			.withMessageContaining("expected the end after the list");
		assertThatExceptionOfType(java.io.EOFException.class).isThrownBy(() -> list("{\"items\":[{\"a\":", 100))
			.withMessage("the stream ended inside a list item after 5 bytes (truncated)");
		assertThatExceptionOfType(java.io.EOFException.class).isThrownBy(() -> list("{\"items\":[{}", 100))
			.withMessage("the stream ended inside a list after 0 bytes (truncated)");
		byte[] truncated = "{\"items\":[{}".getBytes(StandardCharsets.UTF_8);
		assertThatExceptionOfType(DecodeException.class)
			.isThrownBy(() -> this.decoder.decodeList(truncated, 0, truncated.length))
			.withMessageContaining("truncated");
		// a member other than an item over the limit
		assertThatExceptionOfType(JsonFrameReader.MalformedFrameException.class)
			.isThrownBy(() -> list("{\"x\":\"" + "x".repeat(200) + "\",\"items\":[]}", 100))
			.withMessageContaining("A list is larger than the limit of 100 bytes");
	}

	@Test
	void anItemOverTheLimitIsUnbindableEvenWhenTheLimitCutsItsManagedFields() throws IOException {
		String big = POD.replace("[{\"manager\":\"kubectl\",",
				"[" + "{\"manager\":\"m\"},".repeat(100) + "{\"manager\":\"kubectl\",");
		assertThat(big.indexOf("managedFields")).isLessThan(200);
		assertThat(big.length()).isGreaterThan(1000);
		for (int chunk : new int[] { 1, 13, Integer.MAX_VALUE }) {
			ObjectList<KubernetesObject> page = this.decoder.decodeList(
					new JsonFrameReaderTests.Chunked(("{\"items\":[" + big + "," + POD.replace("web-1", "web-2") + "]}")
						.getBytes(StandardCharsets.UTF_8), chunk),
					400);
			assertThat(page.objects()).extracting(KubernetesObject::name)
				.as("chunk %d", chunk)
				.containsExactly("web-2");
			assertThat(page.unbindable()).singleElement().satisfies((u) -> {
				assertThat(u.meta()).isEqualTo(new dev.listwatch.ObjectMeta("shop", "web-1", "u-1", "42",
						Map.of("app", "web", "tier", "front")));
				assertThat(u.reason()).isEqualTo("larger than max-event-size (400 bytes)");
			});
		}
	}

	private ObjectList<KubernetesObject> list(String json, int max) throws IOException {
		return this.decoder.decodeList(new JsonFrameReaderTests.Chunked(json.getBytes(StandardCharsets.UTF_8), 3), max);
	}

	@Test
	void sharesRepeatedStringsAcrossObjects() {
		KubernetesObject a = event("{\"type\":\"ADDED\",\"object\":" + POD + "}").object();
		KubernetesObject b = event("{\"type\":\"ADDED\",\"object\":" + POD.replace("web-1", "web-2") + "}").object();
		assertThat(a.namespace()).isSameAs(b.namespace());
		assertThat(a.kind()).isSameAs(b.kind());
	}

	private WatchEvent<KubernetesObject> event(String json) {
		byte[] bytes = ("xx" + json + "yy").getBytes(StandardCharsets.UTF_8);
		return this.decoder.decodeEvent(bytes, 2, bytes.length - 4);
	}

	record PodView(String kind, Map<String, Object> metadata) {
	}

	/** A type whose {@code spec} must be a number, which no Pod's is. */
	record Strict(int spec) {
	}

}
