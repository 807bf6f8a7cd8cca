package dev.listwatch.client;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

class JsonFrameReaderTests {

	@Test
	void cutsConcatenatedAndNewlineDelimitedObjects() throws IOException {
		String a = "{\"type\":\"ADDED\",\"object\":{\"s\":\"a } { \\\" ] [\",\"n\":[1,{\"x\":2}]}}";
		String b = "{\"type\":\"MODIFIED\",\"object\":{}}";
		assertThat(frames(a + "\n" + b + "\n", 1 << 20, Integer.MAX_VALUE)).containsExactly(a, b);
		assertThat(frames(a + b, 1 << 20, Integer.MAX_VALUE)).containsExactly(a, b);
		assertThat(frames("  \r\n\t" + a + "   ", 1 << 20, Integer.MAX_VALUE)).containsExactly(a);
	}

	@Test
	void cutsFramesThatArriveOneByteAtATimeAndOutgrowTheBuffer() throws IOException {
		String big = "{\"data\":\"" + "x\\\\y\\\"".repeat(20_000) + "\"}";
		String small = "{\"a\":1}";
		assertThat(frames(small + big + "\n" + small, 1 << 20, 1)).containsExactly(small, big, small);
		assertThat(frames(small + big + "\n" + small, 1 << 20, 7)).containsExactly(small, big, small);
	}

	@Test
	void decodesAFrameFollowedByPartOfTheNextInOneRead() throws IOException {
		// whole reads that end inside the following frame, never on a '}'
		String a = "{\"a\":\"" + "x".repeat(5000) + "\"}";
		String stream = (a + "\n").repeat(40);
		assertThat(frames(stream, 16 * 1024, Integer.MAX_VALUE)).hasSize(40).allMatch(a::equals);
		assertThat(frames(stream, 16 * 1024, 7001)).hasSize(40).allMatch(a::equals);
	}

	@Test
	void endsCleanlyOnlyBetweenFrames() throws IOException {
		assertThat(frames("", 100, 3)).isEmpty();
		assertThat(frames("\n\n", 100, 3)).isEmpty();
		assertThatExceptionOfType(EOFException.class).isThrownBy(() -> frames("{\"a\":1}{\"b\":", 100, 3))
			.withMessageContaining("truncated");
	}

	@Test
	void refusesWhatIsNotAnObjectAndOversizedFrames() {
		assertThatExceptionOfType(JsonFrameReader.MalformedFrameException.class)
			.isThrownBy(() -> frames("<html><body>502 Bad Gateway</body></html>", 100, 100))
			.withMessageContaining("<html>")
			.withMessageContaining("HTML page");
		assertThatExceptionOfType(JsonFrameReader.MalformedFrameException.class)
			.isThrownBy(() -> frames("{\"a\":\"" + "x".repeat(500) + "\"}", 100, 64))
			.withMessageContaining("larger than the limit of 100 bytes");
		// the same frame arriving whole in one read
		assertThatExceptionOfType(JsonFrameReader.MalformedFrameException.class)
			.isThrownBy(() -> frames("{\"a\":\"" + "x".repeat(500) + "\"}\n", 100, 4096))
			.withMessageContaining("larger than the limit of 100 bytes");
	}

