package dev.listwatch.informer;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.RequestProgress;
import dev.listwatch.WatchStream;
import org.jspecify.annotations.Nullable;

/**
 * The idle watchdog of one {@link Reflector}: the one place where a watch that delivers
 * nothing, or a request that gets no answer, is given up. Its whole contract:
 * <ul>
 * <li><b>An open stream</b> that has delivered nothing (not even a bookmark) for the idle
 * timeout is closed: {@link WatchStream#close()} from the watchdog's thread ends the
 * reading thread's {@code hasNext()}. The reflector sees the watch end, asks
 * {@link #fired()}, and replaces it from its last resourceVersion (restart reason
 * {@code IDLE}, not a failure), then {@link #clear()}s it.</li>
 * <li><b>A request</b> (a list page, the opening of a watch) without an answer for the
 * idle timeout is abandoned (an answer that keeps arriving, each part reported through
 * {@link RequestProgress}, is one: a large list on a slow link is not abandoned while its
 * body streams in) by interrupting the thread that sent it: the JDK HTTP client ends a
 * blocking call on an interrupt, and the client reports that as a
 * {@link KubernetesApiException} of kind {@code CONNECTION}, which the reflector, asking
 * {@link #fired()}, counts as {@code IDLE}. When the request returns, {@link #request}
 * clears the interrupt, unless the reflector is stopping (then it stays, and the loop
 * ends).</li>
 * <li>{@link #abort()} does both at once for a stop.</li>
 * </ul>
 * Times are {@link Ticker} nanoseconds. Written by the reading thread; {@link #check} and
 * {@link #abort} run on any thread.
 *
 * @param <T> the Java type of the watched objects
 */
final class Watchdog<T> {

	private final Ticker ticker;

	private final long idleNanos;

	private final BooleanSupplier stopping;

	/** The thread that reads and sends requests. */
	private volatile @Nullable Thread reader;

	private volatile @Nullable WatchStream<T> stream;

	/** When the current stream last delivered something, or opened. */
	private volatile long lastActivity;

	/** Whether a request is under way, and since when. */
	private volatile boolean requestPending;

	private volatile long requestSince;

	/**
	 * Whether the watchdog closed the stream or abandoned the request since it was last
	 * asked.
	 */
	private volatile boolean fired;

	Watchdog(Ticker ticker, long idleNanos, BooleanSupplier stopping) {
		this.ticker = ticker;
		this.idleNanos = idleNanos;
		this.stopping = stopping;
	}

	/** The calling thread is the reader from now on. */
	void bindReader() {
		this.reader = Thread.currentThread();
	}

	/**
	 * Sends a request that the watchdog abandons if it stays without an answer for the
	 * idle timeout. Clears, when it returns, the interrupt an abandonment left, unless
	 * stopping.
	 * @param <R> the result type
	 * @param request the request
	 * @return its result
	 */
	<R> R request(Supplier<R> request) {
		this.requestSince = this.ticker.nanoTime();
		this.requestPending = true;
		try {
			// a body still arriving (a large list on a slow link) is an answer, part by
			// part
			return RequestProgress.tracked(this::answered, request);
		}
		finally {
			this.requestPending = false;
			if (!this.stopping.getAsBoolean()) {
				Thread.interrupted();
			}
		}
	}

	/**
	 * Part of the answer to the request in flight arrived: it is unanswered only from now
	 * on.
	 */
	private void answered() {
		this.requestSince = this.ticker.nanoTime();
	}

	/**
	 * A watch opened: it is the current stream, active now.
	 * @param stream the stream
	 */
	void opened(WatchStream<T> stream) {
		this.fired = false;
		this.lastActivity = this.ticker.nanoTime();
		this.stream = stream;
	}

	/** The current stream ended. */
	void closed() {
		this.stream = null;
	}

	/**
	 * The stream delivered something.
	 * @param nanos when, on the ticker
	 */
	void activity(long nanos) {
		this.lastActivity = nanos;
	}

	/**
	 * When the stream last delivered something (to give back activity that does not
	 * count).
	 * @return the ticker time
	 */
	long lastActivity() {
		return this.lastActivity;
	}

	/**
	 * Whether the watchdog closed the stream or abandoned a request since the last watch
	 * opened or {@link #clear()}: the failure or end the reader sees is its doing.
	 * @return whether it fired
	 */
	boolean fired() {
		return this.fired;
	}

	/** The reader has dealt with the watchdog's last firing. */
	void clear() {
		this.fired = false;
	}

	/**
	 * Closes a stream silent for the idle timeout, or abandons a request unanswered for
	 * as long.
	 * @return whether it did
	 */
	boolean check() {
		long now = this.ticker.nanoTime();
		Thread thread = this.reader;
		if (this.requestPending && thread != null && now - this.requestSince > this.idleNanos) {
			this.requestPending = false;
			this.fired = true;
			thread.interrupt();
			return true;
		}
		WatchStream<T> current = this.stream;
		if (current != null && now - this.lastActivity > this.idleNanos) {
			this.fired = true;
			current.close();
			return true;
		}
		return false;
	}

	/** Closes the stream and abandons a request at once, for a stop. */
	void abort() {
		WatchStream<T> current = this.stream;
		if (current != null) {
			current.close();
		}
		Thread thread = this.reader;
		if (thread != null && this.requestPending) {
			thread.interrupt();
		}
	}

}
