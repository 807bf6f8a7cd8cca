package dev.listwatch.client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.listwatch.ObjectList;
import dev.listwatch.ObjectMeta;
import dev.listwatch.WatchEvent;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A typed watch binds its objects leanly ({@link TypedBinding}): compact read-only
 * untyped maps and lists, shared strings, the metadata the decoder read; and the objects
 * are equal to what Jackson alone binds from the same JSON.
 */
class TypedBindingTests {

	private static final ObjectMapper MAPPER = JsonMapper.shared();

	@Test
	void aRealPodBindsEqualToJacksonsBinding() throws IOException {
		String json = pod("web-1", "ns", "11");
		WatchEvent<Pod> event = event(decoder(Pod.class, MAPPER), json);
		Pod expected = MAPPER.readValue(json, Pod.class);
		assertThat(event.object()).isEqualTo(expected);
		assertThat(expected).isEqualTo(event.object());
		assertThat(event.object()).hasSameHashCodeAs(expected);
		// in the order of the JSON (the metadata's labels are a Map with no order: the
		// decoder's)
		assertThat(event.object().spec()).hasToString(expected.spec().toString());
		assertThat(event.object().status()).hasToString(expected.status().toString());
		assertThat(event.object().spec()).isInstanceOf(CompactMap.class);
		assertThat(event.object().status()).isInstanceOf(CompactMap.class);
		assertThat(event.object().spec().get("containers")).isInstanceOf(CompactList.class);
		assertThat(((List<?>) event.object().spec().get("containers")).get(0)).isInstanceOf(CompactMap.class)
			.isEqualTo(((List<?>) expected.spec().get("containers")).get(0));
	}

	@Test
	void theMetadataIsTheInstanceTheDecoderReadWhenTheTypeHoldsItAsObjectMeta() throws IOException {
		String json = pod("web-1", "ns", "11");
		WatchEvent<Pod> event = event(decoder(Pod.class, MAPPER), json);
		assertThat(event.object().metadata()).isSameAs(event.meta())
			.isEqualTo(MAPPER.readValue(json, Pod.class).metadata());
		assertThat(event.object().metadata().labels()).containsEntry("tier", "frontend");
	}

	@Test
	void anObjectMetaBelowTheTopIsBoundFromItsOwnJson() {
		String json = "{\"apiVersion\":\"v1\",\"kind\":\"Thing\",\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
				+ "\"resourceVersion\":\"3\"},\"spec\":{\"template\":{\"metadata\":{\"name\":\"inner\","
				+ "\"labels\":{\"x\":\"y\"}}}}}";
		WatchEvent<Templated> event = event(decoder(Templated.class, MAPPER), json);
		assertThat(event.object().metadata()).isSameAs(event.meta());
		assertThat(event.object().spec().template().metadata())
			.isEqualTo(new ObjectMeta(null, "inner", null, null, Map.of("x", "y")));
		assertThat(event.object()).isEqualTo(MAPPER.readValue(json, Templated.class));
	}

	@Test
	void stringValuesThatRepeatAcrossObjectsAreShared() throws IOException {
		ObjectDecoder<Pod> decoder = decoder(Pod.class, MAPPER);
		Pod one = event(decoder, pod("web-1", "ns", "11")).object();
		Pod two = event(decoder, pod("web-2", "ns", "12")).object();
		assertThat(one.spec().get("nodeName")).isEqualTo(two.spec().get("nodeName"))
			.isSameAs(two.spec().get("nodeName"));
		Map<?, ?> container = (Map<?, ?>) ((List<?>) two.spec().get("containers")).get(0);
		Map<?, ?> first = (Map<?, ?>) ((List<?>) one.spec().get("containers")).get(0);
		Object port = ((Map<?, ?>) ((List<?>) container.get("ports")).get(0)).get("containerPort");
		assertThat(port).isEqualTo(8080)
			.isSameAs(((Map<?, ?>) ((List<?>) first.get("ports")).get(0)).get("containerPort"));
		assertThat(container.get("image")).isSameAs(first.get("image"));
		// maps of the same shape share their keys
		assertThat(List.copyOf(container.keySet())).isEqualTo(List.copyOf(first.keySet()));
		assertThat(container.keySet().iterator().next()).isSameAs(first.keySet().iterator().next());
	}

