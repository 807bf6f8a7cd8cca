package dev.listwatch;

import java.util.Iterator;

/**
 * An open watch: the events of one streamed {@code GET ...?watch=1}, read one at a time.
 * <p>
 * {@link #next()} blocks until the next event arrives; {@link #hasNext()} is
 * {@code false} once the server has ended the stream (its timeout) or the stream was
 * closed. A broken connection or undecodable bytes surface from
 * {@code hasNext()}/{@code next()} as a {@link KubernetesApiException}. Not thread-safe,
 * except {@link #close()}, which any thread may call to end a blocked read and release
 * the connection at once.
 *
 * @param <T> the Java type of the objects
 */
public interface WatchStream<T> extends Iterator<WatchEvent<T>>, AutoCloseable {

	/**
	 * Whether the next event (or the end) has arrived already, so that {@link #hasNext()}
	 * would not wait for the server. A hint: {@code false} when unknown, which is always
	 * correct. The informer hands the events that arrived together to its listeners'
	 * threads together, and wakes them at the latest when this is {@code false}. It also
	 * resumes a broken or stopped watch from the resourceVersion of an event only once
	 * this is {@code false} after it, or a later resourceVersion began: a stream whose
	 * events of one resourceVersion come together (an etcd txn) says {@code true} between
	 * them, so that none of them is lost; the events resent that way are replays the
	 * informer recognises (same key, same resourceVersion).
	 * @return whether the next event has arrived
	 */
	default boolean hasBuffered() {
		return false;
	}

	/**
	 * Ends the stream and releases its connection. Idempotent.
	 */
	@Override
	void close();

}
