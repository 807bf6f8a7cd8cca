package dev.listwatch.client;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Cuts a stream of concatenated (or newline-delimited) top-level JSON objects into
 * frames, one object at a time, letting the decoder find where each ends as it reads it,
 * so the bytes are scanned once. Only the bytes of the current frame (and what was read
 * ahead) are held, never more than the limit (and one read) for one frame: a frame larger
 * than the limit is refused, or, when the caller can make something of its first bytes
 * (an {@link OversizedFrame}), handed up as that and the rest of it skipped as it streams
 * in, without being held. The same machinery reads the parts of one large JSON value one
 * at a time ({@link #read}), as a list's items. Not thread-safe.
 */
final class JsonFrameReader {

	private static final int INITIAL_CAPACITY = 16 * 1024;

	private static final int NEWLINES_UNKNOWN = 0;

	private static final int NEWLINES_ON = 1;

	private static final int NEWLINES_OFF = 2;

	private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

	private final InputStream in;

	private final int maxFrameBytes;

	private byte[] buf;

	/** Start of the current frame, once {@link #next()} returned true. */
	private int frameStart;

	/** End (exclusive) of the current frame. */
	private int frameEnd;

	/** End (exclusive) of the bytes read. */
	private int limit;

	private final int[] end = new int[1];

	/** The rest of an oversized frame still to be skipped, or {@code null}. */
	private @Nullable Skip skipping;

	/** Whether the stream has ended (the bytes read may still hold frames). */
	private boolean ended;

	/** Whether frames end with a newline: see {@link #worthTrying}. */
	private int newlines = NEWLINES_UNKNOWN;

	/** The last '\n' found in the buffer, or less than {@link #frameStart}. */
	private int lastNewline = -1;

	/**
	 * No newline before here comes after {@link #lastNewline}: bytes from here are not
	 * searched yet.
	 */
	private int searched;

	/** The buffer's size once a read has filled it (see {@link #growWhenBusy}). */
	private int busyCapacity;

	/**
	 * A read filled the buffer: grow it to {@link #busyCapacity} when it is next empty.
	 */
	private boolean busy;

	JsonFrameReader(InputStream in, int maxFrameBytes) {
		this(in, maxFrameBytes, INITIAL_CAPACITY);
	}

	/**
	 * Makes a reader.
	 * @param in the stream
	 * @param maxFrameBytes the size limit of one frame
	 * @param initialCapacity the buffer's size to begin with (it grows up to the limit,
	 * plus one)
	 */
	JsonFrameReader(InputStream in, int maxFrameBytes, int initialCapacity) {
		this.in = in;
		this.maxFrameBytes = maxFrameBytes;
		this.buf = new byte[Math.max(16, initialCapacity)];
	}

	byte[] buffer() {
		return this.buf;
	}

	/**
	 * Lets the buffer grow to {@code capacity} once a read has filled it whole (more had
	 * arrived than it holds), so that on a busy stream one read takes several frames; a
	 * quiet stream keeps the buffer it began with.
	 * @param capacity the buffer's size on a busy stream
	 */
	void growWhenBusy(int capacity) {
		this.busyCapacity = capacity;
	}

	int start() {
		return this.frameStart;
	}

	int length() {
		return this.frameEnd - this.frameStart;
	}

	/**
	 * Reads up to the end of the next frame, checking only that it is a complete JSON
	 * value.
	 * @return {@code false} when the stream ended cleanly between frames
	 * @throws IOException when reading fails
	 * @throws EOFException when the stream ends inside a frame (a truncated event)
	 * @throws MalformedFrameException when the bytes are not a JSON object or a frame is
	 * too large
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
	 * Decodes the next frame straight from the buffer: the decoder reads it (in one pass)
	 * and says where it ends; when the bytes read so far end inside it, more are read and
	 * it is decoded again (see {@link #worthTrying} for when).
	 * @param <R> what the decoder makes of a frame
	 * @param decoder the decoder
	 * @return what the decoder made, or {@code null} when the stream ended cleanly
	 * between frames
	 * @throws IOException when reading fails
	 * @throws EOFException when the stream ends inside a frame (a truncated event)
	 * @throws MalformedFrameException when the bytes are not a JSON object or a frame is
	 * too large
	 */
	<R> @Nullable R next(FrameDecoder<R> decoder) throws IOException {
		return next(decoder, null);
	}

	/**
	 * Decodes the next frame as {@link #next(FrameDecoder)} does; a frame larger than the
	 * limit is handed to {@code oversized} with its first {@code maxFrameBytes} bytes,
	 * and what that makes of them is returned at once; the rest of the frame is skipped
	 * as it arrives, by the next call (never held: the bytes are counted off, following
	 * strings, escapes and nesting, until the frame's object closes). After an oversized
	 * frame, {@link #buffer()}, {@link #start()} and {@link #length()} do not describe
	 * it.
	 * @param <R> what the decoder makes of a frame
	 * @param decoder the decoder
	 * @param oversized what to make of a frame over the limit, or {@code null} to refuse
	 * it
	 * @return what the decoder (or {@code oversized}) made, or {@code null} when the
	 * stream ended cleanly between frames
	 * @throws IOException when reading fails
	 * @throws EOFException when the stream ends inside a frame (a truncated event), or
	 * inside the rest of an oversized one
	 * @throws MalformedFrameException when the bytes are not a JSON object, or a frame is
	 * too large and {@code oversized} made nothing of it
	 */
	<R> @Nullable R next(FrameDecoder<R> decoder, @Nullable OversizedFrame<R> oversized) throws IOException {
		if (this.skipping != null) {
			finishSkip();
		}
		// the byte just after the last frame, when there was one, may tell that newlines
		// end frames
		int pos = skipWhitespace(this.frameEnd > this.frameStart);
		if (pos < 0) {
			return null;
		}
		if (this.buf[pos] != '{') {
			throw new MalformedFrameException("expected a JSON object but found " + describe(pos));
		}
		this.frameStart = pos;
		return decodeFrame(decoder, oversized, "an event", false);
	}

	/**
	 * Decodes what starts right at the current position (after the last frame or part
	 * read): one part of a larger JSON value, such as a list's next member or item,
	 * whitespace and separators included as the decoder reads them. The size limit holds
	 * for each part, as for a frame. As the whole value is wanted (not each part as soon
	 * as it arrives), a part that goes on past the bytes read is decoded again only once
	 * all that has arrived is read (up to a full buffer), so that few parts are scanned
	 * twice however small the reads are.
	 * @param <R> what the decoder makes of the part
	 * @param decoder the decoder
	 * @param oversized what to make of a part over the limit (it must start with '{'), or
	 * {@code null} to refuse it
	 * @param what what the part is, for messages, for example {@code "a list item"}
	 * @return what the decoder (or {@code oversized}) made
	 * @throws IOException when reading fails
	 * @throws EOFException when the stream ends inside the part
	 * @throws MalformedFrameException when the part is too large and {@code oversized}
	 * made nothing of it
	 */
	<R> R read(FrameDecoder<R> decoder, @Nullable OversizedFrame<R> oversized, String what) throws IOException {
		if (this.skipping != null) {
			finishSkip();
		}
		if (this.frameEnd == this.limit) {
			clear();
		}
		this.frameStart = this.frameEnd;
		return decodeFrame(decoder, oversized, what, true);
	}

	/**
	 * Whether only whitespace follows the last frame or part, up to the end of the stream
	 * (read to its end).
	 * @return {@code true} when the stream ended after whitespace, {@code false} at
	 * anything else
	 * @throws IOException when reading fails
	 */
	boolean atEnd() throws IOException {
		if (this.skipping != null) {
			finishSkip();
		}
		int pos = skipWhitespace(false);
		if (pos < 0) {
			return true;
		}
		this.frameStart = pos;
		this.frameEnd = pos;
		return false;
	}

	/**
	 * Skips whitespace from the end of the last frame, reading more as needed.
	 * @param afterFrame whether a frame ends just before: a newline right after it then
	 * tells that newlines end frames
	 * @return the position of the next byte that is not whitespace, or -1 at the end of
	 * the stream
	 * @throws IOException when reading fails
	 */
	private int skipWhitespace(boolean afterFrame) throws IOException {
		int pos = this.frameEnd;
		while (true) {
			if (pos == this.limit) {
				clear();
				pos = 0;
				if (this.ended || !fill()) {
					this.ended = true;
					return -1;
				}
			}
			byte b = this.buf[pos];
			if (afterFrame && b == '\n' && this.newlines == NEWLINES_UNKNOWN) {
				this.newlines = NEWLINES_ON;
				this.lastNewline = pos;
				this.searched = pos + 1;
			}
			afterFrame = false;
			if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
				return pos;
			}
			pos++;
		}
	}

	/** Drops the bytes held (all of them read already). */
	private void clear() {
		if (this.busy) {
			this.busy = false;
			this.buf = new byte[Math.max(this.buf.length, this.busyCapacity)];
		}
		this.frameStart = 0;
		this.frameEnd = 0;
		this.limit = 0;
		this.lastNewline = -1;
		this.searched = 0;
	}

	/**
	 * Decodes the frame that starts at {@link #frameStart}, reading more bytes until it
	 * is whole. {@code what} names it in messages: "an event". When {@code fillUp}, all
	 * that has arrived is read (as far as the stream tells, up to a full buffer) before
	 * the frame is tried again, else it may be tried after each read (see
	 * {@link #worthTrying}).
	 */
	private <R> R decodeFrame(FrameDecoder<R> decoder, @Nullable OversizedFrame<R> oversized, String what,
			boolean fillUp) throws IOException {
		// the bytes there were at the last try: never twice with the same bytes
		int tried = -1;
		while (true) {
			int available = this.limit - this.frameStart;
			boolean full = available >= this.maxFrameBytes;
			if (available != tried && (this.ended || full || worthTrying(tried))) {
				boolean byNewline = this.newlines == NEWLINES_ON && this.lastNewline > this.frameStart;
				tried = available;
				try {
					R result = decoder.decode(this.buf, this.frameStart, this.limit, this.end);
					if (this.end[0] - this.frameStart > this.maxFrameBytes) {
						// it arrived whole in one read: the limit holds all the same
						int frameEnd = this.end[0];
						R head = head(oversized, what);
						this.frameEnd = frameEnd;
						return head;
					}
					this.frameEnd = this.end[0];
					if (result == null) {
						throw tooLarge(what);
					}
					return result;
				}
				catch (JsonScanner.Incomplete ex) {
					if (byNewline) {
						// newlines inside frames (pretty-printed JSON): they do not tell
						// where frames end
						this.newlines = NEWLINES_OFF;
					}
				}
			}
			if (this.ended) {
				throw new EOFException(
						"the stream ended inside " + what + " after " + available + " bytes (truncated)");
			}
			if (full) {
				R head = head(oversized, what);
				startSkip(what);
				return head;
			}
			if (this.frameStart > 0) {
				// move the partial frame to the front before reading more (of a larger
				// buffer once busy)
				int shift = this.frameStart;
				byte[] to = this.busy ? new byte[Math.max(this.buf.length, this.busyCapacity)] : this.buf;
				this.busy = false;
				System.arraycopy(this.buf, shift, to, 0, available);
				this.buf = to;
				this.frameStart = 0;
				this.limit = available;
				this.lastNewline -= shift;
				this.searched = Math.max(0, this.searched - shift);
			}
			if (!fill()) {
				// what is left is decoded once more, above, before the stream is called
				// truncated
				this.ended = true;
			}
			while (fillUp && !this.ended && this.limit < this.buf.length && this.in.available() > 0) {
				this.ended = !fill();
			}
		}
	}

	/**
	 * Whether to decode the current frame with the bytes read so far, when it has been
	 * decoded before with {@code tried} bytes (-1 if not yet). Only a matter of speed: a
	 * try too many scans the bytes again, one too few waits for more bytes than needed,
	 * but the bytes decide where a frame ends. The API server writes one event per line,
	 * so once a frame has been seen followed by a newline, only a newline after the
	 * frame's start (or, in case the newlines stop, bytes that end with a '}') makes it
	 * worth trying; until then, and for good once a frame went on past a newline, it is
	 * tried at once, then when the bytes end with a '}' or have doubled (so a huge frame
	 * arriving in small reads is not rescanned after every read).
	 */
	private boolean worthTrying(int tried) {
		if (this.newlines == NEWLINES_ON) {
			return newlineAfter(this.frameStart) || mayBeComplete();
		}
		return tried < 0 || this.limit - this.frameStart >= 2 * tried || mayBeComplete();
	}

	/**
	 * Whether a newline was read after {@code from}, searching only bytes not searched
	 * before (backwards from the end, as only the last newline matters).
	 */
	private boolean newlineAfter(int from) {
		if (this.lastNewline <= from && this.searched < this.limit) {
			int found = lastNewline(this.buf, this.searched, this.limit);
			if (found >= 0) {
				this.lastNewline = found;
			}
			this.searched = this.limit;
		}
		return this.lastNewline > from;
	}

	/** The index of the last '\n' in {@code [from, to)}, or -1; eight bytes at a time. */
	static int lastNewline(byte[] b, int from, int to) {
		int i = to;
		while (i - 8 >= from) {
			long w = (long) LONGS.get(b, i - 8) ^ 0x0A0A0A0A0A0A0A0AL;
			// 0x80 in exactly the bytes that are zero (no borrows, so the highest is
			// exact too)
			long zero = ~(((w & 0x7F7F7F7F7F7F7F7FL) + 0x7F7F7F7F7F7F7F7FL) | w | 0x7F7F7F7F7F7F7F7FL);
			if (zero != 0) {
				return i - 1 - (Long.numberOfLeadingZeros(zero) >>> 3);
			}
			i -= 8;
		}
		while (--i >= from) {
			if (b[i] == '\n') {
				return i;
			}
		}
		return -1;
	}

	private MalformedFrameException tooLarge(String what) {
		return new MalformedFrameException(capitalized(what) + " is larger than the limit of " + this.maxFrameBytes
				+ " bytes (listwatch.defaults.max-event-size)");
	}

	private static String capitalized(String text) {
		return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
	}

	/**
	 * What {@code oversized} makes of the first {@code maxFrameBytes} bytes of the
	 * current frame.
	 */
	private <R> R head(@Nullable OversizedFrame<R> oversized, String what) throws MalformedFrameException {
		R head = (oversized != null) ? oversized.head(this.buf, this.frameStart, this.frameStart + this.maxFrameBytes)
				: null;
		if (head == null) {
			throw tooLarge(what);
		}
		return head;
	}

	/**
	 * Starts skipping the current frame, which starts with '{': the bytes held are
	 * scanned; if the frame goes on past them, they are dropped and the rest is skipped
	 * by {@link #finishSkip} as it streams in, the buffer not growing. Afterwards (or
	 * after {@code finishSkip}) {@link #frameEnd} is just after the frame.
	 */
	private void startSkip(String what) {
		Skip skip = new Skip(what);
		int at = skip.scan(this.buf, this.frameStart, this.limit);
		if (at >= 0) {
			this.frameEnd = at;
			return;
		}
		skip.skipped = this.limit - this.frameStart;
		clear();
		this.skipping = skip;
	}

	/**
	 * Skips the rest of an oversized frame, reading into the buffer as it is, and
	 * dropping what was read.
	 */
	private void finishSkip() throws IOException {
		Skip skip = Objects.requireNonNull(this.skipping, "called when a frame is being skipped");
		this.skipping = null;
		while (true) {
			clear();
			if (this.ended || !fill()) {
				this.ended = true;
				throw new EOFException(
						"the stream ended inside " + skip.what + " after " + skip.skipped + " bytes (truncated)");
			}
			int at = skip.scan(this.buf, 0, this.limit);
			if (at >= 0) {
				this.frameEnd = at;
				return;
			}
			skip.skipped += this.limit;
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
		 * @return the decoded frame; {@code null} only for a frame over the limit, which
		 * the reader then hands to the {@link OversizedFrame}
		 * @throws JsonScanner.Incomplete when the frame goes on past {@code limit}
		 */
		@Nullable R decode(byte[] buf, int start, int limit, int[] end);

	}

	/**
	 * Makes something of a frame larger than the limit from its first bytes, for example
	 * an event that says which object was too large.
	 *
	 * @param <R> what it makes of the frame
	 */
	@FunctionalInterface
	interface OversizedFrame<R> {

		/**
		 * Reads the first bytes of a frame that is larger than the limit.
		 * @param buf the buffer
		 * @param start where the frame starts
		 * @param limit where its first {@code maxFrameBytes} bytes end (the frame goes
		 * on)
		 * @return what to hand up for the frame, or {@code null} when its first bytes do
		 * not tell enough (the frame is then refused as too large)
		 */
		@Nullable R head(byte[] buf, int start, int limit);

	}

	/**
	 * Follows one JSON object across reads without holding it: nesting depth, whether
	 * inside a string and whether the byte before was an escaping backslash. Checks
	 * nothing else.
	 */
	static final class Skip {

		/** What the frame is, for messages. */
		final String what;

		/** The bytes skipped so far, for messages. */
		long skipped;

		private int depth;

		private boolean inString;

		private boolean escaped;

		Skip(String what) {
			this.what = what;
		}

		/**
		 * Scans bytes that follow those scanned before.
		 * @param b the bytes
		 * @param from where to start
		 * @param to where the bytes end
		 * @return the index just after the object's closing '}', or -1 when it goes on
		 * past {@code to}
		 */
		int scan(byte[] b, int from, int to) {
			int depth = this.depth;
			boolean inString = this.inString;
			boolean escaped = this.escaped;
			for (int i = from; i < to; i++) {
				byte c = b[i];
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
				else if ((c == '}' || c == ']') && --depth == 0) {
					this.depth = 0;
					this.inString = false;
					this.escaped = false;
					return i + 1;
				}
			}
			this.depth = depth;
			this.inString = inString;
			this.escaped = escaped;
			return -1;
		}

	}

	/**
	 * Whether, on a stream that ends its frames with newlines, a newline follows the
	 * separator after the last frame: the next frame has most likely arrived whole.
	 * {@code false} when unknown.
	 * @return whether a line after the last frame has been read
	 */
	boolean lineBuffered() {
		return this.newlines == NEWLINES_ON && this.frameEnd < this.limit && newlineAfter(this.frameEnd);
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
		if (this.limit == this.buf.length && this.buf.length < this.busyCapacity) {
			this.busy = true;
		}
		return true;
	}

	/**
	 * What was found where a JSON object should start. Only an HTML page (a proxy's error
	 * page) is quoted; of anything else only the first byte is named, since a garbled
	 * stream of Secrets must not end up in logs and health.
	 */
	private String describe(int pos) {
		if (pos < this.limit && this.buf[pos] == '<') {
			int end = Math.min(this.limit, pos + 40);
			StringBuilder text = new StringBuilder();
			for (int i = pos; i < end; i++) {
				char c = (char) (this.buf[i] & 0xff);
				text.append((c >= 0x20 && c < 0x7f) ? c : '.');
			}
			return "'" + text + "' (an HTML page, perhaps from a proxy)";
		}
		return (pos < this.limit) ? "the byte 0x" + String.format("%02x", this.buf[pos] & 0xff) : "nothing";
	}

	/**
	 * The stream holds something other than a sequence of JSON objects within the size
	 * limit.
	 */
	static final class MalformedFrameException extends IOException {

		MalformedFrameException(String message) {
			super(message);
		}

	}

}
