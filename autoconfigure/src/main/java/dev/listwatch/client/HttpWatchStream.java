package dev.listwatch.client;

import java.io.IOException;
import java.io.InputStream;
import java.util.NoSuchElementException;
import java.util.Objects;

import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStream;
import org.jspecify.annotations.Nullable;

import org.springframework.http.client.ClientHttpResponse;

/**
 * A watch over one streamed HTTP response, decoded one frame at a time. An event larger
 * than the size limit is handed up as an event whose object cannot be held (see
 * {@link ObjectDecoder#decodeOversizedEvent}) and the watch goes on; when its first bytes
 * do not tell which object it is, the watch fails with DECODE.
 *
 * @param <T> the Java type of the objects
 */
final class HttpWatchStream<T> implements WatchStream<T> {

	/**
	 * The frame reader's buffer once the watch is busy (a read filled it): room for
	 * several events of a few KB, so that one read takes what has arrived and the events
	 * in it are handed to listeners together. A quiet watch keeps the reader's smaller
	 * first buffer.
	 */
	static final int BUSY_FRAME_BUFFER = 64 * 1024;

	private final String request;

	private final ClientHttpResponse response;

	private final InputStream body;

	private final JsonFrameReader frames;

	private final JsonFrameReader.FrameDecoder<WatchEvent<T>> events;

	private final JsonFrameReader.OversizedFrame<WatchEvent<T>> oversized;

	private volatile boolean closed;

	private @Nullable WatchEvent<T> next;

	private boolean ended;

	HttpWatchStream(String request, ClientHttpResponse response, InputStream body, ObjectDecoder<T> decoder,
			int maxEventBytes) {
		this.request = request;
		this.response = response;
		this.body = body;
		this.frames = new JsonFrameReader(body, maxEventBytes);
		this.frames.growWhenBusy(BUSY_FRAME_BUFFER);
		this.events = decoder::decodeEvent;
		this.oversized = (buf, start, limit) -> decoder.decodeOversizedEvent(buf, start, limit, maxEventBytes);
	}

	@Override
	public boolean hasNext() {
		if (this.next != null) {
			return true;
		}
		if (this.ended || this.closed) {
			return false;
		}
		WatchEvent<T> event;
		try {
			event = this.frames.next(this.events, this.oversized);
		}
		catch (JsonFrameReader.MalformedFrameException | DecodeException ex) {
			close();
			throw ApiErrors.decode(this.request, ex);
		}
		catch (IOException | RuntimeException ex) {
			boolean byClose = this.closed;
			close();
			if (byClose) {
				return false;
			}
			throw ApiErrors.connection(this.request, ex);
		}
		if (event == null) {
			this.ended = true;
			close();
			return false;
		}
		this.next = event;
		return true;
	}

	/**
	 * Whether an event is waiting, or a whole line of the stream after the last event has
	 * been read (the API server writes one event per line).
	 */
	@Override
	public boolean hasBuffered() {
		return this.next != null || (!this.closed && !this.ended && this.frames.lineBuffered());
	}

	@Override
	public WatchEvent<T> next() {
		if (!hasNext()) {
			throw new NoSuchElementException("the watch " + this.request + " has ended");
		}
		WatchEvent<T> event = Objects.requireNonNull(this.next, "hasNext() holds the next event when it answers true");
		this.next = null;
		return event;
	}

	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		// close the body first: the response's own close() drains the body, which on a
		// watch would wait for the server to end it
		try {
			this.body.close();
		}
		catch (IOException | RuntimeException ex) {
			// closing is best effort: the connection is gone either way
		}
		try {
			this.response.close();
		}
		catch (RuntimeException ex) {
			// as above
		}
	}

	boolean isClosed() {
		return this.closed;
	}

	@Override
	public String toString() {
		return "watch " + this.request;
	}

}
