package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class JsonScannerTests {

	@Test
	void readsStringsWithEscapesAndMultiByteCharacters() {
		JsonScanner json = scanner("{\"k\\\"ey\":\"a\\\"b\\\\c\\/d\\n\\u00e9 é ✓ \\ud83d\\ude00\",\"n\":-12.5e+3,\"t\":true}");
		json.beginObject();
		int key = json.nextKey(true);
		assertThat(json.key(key)).isEqualTo("k\"ey");
		assertThat(json.stringOrSkip()).isEqualTo("a\"b\\c/d\né é ✓ \ud83d\ude00");
		key = json.nextKey(false);
		assertThat(json.keyIs(key, "n".getBytes(StandardCharsets.US_ASCII))).isTrue();
		assertThat(json.stringOrSkip()).isNull();
		json.nextKey(false);
		json.skipValue();
		assertThat(json.nextKey(false)).isEqualTo(-1);
		json.expectEnd();
	}

	@Test
	void skipsNestedValuesWithBracesInsideStrings() {
		JsonScanner json = scanner("{\"a\":{\"b\":[1,{\"c\":\"}]{[\\\"\"}],\"d\":null},\"e\":\"x\"}");
		json.beginObject();
		List<String> keys = new ArrayList<>();
		for (int key = json.nextKey(true); key >= 0; key = json.nextKey(false)) {
			keys.add(json.key(key));
			json.skipValue();
		}
		assertThat(keys).containsExactly("a", "e");
	}

	@Test
	void refusesWhatIsNotJsonAtTheLevelsItReads() {
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> skipAll("{\"a\":tru}"))
			.withMessageContaining("not a JSON value");
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> skipAll("{\"a\":1.}"))
			.withMessageContaining("not a JSON value");
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> skipAll("{a:1}"))
			.withMessageContaining("expected a quoted member name");
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> skipAll("{\"a\" 1}"))
			.withMessageContaining("expected ':'");
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> skipAll("{\"a\":1 \"b\":2}"))
			.withMessageContaining("expected ',' or '}'");
		// strings that are read (not skipped) must not hold raw control characters
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> {
			JsonScanner json = scanner("{\"a\":\"x\ty\"}");
			json.beginObject();
			json.nextKey(true);
			json.stringOrSkip();
		}).withMessageContaining("control character");
		assertThatExceptionOfType(DecodeException.class)
			.isThrownBy(() -> {
				JsonScanner json = scanner("{\"a\":\"\\q\"}");
				json.beginObject();
				json.nextKey(true);
				json.stringOrSkip();
			})
			.withMessageContaining("unknown escape");
	}

	@Test
	void tellsBytesThatEndTooSoonFromBytesThatAreWrong() {
		for (String cut : List.of("{\"a\":\"xy", "{\"a\":{\"b\":[1,2", "{\"a\":12", "{\"a\":1,", "{\"a\"")) {
			assertThatExceptionOfType(JsonScanner.Incomplete.class).as(cut).isThrownBy(() -> skipAll(cut));
		}
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> skipAll("{\"a\":]"))
			.isNotInstanceOf(JsonScanner.Incomplete.class);
	}

	@Test
	void throwsIncompleteWithoutAStackTraceAsItIsControlFlow() {
		assertThatExceptionOfType(JsonScanner.Incomplete.class).isThrownBy(() -> skipAll("{\"a\":[1,"))
			.satisfies((ex) -> assertThat(ex.getStackTrace()).isEmpty())
			.withMessageContaining("at the end of the bytes read");
		// real errors keep theirs
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> skipAll("{\"a\":]"))
			.satisfies((ex) -> assertThat(ex.getStackTrace()).isNotEmpty());
	}

	private static void skipAll(String text) {
		JsonScanner json = scanner(text);
		json.beginObject();
		for (int key = json.nextKey(true); key >= 0; key = json.nextKey(false)) {
			json.skipValue();
		}
	}

	private static JsonScanner scanner(String text) {
		byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
		return new JsonScanner(bytes, 0, bytes.length);
	}

}