	@Test
	void decodesEachFrameOnceWhenFramesEndWithNewlines() throws IOException {
		// one '}' per frame, at its end: a read that ends with '}' ends a frame
		List<String> sent = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			sent.add("{\"n\":" + i + ",\"s\":\"" + "x".repeat(i * 37 % 300) + "\"}");
		}
		String stream = String.join("\n", sent) + "\n";
		for (int chunk : new int[] { 1, 7, 64, 1000, Integer.MAX_VALUE }) {
			Counting counting = new Counting();
			JsonFrameReader reader = reader(stream, 1 << 20, chunk);
			List<String> frames = new ArrayList<>();
			List<Integer> tries = new ArrayList<>();
			String frame;
			while ((frame = reader.next(counting)) != null) {
				frames.add(frame);
				tries.add(counting.calls);
				counting.calls = 0;
			}
			assertThat(frames).as("chunk %d", chunk).isEqualTo(sent);
			// the first frame tells that newlines end frames; after it, each is decoded
			// once
			assertThat(tries.subList(1, tries.size())).as("chunk %d", chunk).allMatch((n) -> n == 1);
		}
	}

	@Test
	void tellsWhetherTheNextLineHasArrivedWhole() throws IOException {
		String a = "{\"n\":1,\"s\":\"x\"}";
		String b = "{\"n\":2}";
		String c = "{\"n\":3,\"s\":\"}\"}";
		byte[] stream = (a + "\n" + b + "\n" + c + "\n" + "{\"n\":4,").getBytes(StandardCharsets.UTF_8);
		// all in one read; a read past the bytes would wait (and fails here)
		JsonFrameReader reader = new JsonFrameReader(new Chunked(stream, Integer.MAX_VALUE, false), 1 << 20);
		Counting counting = new Counting();
		assertThat(reader.lineBuffered()).as("nothing read yet").isFalse();
		assertThat(reader.next(counting)).isEqualTo(a);
		assertThat(reader.lineBuffered()).as("not yet known that newlines end frames").isFalse();
		assertThat(reader.next(counting)).isEqualTo(b);
		assertThat(reader.lineBuffered()).as("c's line is whole").isTrue();
		assertThat(reader.lineBuffered()).as("asked twice").isTrue();
		assertThat(reader.next(counting)).isEqualTo(c);
		assertThat(reader.lineBuffered()).as("only part of the next frame").isFalse();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> reader.next(counting))
			.withMessageContaining("would wait");
	}

	@Test
	void growsItsBufferOnlyOnceAReadHasFilledIt() throws IOException {
		String a = "{\"a\":\"" + "x".repeat(3000) + "\"}";
		byte[] stream = (a + "\n").repeat(40).getBytes(StandardCharsets.UTF_8);
		// a quiet stream: reads of one event never fill the first buffer
		JsonFrameReader quiet = new JsonFrameReader(new Chunked(stream, a.length() + 1), 1 << 20, 16 * 1024);
		quiet.growWhenBusy(64 * 1024);
		Counting counting = new Counting();
		for (int i = 0; i < 40; i++) {
			assertThat(quiet.next(counting)).isEqualTo(a);
		}
		assertThat(quiet.buffer()).hasSize(16 * 1024);
		// a busy one: all has arrived, a read fills the buffer
		JsonFrameReader busy = new JsonFrameReader(new Chunked(stream, Integer.MAX_VALUE), 1 << 20, 16 * 1024);
		busy.growWhenBusy(64 * 1024);
		for (int i = 0; i < 10; i++) {
			assertThat(busy.next(counting)).isEqualTo(a);
		}
		// grown while frames went on past the first read (a part of one moved to the
		// larger buffer)
		assertThat(busy.buffer()).hasSize(64 * 1024);
		for (int i = 10; i < 40; i++) {
			assertThat(busy.next(counting)).isEqualTo(a);
		}
		assertThat(busy.next(counting)).isNull();
	}

	@Test
	void cutsPrettyPrintedFramesWhoseNewlinesAreInside() throws IOException {
		String a = "{\n  \"type\": \"ADDED\",\n  \"object\": {\n    \"a\": [1, 2],\n    \"s\": \"}\"\n  }\n}";
		String b = "{\n  \"type\": \"MODIFIED\",\n  \"object\": {}\n}";
		String stream = a + "\n" + b + "\n" + a + "\n" + b + "\n" + a;
		for (int chunk : new int[] { 1, 5, 13, 64, Integer.MAX_VALUE }) {
			assertThat(frames(stream, 1 << 20, chunk)).as("chunk %d", chunk).containsExactly(a, b, a, b, a);
		}
	}

	@Test
	void cutsFramesWithoutNewlinesAfterFramesWithThem() throws IOException {
		String a = "{\"a\":{\"b\":[1,{}]}}";
		String b = "{\"b\":\"\\\"}\"}";
		for (int chunk : new int[] { 1, 3, 10, Integer.MAX_VALUE }) {
			assertThat(frames(a + "\n" + a + "\n" + b + a + " " + b + "\t" + a + "\n" + b, 1 << 20, chunk))
				.as("chunk %d", chunk)
				.containsExactly(a, a, b, a, b, a, b);
		}
	}

	@Test
	void decodesAFrameWithoutANewlineAsSoonAsItsBytesArrive() throws IOException {
		String a = "{\"a\":1}";
		String b = "{\"b\":{\"c\":2}}";
		for (int chunk : new int[] { 1, 4, Integer.MAX_VALUE }) {
			// reading past the bytes sent would wait for more (here: fail)
			JsonFrameReader reader = new JsonFrameReader(
					new Chunked((a + "\n" + a + "\n" + b).getBytes(StandardCharsets.UTF_8), chunk, false), 1 << 20);
			List<String> frames = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				assertThat(reader.next()).isTrue();
				frames.add(new String(reader.buffer(), reader.start(), reader.length(), StandardCharsets.UTF_8));
			}
			assertThat(frames).as("chunk %d", chunk).containsExactly(a, a, b);
		}
	}

	@Test
	void decodesWhatIsLeftAtTheEndOfTheStreamOnceMore() throws IOException {
		String a = "{\"a\":1}";
		String b = "{\"b\":[2]}";
		for (int chunk : new int[] { 1, 6, Integer.MAX_VALUE }) {
			assertThat(frames(a + "\n" + a + "\n" + b, 100, chunk)).as("chunk %d", chunk).containsExactly(a, a, b);
			// the last read ends inside the frame after b: b is cut before the truncation
			// is told
			JsonFrameReader reader = reader(a + "\n" + a + "\n" + b + "{\"c\":", 100, chunk);
			List<String> frames = new ArrayList<>();
			assertThatExceptionOfType(EOFException.class).isThrownBy(() -> {
				while (reader.next()) {
					frames.add(new String(reader.buffer(), reader.start(), reader.length(), StandardCharsets.UTF_8));
				}
			}).withMessageContaining("after 5 bytes (truncated)");
			assertThat(frames).as("chunk %d", chunk).containsExactly(a, a, b);
		}
	}

	@Test
	void refusesAnOversizedFrameAfterNewlineDelimitedOnes() {
		String a = "{\"a\":1}";
		assertThatExceptionOfType(JsonFrameReader.MalformedFrameException.class)
			.isThrownBy(() -> frames(a + "\n" + a + "\n{\"a\":\"" + "x".repeat(500) + "\"}\n" + a, 100, 16))
			.withMessageContaining("larger than the limit of 100 bytes");
		// a frame that fills the limit exactly is decoded even if no newline follows it
		// yet
		String exact = "{\"a\":\"" + "x".repeat(92) + "\"}";
		assertThat(exact).hasSize(100);
		assertThatNoException()
			.isThrownBy(() -> assertThat(frames(a + "\n" + exact + exact, 100, 16)).containsExactly(a, exact, exact));
	}

	@Test
	void findsTheLastNewlineEightBytesAtATime() {
		Random random = new Random(7);
		for (int n = 0; n < 2000; n++) {
			byte[] bytes = new byte[random.nextInt(40)];
			for (int i = 0; i < bytes.length; i++) {
				int kind = random.nextInt(10);
				bytes[i] = (byte) ((kind == 0) ? '\n' : (kind == 1) ? 0x8a : (kind == 2) ? 0x0b : random.nextInt(256));
			}
			int from = (bytes.length == 0) ? 0 : random.nextInt(bytes.length + 1);
			int to = from + random.nextInt(bytes.length - from + 1);
			int expected = -1;
			for (int i = to - 1; i >= from; i--) {
				if (bytes[i] == '\n') {
					expected = i;
					break;
				}
			}
			assertThat(JsonFrameReader.lastNewline(bytes, from, to)).as("%s [%d, %d)", Arrays.toString(bytes), from, to)
				.isEqualTo(expected);
		}
	}

	@Test
	void handsUpTheHeadOfAnOversizedFrameAndSkipsItsRest() throws IOException {
		String small = "{\"a\":1}";
		String big = "{\"head\":\"h\",\"s\":\"" + "} { ] [ \\\" \\\\".repeat(3000)
				+ "\",\"n\":[[{\"x\":\"}\"}],[]],\"e\":\"\\\\\"}";
		assertThat(big.length()).isGreaterThan(30_000);
		for (String separator : new String[] { "\n", "", " \r\n" }) {
			String stream = small + separator + big + separator + small + separator + big + big + separator + small;
			for (int chunk : new int[] { 1, 7, 64, 1000, Integer.MAX_VALUE }) {
				JsonFrameReader reader = reader(stream, 1000, chunk);
				List<String> frames = new ArrayList<>();
				String frame;
				while ((frame = reader.next(new Counting(), JsonFrameReaderTests::head)) != null) {
					frames.add(frame);
				}
				assertThat(frames).as("chunk %d, separator '%s'", chunk, separator)
					.containsExactly(small, "HEAD {\"head\":\"h\"", small, "HEAD {\"head\":\"h\"",
							"HEAD {\"head\":\"h\"", small);
			}
		}
	}

	@Test
	void holdsNoMoreThanTheLimitOfAnOversizedFrame() throws IOException {
		int max = 64 * 1024;
		String big = "{\"head\":\"h\",\"s\":\"" + "x".repeat(5_000_000) + "\"}";
		String small = "{\"a\":1}";
		for (int chunk : new int[] { 4096, Integer.MAX_VALUE }) {
			JsonFrameReader reader = reader(big + "\n" + small + "\n", max, chunk);
			assertThat(reader.next(new Counting(), JsonFrameReaderTests::head)).startsWith("HEAD");
			assertThat(reader.next(new Counting(), JsonFrameReaderTests::head)).isEqualTo(small);
			assertThat(reader.buffer().length).as("chunk %d", chunk).isLessThanOrEqualTo(max + 1);
			assertThat(reader.next(new Counting(), JsonFrameReaderTests::head)).isNull();
		}
	}

	@Test
	void refusesAnOversizedFrameWhoseHeadTellsNothingAndReportsOneTruncatedInItsRest() {
		String big = "{\"s\":\"" + "x".repeat(5000) + "\"}";
		for (int chunk : new int[] { 1, 64, Integer.MAX_VALUE }) {
			assertThatExceptionOfType(JsonFrameReader.MalformedFrameException.class)
				.isThrownBy(() -> reader(big, 1000, chunk).next(new Counting(), (buf, start, limit) -> null))
				.withMessage("An event is larger than the limit of 1000 bytes (listwatch.defaults.max-event-size)");
			JsonFrameReader reader = reader(big.replace("{\"s\"", "{\"head\"").substring(0, 3000), 1000, chunk);
			assertThatExceptionOfType(EOFException.class).isThrownBy(() -> {
				while (reader.next(new Counting(), JsonFrameReaderTests::head) != null) {
					// the head, then the truncated rest
				}
			}).withMessage("the stream ended inside an event after 3000 bytes (truncated)");
		}
	}

	@Test
	void skipsWhatTheScannerSkipsWhereverTheBytesAreCut() {
		Random random = new Random(11);
		for (int n = 0; n < 500; n++) {
			String value = randomObject(random, 0);
			byte[] bytes = (value + "  {}").getBytes(StandardCharsets.UTF_8);
			JsonScanner scanner = new JsonScanner(bytes, 0, bytes.length);
			scanner.skipValue();
			int expected = scanner.position();
			JsonFrameReader.Skip skip = new JsonFrameReader.Skip("an event");
			int from = 0;
			int at = -1;
			while (at < 0) {
				int to = Math.min(bytes.length, from + 1 + random.nextInt(20));
				at = skip.scan(bytes, from, to);
				from = to;
			}
			assertThat(at).as(value).isEqualTo(expected);
		}
	}

	@Test
	void readsThePartsOfOneValueAndTellsItsEnd() throws IOException {
		String stream = " {\"a\":[1,2], \"b\":\"x\"}  \n";
		for (int chunk : new int[] { 1, 3, Integer.MAX_VALUE }) {
			JsonFrameReader reader = reader(stream, 100, chunk);
			List<String> parts = new ArrayList<>();
			parts.add(reader.read(JsonFrameReaderTests::member, null, "a list"));
			while (!parts.get(parts.size() - 1).equals("}")) {
				parts.add(reader.read(JsonFrameReaderTests::member, null, "a list"));
			}
			assertThat(parts).as("chunk %d", chunk).containsExactly(" {", "\"a\":[1,2]", ", \"b\":\"x\"", "}");
			assertThat(reader.atEnd()).isTrue();
			JsonFrameReader more = reader(stream + "x", 100, chunk);
			more.read(JsonFrameReaderTests::skipValue, null, "a list");
			assertThat(more.atEnd()).isFalse();
		}
	}

	/**
	 * One member with its key, its separator or the closing brace, or the opening brace.
	 */
	private static String member(byte[] buf, int start, int limit, int[] end) {
		JsonScanner json = new JsonScanner(buf, start, limit - start);
		int c = json.peek();
		if (c == '{' || c == '}') {
			json.expect((char) c);
		}
		else {
			if (c == ',') {
				json.expect(',');
			}
			json.nextKey(true);
			json.skipValue();
		}
		end[0] = json.position();
		return new String(buf, start, end[0] - start, StandardCharsets.UTF_8);
	}

	private static String skipValue(byte[] buf, int start, int limit, int[] end) {
		JsonScanner json = new JsonScanner(buf, start, limit - start);
		json.skipValue();
		end[0] = json.position();
		return "";
	}

	private static String head(byte[] buf, int start, int limit) {
		String head = new String(buf, start, limit - start, StandardCharsets.ISO_8859_1);
		return head.startsWith("{\"head\"") ? "HEAD " + head.substring(0, 11) : null;
	}

	private static String randomObject(Random random, int depth) {
		StringBuilder json = new StringBuilder("{");
		int members = random.nextInt((depth < 3) ? 5 : 2);
		for (int i = 0; i < members; i++) {
			json.append((i > 0) ? "," : "")
				.append(randomString(random))
				.append(':')
				.append(randomValue(random, depth + 1));
		}
		return json.append('}').toString();
	}

	private static String randomValue(Random random, int depth) {
		return switch (random.nextInt((depth < 4) ? 5 : 3)) {
			case 0 -> randomString(random);
			case 1 -> Integer.toString(random.nextInt());
			case 2 -> "true";
			case 3 -> randomObject(random, depth);
			default -> {
				StringBuilder array = new StringBuilder("[");
				int n = random.nextInt(4);
				for (int i = 0; i < n; i++) {
					array.append((i > 0) ? "," : "").append(randomValue(random, depth + 1));
				}
				yield array.append(']').toString();
			}
		};
	}

	private static String randomString(Random random) {
		String[] pieces = { "a", "\\\"", "\\\\", "{", "}", "[", "]", "\\u00e9", "é", " ", ":", "," };
		StringBuilder text = new StringBuilder("\"");
		int n = random.nextInt(8);
		for (int i = 0; i < n; i++) {
			text.append(pieces[random.nextInt(pieces.length)]);
		}
		return text.append('"').toString();
	}

	private static JsonFrameReader reader(String stream, int maxFrame, int chunk) {
		return new JsonFrameReader(new Chunked(stream.getBytes(StandardCharsets.UTF_8), chunk), maxFrame);
	}

	/** Cuts frames as {@link JsonFrameReader#next()} does, counting the tries. */
	static final class Counting implements JsonFrameReader.FrameDecoder<String> {

		int calls;

		@Override
		public String decode(byte[] buf, int start, int limit, int[] end) {
			this.calls++;
			JsonScanner json = new JsonScanner(buf, start, limit - start);
			json.skipValue();
			end[0] = json.position();
			return new String(buf, start, end[0] - start, StandardCharsets.UTF_8);
		}

	}

	private static List<String> frames(String stream, int maxFrame, int chunk) throws IOException {
		JsonFrameReader reader = new JsonFrameReader(new Chunked(stream.getBytes(StandardCharsets.UTF_8), chunk),
				maxFrame);
		List<String> frames = new ArrayList<>();
		while (reader.next()) {
			frames.add(new String(reader.buffer(), reader.start(), reader.length(), StandardCharsets.UTF_8));
		}
		return frames;
	}

	/** Hands out at most {@code chunk} bytes per read, as a network stream may. */
	static final class Chunked extends InputStream {

		private final ByteArrayInputStream in;

		private final int chunk;

		private final boolean ends;

		Chunked(byte[] bytes, int chunk) {
			this(bytes, chunk, true);
		}

		/**
		 * @param ends whether the stream ends after the bytes, or would wait for more
		 * (and so fails a read past them)
		 */
		Chunked(byte[] bytes, int chunk, boolean ends) {
			this.in = new ByteArrayInputStream(bytes);
			this.chunk = chunk;
			this.ends = ends;
		}

		@Override
		public int read() {
			checkNotWaiting();
			return this.in.read();
		}

		@Override
		public int read(byte[] b, int off, int len) {
			checkNotWaiting();
			return this.in.read(b, off, Math.min(len, this.chunk));
		}

		@Override
		public int available() {
			return this.in.available();
		}

		private void checkNotWaiting() {
			if (!this.ends && this.in.available() == 0) {
				throw new IllegalStateException("a read that would wait for bytes not sent yet");
			}
		}

	}

}
