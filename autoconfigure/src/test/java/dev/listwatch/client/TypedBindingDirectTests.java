package dev.listwatch.client;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.listwatch.ObjectMeta;
import dev.listwatch.WatchEvent;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonProperty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Records whose components are all untyped values, the metadata, strings, numbers and
 * booleans bind without Jackson ({@link DirectBinding}), to objects equal to what the
 * mapper alone binds; whatever that binding cannot be sure of, Jackson binds.
 */
class TypedBindingDirectTests {

	private static final ObjectMapper MAPPER = JsonMapper.shared();

	private static final ObjectMeta META = new ObjectMeta("ns", "a", null, "1", Map.of());

	private static final String HEAD = "{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"resourceVersion\":\"1\"}";

	@Test
	void theBenchmarksPodBindsWithoutJacksonInOnePassAndEqualToJacksonsBinding() throws IOException {
		TypedBinding<TypedBindingTests.Pod> binding = new TypedBinding<>(MAPPER, TypedBindingTests.Pod.class);
		assertThat(binding.direct()).isNotNull();
		assertThat(binding.direct().hasMetadata()).isTrue();
		String json = TypedBindingTests.pod("web-1", "ns", "11");
		byte[] event = ("{\"type\":\"MODIFIED\",\"object\":" + json + "}").getBytes(StandardCharsets.UTF_8);
		ObjectDecoder<TypedBindingTests.Pod> decoder = new ObjectDecoder<>(TypedBindingTests.Pod.class, MAPPER, false);
		WatchEvent<TypedBindingTests.Pod> decoded = decoder.decodeEvent(event, 0, event.length);
		TypedBindingTests.Pod expected = MAPPER.readValue(json, TypedBindingTests.Pod.class);
		assertThat(decoded.object()).isEqualTo(expected).hasSameHashCodeAs(expected);
		assertThat(decoded.object().metadata()).isSameAs(decoded.meta());
		assertThat(decoded.object().spec()).isInstanceOf(CompactMap.class).hasToString(expected.spec().toString());
		assertThat(decoded.object().status()).isInstanceOf(CompactMap.class).hasToString(expected.status().toString());
		// the direct binding alone, at the object of the event
		int start = "{\"type\":\"MODIFIED\",\"object\":".length();
		int[] end = new int[1];
		TypedBindingTests.Pod direct = binding.direct().bind(event, start, event.length, decoded.meta(), -1, -1, end);
		assertThat(direct).isEqualTo(expected);
		assertThat(end[0]).isEqualTo(start + json.stripTrailing().getBytes(StandardCharsets.UTF_8).length);
	}

	@Test
	void everyKindOfComponentBindsWithoutJacksonAsJacksonBindsIt() {
		assertThat(new TypedBinding<>(MAPPER, Everything.class).direct()).isNotNull();
		String json = HEAD + ",\"name\":\"n\\u00e9\\t\\\"x\\\"\",\"count\":-7,\"boxed\":2147483647,"
				+ "\"big\":9223372036854775807,\"boxedLong\":3,\"flag\":true,\"boxedFlag\":false,\"ratio\":-0.5e-3,"
				+ "\"boxedRatio\":1E400,\"any\":[\"x\",{\"y\":null}],\"list\":[[],{},\"é\",\"\\ud83d\\ude00\"],"
				+ "\"spec\":{\"i\":0,\"negativeZero\":-0,\"minInt\":-2147483648,\"overInt\":2147483648,"
				+ "\"long\":-9223372036854775808,\"overLong\":9223372036854775808,"
				+ "\"big\":-123456789012345678901234567890,\"double\":-0.0,\"exp\":2e-2,\"frac\":10.25,"
				+ "\"nested\":{\"a\":[1,[2,[3,{\"b\":[]}]]]},\"dup\":1,\"dup\":2,\"unicode\":\"日本\","
				+ "\"longEscaped\":\"abcdefghijklmnop\\\"qrstuvwxyz\",\"longUnicode\":\"abcdefghijklmnopé0123456789\","
				+ "\"long\\u0041scii\":\"abcdefghijklmnopqrstuvwxyz0123456789\"}}";
		Everything bound = bindsDirectly(MAPPER, Everything.class, json);
		assertThat(bound.spec().get("overInt")).isEqualTo(2147483648L);
		assertThat(bound.spec().get("overLong")).isEqualTo(new BigInteger("9223372036854775808"));
		assertThat(bound.spec().get("negativeZero")).isEqualTo(0);
		assertThat(bound.spec().get("double")).isEqualTo(-0.0d);
		assertThat(bound.boxedRatio()).isEqualTo(Double.POSITIVE_INFINITY);
		assertThat(bound.name()).isEqualTo("né\t\"x\"");
		assertThat(bound.spec()).containsEntry("longEscaped", "abcdefghijklmnop\"qrstuvwxyz")
			.containsEntry("longUnicode", "abcdefghijklmnopé0123456789")
			.containsEntry("longAscii", "abcdefghijklmnopqrstuvwxyz0123456789");
		assertThat(bound.spec()).isInstanceOf(CompactMap.class);
		assertThat(bound.list()).isInstanceOf(CompactList.class);
	}