	@Test
	void untypedMapsAndListsAreReadOnly() throws IOException {
		Pod pod = event(decoder(Pod.class, MAPPER), pod("web-1", "ns", "11")).object();
		Map<String, Object> spec = pod.spec();
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> spec.put("x", 1));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> spec.remove("nodeName"));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(spec::clear);
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> spec.entrySet().iterator().next().setValue("x"));
		@SuppressWarnings("unchecked")
		List<Object> containers = (List<Object>) spec.get("containers");
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> containers.add("x"));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> containers.set(0, "x"));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> containers.remove(0));
	}

	@Test
	void everyKindOfUntypedValueBindsAsJacksonBindsIt() {
		StringBuilder many = new StringBuilder("{");
		for (int i = 0; i < 40; i++) {
			many.append((i > 0) ? "," : "").append("\"k").append(i).append("\":").append(i);
		}
		many.append('}');
		String json = "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"},\"spec\":{\"int\":1,\"long\":12345678901,"
				+ "\"big\":123456789012345678901234567890,\"double\":1.5,\"exp\":1e3,\"true\":true,\"false\":false,"
				+ "\"null\":null,\"string\":\"s\",\"empty\":{},\"emptyList\":[],\"nested\":[[1,[2]],{\"a\":[null,{}]}],"
				+ "\"dup\":1,\"other\":2,\"dup\":3,\"many\":" + many + ",\"escaped\":\"a\\\"b\\u00e9\"},"
				+ "\"any\":[1,\"two\",{\"three\":3}],\"list\":[{\"a\":1},[2],\"3\",null]}";
		WatchEvent<Loose> event = event(decoder(Loose.class, MAPPER), json);
		Loose expected = MAPPER.readValue(json, Loose.class);
		assertThat(event.object()).isEqualTo(expected).hasSameHashCodeAs(expected).hasToString(expected.toString());
		Map<String, Object> spec = event.object().spec();
		assertThat(spec.get("big")).isEqualTo(new BigInteger("123456789012345678901234567890"));
		assertThat(spec.get("long")).isEqualTo(12345678901L);
		assertThat(spec.get("double")).isEqualTo(1.5d);
		assertThat(spec).containsKey("null").containsEntry("null", null).containsEntry("dup", 3);
		assertThat(spec.keySet()).containsSubsequence("int", "dup", "other", "many");
		@SuppressWarnings("unchecked")
		Map<String, Object> manyMap = (Map<String, Object>) spec.get("many");
		assertThat(manyMap).isInstanceOf(CompactMap.class).hasSize(40);
		for (int i = 0; i < 40; i++) {
			assertThat(manyMap.get("k" + i)).isEqualTo(i);
		}
		assertThat(manyMap.get("k40")).isNull();
		assertThat(manyMap.containsKey(null)).isFalse();
		assertThat(event.object().any()).isInstanceOf(CompactList.class);
		assertThat(event.object().list()).isInstanceOf(CompactList.class).containsNull();
	}

	@Test
	void aMapPropertyWithJacksonAnnotationsBindsAsJacksonBindsIt() {
		String json = "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"},\"spec\":{\"a\":null,\"b\":2}}";
		WatchEvent<SkippingNulls> event = event(decoder(SkippingNulls.class, MAPPER), json);
		assertThat(event.object().spec()).isEqualTo(Map.of("b", 2)).isInstanceOf(LinkedHashMap.class);
		assertThat(event.object()).isEqualTo(MAPPER.readValue(json, SkippingNulls.class));
	}

	@Test
	void theMappersOwnDeserializersAndFeaturesWinOverTheLeanOnes() {
		SimpleModule module = new SimpleModule("test");
		module.addDeserializer(Object.class, new ValueDeserializer<Object>() {
			@Override
			public Object deserialize(JsonParser p, DeserializationContext ctxt) {
				p.skipChildren();
				return "custom";
			}
		});
		ObjectMapper custom = JsonMapper.builder().addModule(module).build();
		String json = "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"},\"spec\":{\"a\":[1]},\"any\":{\"b\":1},"
				+ "\"list\":[{\"c\":1}]}";
		Loose bound = event(decoder(Loose.class, custom), json).object();
		assertThat(bound.any()).isEqualTo("custom");
		assertThat(bound).isEqualTo(custom.readValue(json, Loose.class));
		ObjectMapper arrays = JsonMapper.builder().enable(DeserializationFeature.USE_JAVA_ARRAY_FOR_JSON_ARRAY).build();
		Loose withArrays = event(decoder(Loose.class, arrays), json).object();
		assertThat(withArrays.spec().get("a")).isInstanceOf(Object[].class);
		assertThat(withArrays.spec()).isInstanceOf(LinkedHashMap.class);
	}

	@Test
	void aMapperThatFailsOnUnknownPropertiesFailsOnThoseOfTheMetadataAsBefore() throws IOException {
		ObjectMapper strict = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
		WatchEvent<Pod> event = event(decoder(Pod.class, strict), pod("web-1", "ns", "11"));
		assertThat(event.object()).isNull();
		assertThat(event.unbindable().path()).isEqualTo("/metadata/generateName");
		assertThat(event.unbindable().reason()).isEqualTo("unknown property");
	}

	@Test
	void eventsOneAfterAnotherEachBindFromTheirOwnBytesAndEndWhereTheyEnd() throws IOException {
		String first = pod("web-1", "ns", "11");
		String second = pod("web-2", "ns", "12");
		// the second with a member after its object, as the decoder must read on from
		// where the object ended
		String stream = "{\"type\":\"ADDED\",\"object\":" + first + "} \n{\"type\":\"MODIFIED\",\"object\":" + second
				+ ",\"extra\":[1,{\"a\":\"}\"}]}\n";
		byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
		ObjectDecoder<Pod> decoder = decoder(Pod.class, MAPPER);
		int[] end = new int[1];
		WatchEvent<Pod> added = decoder.decodeEvent(bytes, 0, bytes.length, end);
		assertThat(end[0]).isEqualTo(stream.indexOf("} \n") + 1);
		int at = stream.indexOf('{', end[0]);
		WatchEvent<Pod> modified = decoder.decodeEvent(bytes, at, bytes.length, end);
		assertThat(end[0]).isEqualTo(stream.length() - 1);
		assertThat(added.object()).isEqualTo(MAPPER.readValue(first, Pod.class));
		assertThat(added.object().metadata()).isSameAs(added.meta());
		assertThat(modified.object()).isEqualTo(MAPPER.readValue(second, Pod.class));
		assertThat(modified.meta().name()).isEqualTo("web-2");
		assertThat(modified.meta().resourceVersion()).isEqualTo("12");
	}

	@Test
	void anEventCutInsideItsObjectIsIncompleteWhereverTheCut() throws IOException {
		String json = pod("web-1", "ns", "11");
		byte[] bytes = ("{\"type\":\"MODIFIED\",\"object\":" + json + "}").getBytes(StandardCharsets.UTF_8);
		ObjectDecoder<Pod> decoder = decoder(Pod.class, MAPPER);
		for (int cut = 1; cut < bytes.length; cut += 97) {
			int limit = cut;
			assertThatExceptionOfType(JsonScanner.Incomplete.class)
				.isThrownBy(() -> decoder.decodeEvent(bytes, 0, limit, new int[1]));
		}
		// and the whole event still binds after all those tries
		assertThat(decoder.decodeEvent(bytes, 0, bytes.length).object()).isEqualTo(MAPPER.readValue(json, Pod.class));
	}

	@Test
	void aTypeThatBindsItsMetadataItselfGetsThemFromTheirJsonWithoutManagedFields() throws IOException {
		ObjectDecoder<Untyped> decoder = decoder(Untyped.class, MAPPER);
		for (int i = 0; i < 2; i++) {
			String json = pod("web-" + i, "ns", "1" + i);
			Untyped object = event(decoder, json).object();
			Untyped expected = MAPPER.readValue(json, Untyped.class);
			assertThat(expected.metadata()).containsKey("managedFields");
			assertThat(object.metadata()).doesNotContainKey("managedFields")
				.containsEntry("name", "web-" + i)
				.containsAllEntriesOf(withoutManagedFields(expected.metadata()));
			assertThat(object.spec()).isEqualTo(expected.spec());
		}
	}

	@Test
	void metadataAfterTheRestOfTheObjectStillBindAsTheDecoderReadThem() {
		String json = "{\"spec\":{\"a\":[1,\"b\"]},\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"status\":{},"
				+ "\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"resourceVersion\":\"3\"}}";
		WatchEvent<Pod> event = event(decoder(Pod.class, MAPPER), json);
		assertThat(event.object().metadata()).isSameAs(event.meta());
		assertThat(event.meta().key()).isEqualTo("ns/a");
		assertThat(event.object()).isEqualTo(MAPPER.readValue(json, Pod.class));
	}

	private static Map<String, Object> withoutManagedFields(Map<String, Object> metadata) {
		Map<String, Object> copy = new LinkedHashMap<>(metadata);
		copy.remove("managedFields");
		return copy;
	}

	@Test
	void aListItemOverTheSizeLimitIsHandedUpAsTooLargeAndTheOthersBind() throws IOException {
		String a = "{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"resourceVersion\":\"1\"},\"spec\":{\"x\":1}}";
		String c = a.replace("\"a\"", "\"c\"");
		byte[] list = ("{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"3\"},\"items\":[" + a + ","
				+ pod("web-1", "ns", "2") + "," + c + "]}")
			.getBytes(StandardCharsets.UTF_8);
		for (int max : new int[] { 2000, 4000, 7000 }) {
			ObjectList<Pod> page = decoder(Pod.class, MAPPER).decodeList(new ByteArrayInputStream(list), max);
			assertThat(page.items()).extracting((item) -> item.meta().name()).containsExactly("a", "c");
			assertThat(page.objects()).containsExactly(MAPPER.readValue(a, Pod.class), MAPPER.readValue(c, Pod.class));
			assertThat(page.unbindable()).singleElement().satisfies((u) -> {
				assertThat(u.key()).isEqualTo("ns/web-1");
				assertThat(u.reason()).isEqualTo("larger than max-event-size (" + max + " bytes)");
			});
		}
	}

	@Test
	void aListBindsEachItemEqualToJacksonsBinding() throws IOException {
		List<String> items = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			items.add(pod("web-" + i, "ns-" + (i % 2), String.valueOf(100 + i)));
		}
		byte[] list = ("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"200\"},"
				+ "\"items\":[" + String.join(",", items) + "]}")
			.getBytes(StandardCharsets.UTF_8);
		ObjectList<Pod> page = decoder(Pod.class, MAPPER).decodeList(list, 0, list.length);
		assertThat(page.objects()).hasSize(5);
		for (int i = 0; i < 5; i++) {
			assertThat(page.objects().get(i)).isEqualTo(MAPPER.readValue(items.get(i), Pod.class));
			assertThat(page.objects().get(i).metadata()).isSameAs(page.items().get(i).meta());
		}
	}

	@Test
	void compactMapsAndListsAreEqualToTheJdksAndBack() {
		CompactMap empty = CompactMap.of(new Object[0], 0);
		assertThat(empty).isEqualTo(Map.of()).hasSameHashCodeAs(Map.of()).hasToString("{}");
		CompactMap map = CompactMap.of(new Object[] { "a", 1, "b", null, "a", 2 }, 3);
		Map<String, Object> jdk = new LinkedHashMap<>();
		jdk.put("a", 2);
		jdk.put("b", null);
		assertThat(map).isEqualTo(jdk).hasSameHashCodeAs(jdk).hasToString(jdk.toString()).hasSize(2);
		assertThat(jdk).isEqualTo(map);
		assertThat(map.getOrDefault("c", "d")).isEqualTo("d");
		assertThat(map.getOrDefault("b", "d")).isNull();
		assertThat(map.containsValue(null)).isTrue();
		assertThat(map.containsValue(2)).isTrue();
		assertThat(map.containsValue(1)).isFalse();
		assertThat(map.keySet()).containsExactly("a", "b");
		assertThat(map.values()).containsExactly(2, null);
		assertThat(map).isNotEqualTo(Map.of("a", 2, "c", 3)).isNotEqualTo(Map.of("a", 2));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> map.putIfAbsent("c", 1));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> map.merge("a", 1, (x, y) -> y));
		CompactList list = CompactList.of(new Object[] { 1, null, "x" }, 3);
		List<Object> jdkList = new ArrayList<>();
		jdkList.add(1);
		jdkList.add(null);
		jdkList.add("x");
		assertThat(list).isEqualTo(jdkList).hasSameHashCodeAs(jdkList).hasToString(jdkList.toString());
		assertThat(jdkList).isEqualTo(list);
		assertThat(list.indexOf(null)).isEqualTo(1);
		assertThat(CompactList.of(new Object[4], 0)).isEqualTo(List.of()).isSameAs(CompactList.EMPTY);
	}

	private static <T> ObjectDecoder<T> decoder(Class<T> type, ObjectMapper mapper) {
		return new ObjectDecoder<>(type, mapper, false);
	}

	private static <T> WatchEvent<T> event(ObjectDecoder<T> decoder, String object) {
		byte[] bytes = ("{\"type\":\"MODIFIED\",\"object\":" + object + "}").getBytes(StandardCharsets.UTF_8);
		return decoder.decodeEvent(bytes, 0, bytes.length);
	}

	/** The benchmark's Pod: two containers, full status, managedFields. */
	static String pod(String name, String namespace, String resourceVersion) throws IOException {
		try (InputStream in = TypedBindingTests.class.getResourceAsStream("pod.json")) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("@NAME@", name)
				.replace("@NAMESPACE@", namespace)
				.replace("@UID@", "uid-" + name)
				.replace("@RV@", resourceVersion)
				.replace("@SHARD@", "1")
				.replace("@NODE@", "node-7")
				.replace("@IP@", "10.1.2.3");
		}
	}

	record Pod(String apiVersion, String kind, ObjectMeta metadata, Map<String, Object> spec,
			Map<String, Object> status) {
	}

	record Untyped(Map<String, Object> metadata, Map<String, Object> spec) {
	}

	record Template(ObjectMeta metadata) {
	}

	record TemplateSpec(Template template) {
	}

	record Templated(ObjectMeta metadata, TemplateSpec spec) {
	}

	record Loose(ObjectMeta metadata, Map<String, Object> spec, Object any, List<Object> list) {
	}

	record SkippingNulls(ObjectMeta metadata, @JsonSetter(contentNulls = Nulls.SKIP) Map<String, Object> spec) {
	}

}
