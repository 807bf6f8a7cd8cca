package dev.listwatch.client;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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

		Chunked(byte[] bytes, int chunk) {
			this.in = new ByteArrayInputStream(bytes);
			this.chunk = chunk;
		}

		@Override
		public int read() {
			return this.in.read();
		}

		@Override
		public int read(byte[] b, int off, int len) {
			return this.in.read(b, off, Math.min(len, this.chunk));
		}

	}

}