	@Test
	void missingAndNullComponentsBindAsJacksonBindsThem() {
		Everything missing = bindsDirectly(MAPPER, Everything.class,
				HEAD + ",\"count\":1,\"big\":2,\"flag\":true,\"ratio\":1.5}");
		assertThat(missing.name()).isNull();
		assertThat(missing.spec()).isNull();
		Everything nulls = bindsDirectly(MAPPER, Everything.class, HEAD
				+ ",\"name\":null,\"boxed\":null,\"boxedLong\":null,\"boxedFlag\":null,\"boxedRatio\":null,"
				+ "\"any\":null,\"list\":null,\"spec\":null,\"count\":1,\"big\":2,\"flag\":true,\"ratio\":1.5}");
		assertThat(nulls.any()).isNull();
		assertThat(nulls.list()).isNull();
		// a missing or null primitive: the mapper's features decide, so Jackson binds it
		bindsWithJackson(MAPPER, Everything.class, HEAD + ",\"big\":2,\"flag\":true,\"ratio\":1.5}");
		bindsWithJackson(MAPPER, Everything.class, HEAD + ",\"count\":null,\"big\":2,\"flag\":true,\"ratio\":1.5}");
	}

	@Test
	void coercionsAreLeftToJackson() {
		String rest = ",\"big\":2,\"flag\":true,\"ratio\":1.5";
		// a number for a String, a string or a float for an int, an int for a double...
		bindsWithJackson(MAPPER, Everything.class, HEAD + ",\"name\":12,\"count\":1" + rest + "}");
		bindsWithJackson(MAPPER, Everything.class, HEAD + ",\"name\":true,\"count\":1" + rest + "}");
		bindsWithJackson(MAPPER, Everything.class, HEAD + ",\"count\":\"3\"" + rest + "}");
		bindsWithJackson(MAPPER, Everything.class, HEAD + ",\"count\":1.0" + rest + "}");
		bindsWithJackson(MAPPER, Everything.class, HEAD + ",\"count\":3000000000" + rest + "}");
		bindsWithJackson(MAPPER, Everything.class, HEAD + ",\"count\":1,\"big\":2,\"flag\":true,\"ratio\":2}");
		bindsWithJackson(MAPPER, Everything.class, HEAD + ",\"count\":1,\"big\":2,\"flag\":\"true\",\"ratio\":2.5}");
		bindsWithJackson(MAPPER, Everything.class, HEAD + ",\"count\":1" + rest + ",\"spec\":\"\"}");
		bindsWithJackson(MAPPER, Everything.class, HEAD + ",\"count\":1" + rest + ",\"list\":\"x\"}");
	}

