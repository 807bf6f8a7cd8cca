package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class JsonScannerTests {

	@Test
	void readsStringsWithEscapesAndMultiByteCharacters() {
		JsonScanner json = scanner(
				"{\"k\\\"ey\":\"a\\\"b\\\\c\\/d\\n\\u00e9 é ✓ \\ud83d\\ude00\",\"n\":-12.5e+3,\"t\":true}");
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
		assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> {
			JsonScanner json = scanner("{\"a\":\"\\q\"}");
			json.beginObject();
			json.nextKey(true);
			json.stringOrSkip();
		}).withMessageContaining("unknown escape");
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

	@Test
	void findsTheClosingQuoteAtEveryOffsetFromTheStart() {
		for (int pad = 0; pad < 8; pad++) {
			for (int k = 0; k <= 16; k++) {
				String body = "x".repeat(k);
				// skipped, read, and cut at every length short of the closing quote
				assertSkips(pad, "\"" + body + "\"", k + 2, "}]\"");
				assertThat(read(pad, "\"" + body + "\"")).isEqualTo(body);
				for (int cut = 1; cut < k + 2; cut++) {
					assertIncomplete(pad, ("\"" + body + "\"").substring(0, cut));
				}
			}
		}
	}

	@Test
	void passesEscapesAtEveryOffset() {
		for (int pad = 0; pad < 8; pad++) {
			for (int k = 0; k <= 16; k++) {
				for (int m = 0; m <= 9; m++) {
					String x = "x".repeat(k);
					String y = "y".repeat(m);
					// an escaped quote, a backslash escaped before the closing quote, and
					// both
					assertSkips(pad, "\"" + x + "\\\"" + y + "\"", k + m + 4, "\"}");
					assertThat(read(pad, "\"" + x + "\\\"" + y + "\"")).isEqualTo(x + "\"" + y);
					assertSkips(pad, "\"" + x + "\\\\\"", k + 4, "x\"");
					assertThat(read(pad, "\"" + x + "\\\\\"")).isEqualTo(x + "\\");
					assertSkips(pad, "\"" + x + "\\\\\\\"" + y + "\"", k + m + 6, "\"");
					assertThat(read(pad, "\"" + x + "\\\\\\\"" + y + "\"")).isEqualTo(x + "\\\"" + y);
				}
				// the bytes end just after a backslash, or just after the quote it
				// escapes
				assertIncomplete(pad, "\"" + "x".repeat(k) + "\\");
				assertIncomplete(pad, "\"" + "x".repeat(k) + "\\\"");
			}
		}
	}

	@Test
	void readsAnEscapedBackslashBeforeTheClosingQuote() {
		assertThat(read(0, "\"a\\\\\"")).isEqualTo("a\\");
		assertSkips(0, "{\"a\\\\\":\"b\\\\\"}", 13, "\"");
		for (int k = 0; k < 16; k++) {
			// the escaping backslash and the quote it escapes on either side of a word
			// boundary
			String s = "\"" + "x".repeat(k) + "\\\"\"";
			assertSkips(0, s, s.length(), "\"");
			assertSkips(1, "[" + s + "]", s.length() + 2, "]");
		}
	}

	@Test
	void passesBytesOfMultiByteCharactersAsTheyAre() {
		// 0xA2 and 0xDC differ from '"' and '\' only in the high bit; 0x9F from 0x1F
		byte[][] characters = { bytes("é"), bytes("✓"), bytes("😀"), { (byte) 0xA2 }, { (byte) 0xDC }, { (byte) 0x9F },
				{ (byte) 0xFF }, { (byte) 0x80 } };
		for (int k = 0; k <= 16; k++) {
			for (byte[] character : characters) {
				// once and three times, so that passing bytes two at a time cannot land
				// right by chance
				checkSkipsAndReads(concat(bytes("\"" + "x".repeat(k)), character, bytes("\"")));
				checkSkipsAndReads(concat(bytes("\"" + "x".repeat(k)), character, character, character, bytes("\"")));
			}
		}
	}

	private static void checkSkipsAndReads(byte[] string) {
		JsonScanner skipped = new JsonScanner(concat(string, bytes(" \"")), 0, string.length + 2);
		skipped.skipValue();
		assertThat(skipped.position()).isEqualTo(string.length);
		JsonScanner read = new JsonScanner(string, 0, string.length);
		assertThat(read.stringOrSkip()).isEqualTo(new String(string, 1, string.length - 2, StandardCharsets.UTF_8));
		assertThat(read.position()).isEqualTo(string.length);
	}

	@Test
	void refusesControlCharactersInReadStringsAtEveryOffset() {
		for (int k = 0; k <= 16; k++) {
			String x = "x".repeat(k);
			int at = k + 1;
			assertThatExceptionOfType(DecodeException.class).isThrownBy(() -> read(0, "\"" + x + "\u0001yz\""))
				.isNotInstanceOf(JsonScanner.Incomplete.class)
				.withMessage("a control character inside a string at byte " + at);
			// skipped strings are not checked
			assertSkips(0, "\"" + x + "\u001f\"", k + 3, "\"");
		}
	}

	@Test
	void endsContainersExactlyAtTheEndOfTheBytes() {
		for (int k = 0; k <= 16; k++) {
			String container = "{\"a\":[\"" + "x".repeat(k) + "\",{}],\"b\":\"" + "y".repeat(16 - k) + "\"}";
			for (int pad = 0; pad < 8; pad++) {
				assertSkips(pad, container, container.length(), "");
				for (int cut = 1; cut < container.length(); cut++) {
					assertIncomplete(pad, container.substring(0, cut));
				}
			}
		}
	}

	@Test
	void skipsAsAByteAtATimeScanDoes() {
		long seed = System.nanoTime();
		Random random = new Random(seed);
		for (int n = 0; n < 200_000; n++) {
			int pad = random.nextInt(9);
			byte[] value = jsonish(random);
			byte[] bytes = new byte[pad + value.length + 9];
			System.arraycopy(value, 0, bytes, pad, value.length);
			// bytes past the end that would change the outcome if they were read
			for (int i = pad + value.length; i < bytes.length; i++) {
				bytes[i] = (byte) "\"}]\\".charAt(random.nextInt(4));
			}
			int len = (random.nextInt(4) == 0) ? random.nextInt(value.length + 1) : value.length;
			String expected = ByteLoop.skip(bytes, pad, pad + len);
			String actual = outcome(() -> {
				JsonScanner json = new JsonScanner(bytes, pad, len);
				json.skipValue();
				return json.position();
			});
			assertThat(actual).as("seed %d: skipping %s", seed, describe(bytes, pad, len)).isEqualTo(expected);
			if (value[0] == '"' && len > 0) {
				String closing = ByteLoop.closingQuote(bytes, pad, pad + len);
				String read = outcome(() -> {
					JsonScanner json = new JsonScanner(bytes, pad, len);
					try {
						json.stringOrSkip();
						return json.position() - 1;
					}
					catch (DecodeException ex) {
						if (ex.getMessage().startsWith("an unterminated string")
								|| ex.getMessage().startsWith("a control character")) {
							throw ex;
						}
						// the closing quote was found, but an escape is broken (told at
						// the byte after it)
						return json.position() - 1;
					}
				});
				assertThat(read).as("seed %d: reading %s", seed, describe(bytes, pad, len)).isEqualTo(closing);
			}
		}
	}

	/**
	 * A string, object or array made of the bytes that matter to skipping, and runs of
	 * others.
	 */
	private static byte[] jsonish(Random random) {
		java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
		out.write("\"{[".charAt(random.nextInt(3)));
		int length = random.nextInt(64);
		byte[] alphabet = { '"', '"', '\\', '\\', '{', '}', '[', ']', ',', ':', ' ', 'a', '1', 0x01, 0x1f, '\n',
				(byte) 0xA2, (byte) 0xDC, (byte) 0xC3, (byte) 0xA9, (byte) 0x9F, (byte) 0xFF };
		for (int i = 0; i < length; i++) {
			if (random.nextInt(4) == 0) {
				int run = random.nextInt(20);
				for (int j = 0; j < run; j++) {
					out.write('a' + random.nextInt(26));
				}
			}
			else {
				out.write(alphabet[random.nextInt(alphabet.length)]);
			}
		}
		return out.toByteArray();
	}

	private static String outcome(java.util.function.IntSupplier scan) {
		try {
			return "ends at " + scan.getAsInt();
		}
		catch (JsonScanner.Incomplete ex) {
			return "incomplete";
		}
		catch (DecodeException ex) {
			return "error: " + ex.getMessage();
		}
	}

	private static String describe(byte[] bytes, int off, int len) {
		StringBuilder text = new StringBuilder("[");
		for (int i = off; i < off + len; i++) {
			int c = bytes[i] & 0xff;
			text.append((c >= 0x20 && c < 0x7f) ? String.valueOf((char) c) : String.format("<%02x>", c));
		}
		return text.append("] at ").append(off).toString();
	}

	/**
	 * The scans as a simple loop over the bytes, one at a time: what the scanner must
	 * match.
	 */
	static final class ByteLoop {

		static String skip(byte[] b, int off, int end) {
			int i = off;
			if (b[i] == '"') {
				int close = stringBody(b, i + 1, end);
				return (close >= end) ? "incomplete" : "ends at " + (close + 1);
			}
			int depth = 0;
			for (; i < end; i++) {
				byte c = b[i];
				if (c == '"') {
					i = stringBody(b, i + 1, end);
				}
				else if (c == '{' || c == '[') {
					depth++;
				}
				else if ((c == '}' || c == ']') && --depth == 0) {
					return "ends at " + (i + 1);
				}
			}
			return "incomplete";
		}

		static String closingQuote(byte[] b, int open, int end) {
			for (int i = open + 1; i < end; i++) {
				byte c = b[i];
				if (c == '"') {
					return "ends at " + i;
				}
				if (c == '\\') {
					i++;
				}
				else if (c >= 0 && c < 0x20) {
					return "error: a control character inside a string at byte " + i;
				}
			}
			return "incomplete";
		}

		private static int stringBody(byte[] b, int from, int end) {
			for (int i = from; i < end; i++) {
				if (b[i] == '"') {
					return i;
				}
				if (b[i] == '\\') {
					i++;
				}
			}
			return end;
		}

	}

	/**
	 * Skips {@code text} placed after {@code pad} bytes and followed by {@code after},
	 * expecting it to end at {@code length}.
	 */
	private static void assertSkips(int pad, String text, int length, String after) {
		byte[] value = bytes(text);
		byte[] bytes = concat(new byte[pad], value, bytes(after));
		JsonScanner json = new JsonScanner(bytes, pad, value.length);
		json.skipValue();
		assertThat(json.position()).as("%s after %d bytes", text, pad).isEqualTo(pad + length);
	}

	private static void assertIncomplete(int pad, String text) {
		byte[] value = bytes(text);
		// bytes past the end that would complete it if they were read
		byte[] bytes = concat(new byte[pad], value, bytes("\"\"}]}]}]}]"));
		assertThatExceptionOfType(JsonScanner.Incomplete.class).as("%s after %d bytes", text, pad)
			.isThrownBy(() -> new JsonScanner(bytes, pad, value.length).skipValue());
		if (value[0] == '"') {
			assertThatExceptionOfType(JsonScanner.Incomplete.class).as("reading %s after %d bytes", text, pad)
				.isThrownBy(() -> new JsonScanner(bytes, pad, value.length).stringOrSkip());
		}
	}

	private static String read(int pad, String text) {
		byte[] value = bytes(text);
		byte[] bytes = concat(new byte[pad], value, bytes("\"\""));
		JsonScanner json = new JsonScanner(bytes, pad, value.length);
		String read = json.stringOrSkip();
		assertThat(json.position()).isEqualTo(pad + value.length);
		return read;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] concat(byte[]... parts) {
		java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
		for (byte[] part : parts) {
			out.writeBytes(part);
		}
		return out.toByteArray();
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
