package dev.listwatch.client;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Cuts a stream of concatenated (or newline-delimited) top-level JSON objects into frames, one
 * object at a time, letting the decoder find where each ends as it reads it, so the bytes are
 * scanned once. Only the bytes of the current frame (and what was read ahead) are held; a frame
 * larger than the limit is refused. Not thread-safe.
 */
final class JsonFrameReader {

	private static final int INITIAL_CAPACITY = 16 * 1024;

	private final InputStream in;

	private final int maxFrameBytes;

	private byte[] buf = new byte[INITIAL_CAPACITY];

	/** Start of the current frame, once {@link #next()} returned true. */
	private int frameStart;

	/** End (exclusive) of the current frame. */
	private int frameEnd;

	/** End (exclusive) of the bytes read. */
	private int limit;

	private final int[] end = new int[1];

	JsonFrameReader(InputStream in, int maxFrameBytes) {
		this.in = in;
		this.maxFrameBytes = maxFrameBytes;
	}

	byte[] buffer() {
		return this.buf;
	}

	int start() {
		return this.frameStart;
	}

	int length() {
		return this.frameEnd - this.frameStart;
	}

	/**
	 * Reads up to the end of the next frame, checking only that it is a complete JSON value.
	 * @return {@code false} when the stream ended cleanly between frames
	 * @throws IOException when reading fails
	 * @throws EOFException when the stream ends inside a frame (a truncated event)
	 * @throws MalformedFrameException when the bytes are not a JSON object or a frame is too large
	 */
	boolean next() throws IOException {
		return next(JsonFrameReader::skip) != null;
	}

	private static Boolean skip(byte[] buf, int start, int limit, int[] end) {
		JsonScanner json = new JsonScanner(buf, start, limit - start);
		json.skipValue();
		end[0] = json.position();
		return Boolean.TRUE;
	}

	/**
	 * Decodes the next frame straight from the buffer: the decoder reads it (in one pass) and says
	 * where it ends; when the bytes read so far end inside it, more are read and it is decoded
	 * again once the buffer ends with a '}' that may close it, or has doubled.
	 * @param <R> what the decoder makes of a frame
	 * @param decoder the decoder
	 * @return what the decoder made, or {@code null} when the stream ended cleanly between frames
	 * @throws IOException when reading fails
	 * @throws EOFException when the stream ends inside a frame (a truncated event)
	 * @throws MalformedFrameException when the bytes are not a JSON object or a frame is too large
	 */
	<R> R next(FrameDecoder<R> decoder) throws IOException {
		int pos = this.frameEnd;
		// skip whitespace between frames
		while (true) {
			if (pos == this.limit) {
				this.frameStart = 0;
				this.frameEnd = 0;
				this.limit = 0;
				pos = 0;
				if (!fill()) {
					return null;
				}
			}
			byte b = this.buf[pos];
			if (b == ' ' || b == '\n' || b == '\r' || b == '\t') {
				pos++;
				continue;
			}
			if (b != '{') {
				throw new MalformedFrameException("expected a JSON object but found " + describe(pos));
			}
			break;
		}
		this.frameStart = pos;
		// try at once; then again when the bytes end as a frame may, or have doubled since the last
		// try (so a huge frame arriving in small reads is not rescanned after every read)
		int tried = -1;
		while (true) {
			int available = this.limit - this.frameStart;
			if (tried < 0 || available >= 2 * tried || mayBeComplete()) {
				tried = available;
				try {
					R result = decoder.decode(this.buf, this.frameStart, this.limit, this.end);
					this.frameEnd = this.end[0];
					return result;
				}
				catch (JsonScanner.Incomplete ex) {
					// the frame goes on: read more
				}
			}
			if (this.limit - this.frameStart >= this.maxFrameBytes) {
				throw new MalformedFrameException("an event is larger than the limit of " + this.maxFrameBytes
						+ " bytes (listwatch.defaults.max-event-size)");
			}
			if (this.frameStart > 0) {
				// move the partial frame to the front before reading more
				int partial = this.limit - this.frameStart;
				System.arraycopy(this.buf, this.frameStart, this.buf, 0, partial);
				this.frameStart = 0;
				this.limit = partial;
			}
			if (!fill()) {
				throw new EOFException("the stream ended inside an event after " + (this.limit - this.frameStart)
						+ " bytes (truncated)");
			}
		}
	}

	/** Whether the bytes read end with a '}' (and whitespace): a frame may end there. */
	private boolean mayBeComplete() {
		for (int i = this.limit - 1; i > this.frameStart; i--) {
			byte c = this.buf[i];
			if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
				return c == '}';
			}
		}
		return false;
	}

	/**
	 * Reads one frame from the bytes of a buffer.
	 *
	 * @param <R> what it makes of the frame
	 */
	@FunctionalInterface
	interface FrameDecoder<R> {

		/**
		 * Decodes the frame that starts at {@code start}.
		 * @param buf the buffer
		 * @param start where the frame starts
		 * @param limit where the bytes read end
		 * @param end receives where the frame ends
		 * @return the decoded frame
		 * @throws JsonScanner.Incomplete when the frame goes on past {@code limit}
		 */
		R decode(byte[] buf, int start, int limit, int[] end);

	}

	/** Reads more bytes, growing the buffer when full. */
	private boolean fill() throws IOException {
		if (this.limit == this.buf.length) {
			int capacity = (int) Math.min((long) this.buf.length * 2, (long) this.maxFrameBytes + 1);
			if (capacity <= this.buf.length) {
				capacity = this.buf.length + INITIAL_CAPACITY;
			}
			byte[] grown = new byte[capacity];
			System.arraycopy(this.buf, 0, grown, 0, this.limit);
			this.buf = grown;
		}
		int n = this.in.read(this.buf, this.limit, this.buf.length - this.limit);
		if (n < 0) {
			return false;
		}
		this.limit += n;
		return true;
	}

	private String describe(int pos) {
		int end = Math.min(this.limit, pos + 40);
		StringBuilder text = new StringBuilder();
		for (int i = pos; i < end; i++) {
			char c = (char) (this.buf[i] & 0xff);
			text.append((c >= 0x20 && c < 0x7f) ? c : '.');
		}
		return "'" + text + "'" + ((text.length() > 0 && text.charAt(0) == '<') ? " (an HTML page, perhaps from a proxy)" : "");
	}

	/**
	 * The stream holds something other than a sequence of JSON objects within the size limit.
	 */
	static final class MalformedFrameException extends IOException {

		MalformedFrameException(String message) {
			super(message);
		}

	}

}