	@Test
	void unknownPropertiesAreSkippedOrLeftToAMapperThatFailsOnThem() {
		String json = "{\"kind\":\"Thing\",\"extra\":{\"a\":[1,2.5,\"x\",null,true]},\"spec\":{\"b\":1}}";
		assertThat(bindsDirectly(MAPPER, Bare.class, json)).isEqualTo(new Bare("Thing", Map.of("b", 1)));
		ObjectMapper strict = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
		TypedBinding<Bare> binding = new TypedBinding<>(strict, Bare.class);
		assertThat(binding.direct()).isNotNull();
		assertThat(bindsDirectly(strict, Bare.class, "{\"kind\":\"Thing\",\"spec\":{\"b\":1}}"))
			.isEqualTo(new Bare("Thing", Map.of("b", 1)));
		assertThat(directly(binding, json)).isNull();
		assertThatExceptionOfType(JacksonException.class).isThrownBy(() -> bind(binding, json));
		assertThatExceptionOfType(JacksonException.class).isThrownBy(() -> strict.readValue(json, Bare.class));
		// the metadata the decoder read cannot stand for the object's own then: Jackson
		// binds
		assertThat(new TypedBinding<>(strict, Everything.class).direct()).isNull();
	}

	@Test
	void whatTheMapperWouldRefuseIsLeftToJacksonWhichRefusesIt() {
		// malformed JSON in a value that is skipped, a leading zero, a bad escape, a
		// control character, bytes that are not UTF-8
		for (String json : List.of("{\"kind\":\"a\",\"extra\":{\"a\" 1}}", "{\"kind\":\"a\",\"spec\":{\"a\":01}}",
				"{\"kind\":\"a\\x\"}", "{\"kind\":\"a\tb\"}", "{\"kind\":\"a\",\"spec\":{\"a\":[1,]}}",
				"{\"kind\":\"a\",\"spec\":{\"a\":tru}}", "{\"kind\":\"a\",\"spec\":{\"a\":1.}}")) {
			TypedBinding<Bare> binding = new TypedBinding<>(MAPPER, Bare.class);
			assertThat(directly(binding, json)).as(json).isNull();
			assertThatExceptionOfType(JacksonException.class).as(json).isThrownBy(() -> bind(binding, json));
		}
		byte[] notUtf8 = { '{', '"', 'k', 'i', 'n', 'd', '"', ':', '"', (byte) 0xC3, '"', '}' };
		TypedBinding<Bare> binding = new TypedBinding<>(MAPPER, Bare.class);
		assertThat(binding.direct().bind(notUtf8, 0, notUtf8.length, META, -1, -1, new int[1])).isNull();
		// deeper than the parser's limit
		String deep = "[".repeat(1200) + "]".repeat(1200);
		String json = "{\"kind\":\"a\",\"spec\":{\"a\":" + deep + "}}";
		assertThat(directly(binding, json)).isNull();
		assertThatExceptionOfType(JacksonException.class).isThrownBy(() -> MAPPER.readValue(json, Bare.class));
		assertThatExceptionOfType(JacksonException.class).isThrownBy(() -> bind(binding, json));
	}

	@Test
	void aMemberTwiceOrAConstructorThatThrowsIsLeftToJackson() {
		bindsWithJackson(MAPPER, Bare.class, "{\"kind\":\"a\",\"spec\":{},\"kind\":\"b\"}");
		TypedBinding<Checked> checked = new TypedBinding<>(MAPPER, Checked.class);
		assertThat(checked.direct()).isNotNull();
		assertThat(directly(checked, "{\"kind\":\"\"}")).isNull();
		assertThatExceptionOfType(JacksonException.class).isThrownBy(() -> bind(checked, "{\"kind\":\"\"}"));
		assertThat(bindsDirectly(MAPPER, Checked.class, "{\"kind\":\"x\"}")).isEqualTo(new Checked("x"));
	}

