package dev.listwatch.client;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Cuts a stream of concatenated (or newline-delimited) top-level JSON objects into frames, one
 * object at a time, without parsing them: a byte scan that tracks nesting and strings. Only the
 * bytes of the current frame (and what was read ahead) are held; a frame larger than the limit is
 * refused. Not thread-safe.
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
	 * Reads up to the end of the next frame.
	 * @return {@code false} when the stream ended cleanly between frames
	 * @throws IOException when reading fails
	 * @throws EOFException when the stream ends inside a frame (a truncated event)
	 * @throws MalformedFrameException when the bytes are not a JSON object or a frame is too large
	 */
	boolean next() throws IOException {
		int pos = this.frameEnd;
		// skip whitespace between frames
		while (true) {
			if (pos == this.limit) {
				this.frameStart = 0;
				this.frameEnd = 0;
				this.limit = 0;
				pos = 0;
				if (!fill()) {
					return false;
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
		int depth = 0;
		boolean inString = false;
		boolean escaped = false;
		while (true) {
			if (pos == this.limit) {
				if (this.limit - this.frameStart >= this.maxFrameBytes) {
					throw new MalformedFrameException("an event is larger than the limit of " + this.maxFrameBytes
							+ " bytes (listwatch.watches.<name>.max-event-size)");
				}
				if (this.frameStart > 0) {
					// move the partial frame to the front before reading more
					int partial = this.limit - this.frameStart;
					System.arraycopy(this.buf, this.frameStart, this.buf, 0, partial);
					this.frameStart = 0;
					this.limit = partial;
					pos = partial;
				}
				if (!fill()) {
					throw new EOFException("the stream ended inside an event after " + (this.limit - this.frameStart)
							+ " bytes (truncated)");
				}
			}
			byte[] b = this.buf;
			int end = this.limit;
			for (; pos < end; pos++) {
				byte c = b[pos];
				if (inString) {
					if (escaped) {
						escaped = false;
					}
					else if (c == '\\') {
						escaped = true;
					}
					else if (c == '"') {
						inString = false;
					}
				}
				else if (c == '"') {
					inString = true;
				}
				else if (c == '{' || c == '[') {
					depth++;
				}
				else if (c == '}' || c == ']') {
					if (--depth == 0) {
						this.frameEnd = pos + 1;
						return true;
					}
				}
			}
		}
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