	@Test
	void anObjectCutShortIsIncompleteNotGivenUp() {
		TypedBinding<Bare> binding = new TypedBinding<>(MAPPER, Bare.class);
		byte[] json = "{\"kind\":\"a\",\"spec\":{\"n\":12,\"t\":true,\"s\":\"x\\u0041\"}}"
			.getBytes(StandardCharsets.UTF_8);
		for (int cut = 1; cut < json.length; cut++) {
			int[] end = new int[1];
			assertThat(binding.direct().bind(json, 0, cut, META, -1, -1, end)).isNull();
			assertThat(end[0]).as("cut at %d", cut).isEqualTo(DirectBinding.INCOMPLETE);
		}
		int[] end = new int[1];
		assertThat(binding.direct().bind(json, 0, json.length, META, -1, -1, end)).isNotNull();
		assertThat(end[0]).isEqualTo(json.length);
	}

	@Test
	void typesTheMapperBindsOtherwiseAreLeftToJackson() {
		assertThat(new TypedBinding<>(MAPPER, Renamed.class).direct()).isNull();
		assertThat(bind(new TypedBinding<>(MAPPER, Renamed.class), "{\"kind_name\":\"a\"}"))
			.isEqualTo(new Renamed("a"));
		assertThat(new TypedBinding<>(MAPPER, Aliased.class).direct()).isNull();
		assertThat(bind(new TypedBinding<>(MAPPER, Aliased.class), "{\"k\":\"a\"}")).isEqualTo(new Aliased("a"));
		ObjectMapper snake = JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();
		assertThat(new TypedBinding<>(snake, Camel.class).direct()).isNull();
		assertThat(bind(new TypedBinding<>(snake, Camel.class), "{\"api_version\":\"v1\"}")).isEqualTo(new Camel("v1"));
		ObjectMapper mixedIn = JsonMapper.builder().addMixIn(Bare.class, RenamingMixIn.class).build();
		assertThat(new TypedBinding<>(mixedIn, Bare.class).direct()).isNull();
		assertThat(bind(new TypedBinding<>(mixedIn, Bare.class), "{\"k\":\"a\"}")).isEqualTo(new Bare("a", null));
		ObjectMapper bigDecimals = JsonMapper.builder()
			.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
			.build();
		assertThat(new TypedBinding<>(bigDecimals, Bare.class).direct()).isNull();
		assertThat(bind(new TypedBinding<>(bigDecimals, Bare.class), "{\"spec\":{\"a\":1.50}}").spec())
			.containsEntry("a", new BigDecimal("1.50"));
		ObjectMapper longs = JsonMapper.builder().enable(DeserializationFeature.USE_LONG_FOR_INTS).build();
		assertThat(new TypedBinding<>(longs, Bare.class).direct()).isNull();
		ObjectMapper duplicates = JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
		assertThat(new TypedBinding<>(duplicates, Bare.class).direct()).isNull();
		assertThat(new TypedBinding<>(MAPPER, NotARecord.class).direct()).isNull();
		assertThat(new TypedBinding<>(MAPPER, Nested.class).direct()).isNull();
	}

	@Test
	void aMapperAutoConfiguredByBootBindsTheRecordWithoutJacksonUnlessItsSettingsSayOtherwise() {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class));
		runner.run((context) -> {
			JsonMapper mapper = context.getBean(JsonMapper.class);
			assertThat(new TypedBinding<>(mapper, TypedBindingTests.Pod.class).direct()).isNotNull();
			String json = TypedBindingTests.pod("web-1", "ns", "11");
			assertThat(new TypedBinding<>(mapper, TypedBindingTests.Pod.class)
				.bind(json.getBytes(StandardCharsets.UTF_8), META)
				.spec()).isEqualTo(mapper.readValue(json, TypedBindingTests.Pod.class).spec());
		});
		runner.withPropertyValues("spring.jackson.property-naming-strategy=SNAKE_CASE")
			.run((context) -> assertThat(
					new TypedBinding<>(context.getBean(JsonMapper.class), TypedBindingTests.Pod.class).direct())
				.isNull());
	}

	@Test
	void asciiStringsAreSharedOnlyWhenAllTheirBytesAreEqual() {
		StringPool pool = new StringPool(16, 128);
		for (int length = 1; length <= 40; length++) {
			byte[] one = ("<" + "a".repeat(length) + ">").getBytes(StandardCharsets.US_ASCII);
			byte[] other = one.clone();
			// the same first and last eight bytes, when there are more than 16
			other[1 + length / 2] = 'b';
			String first = pool.ascii(one, 1, length);
			assertThat(first).isEqualTo("a".repeat(length));
			assertThat(pool.ascii(one, 1, length)).isSameAs(first);
			String second = pool.ascii(other, 1, length);
			assertThat(second).isEqualTo(new String(other, 1, length, StandardCharsets.US_ASCII)).isNotEqualTo(first);
			assertThat(pool.ascii(one, 1, length)).isEqualTo(first);
			assertThat(pool.ascii(one, 1, length - 1)).isEqualTo("a".repeat(length - 1));
		}
		String longer = "x".repeat(129);
		assertThat(pool.ascii(longer.getBytes(StandardCharsets.US_ASCII), 0, 129)).isEqualTo(longer);
	}

	/** Binds without Jackson, equal to what the mapper binds. */
	private static <T> T bindsDirectly(ObjectMapper mapper, Class<T> type, String json) {
		TypedBinding<T> binding = new TypedBinding<>(mapper, type);
		T direct = directly(binding, json);
		T expected = mapper.readValue(json, type);
		assertThat(direct).as(json).isNotNull().isEqualTo(expected).hasSameHashCodeAs(expected);
		assertThat(bind(binding, json)).isEqualTo(expected);
		return direct;
	}

	/** Left to Jackson, which binds as the mapper does (or fails as it does). */
	private static <T> void bindsWithJackson(ObjectMapper mapper, Class<T> type, String json) {
		TypedBinding<T> binding = new TypedBinding<>(mapper, type);
		assertThat(binding.direct()).isNotNull();
		assertThat(directly(binding, json)).as(json).isNull();
		T expected;
		try {
			expected = mapper.readValue(json, type);
		}
		catch (JacksonException ex) {
			assertThatExceptionOfType(JacksonException.class).as(json).isThrownBy(() -> bind(binding, json));
			return;
		}
		assertThat(bind(binding, json)).as(json).isEqualTo(expected);
	}

	private static <T> @Nullable T directly(TypedBinding<T> binding, String json) {
		byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
		int[] end = new int[1];
		T value = binding.direct().bind(bytes, 0, bytes.length, META, -1, -1, end);
		assertThat(end[0]).isEqualTo((value != null) ? bytes.length : DirectBinding.GIVEN_UP);
		return value;
	}

	private static <T> T bind(TypedBinding<T> binding, String json) {
		return binding.bind(json.getBytes(StandardCharsets.UTF_8), META);
	}

	record Everything(ObjectMeta metadata, String name, int count, Integer boxed, long big, Long boxedLong,
			boolean flag, Boolean boxedFlag, double ratio, Double boxedRatio, Object any, List<Object> list,
			Map<String, Object> spec) {
	}

	record Bare(String kind, Map<String, Object> spec) {
	}

	record Checked(String kind) {
		Checked {
			if (kind.isEmpty()) {
				throw new IllegalArgumentException("empty");
			}
		}
	}

	record Renamed(@JsonProperty("kind_name") String kind) {
	}

	record Aliased(@JsonAlias("k") String kind) {
	}

	record Camel(String apiVersion) {
	}

	interface RenamingMixIn {

		@JsonProperty("k")
		String kind();

	}

	record Nested(Bare bare) {
	}

	static final class NotARecord {

		public String kind;

	}

}
