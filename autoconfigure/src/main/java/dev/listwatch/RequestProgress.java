package dev.listwatch;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Progress of a request in flight on the calling thread. The informer gives up a request
 * left without an answer for its idle timeout (a half-open connection answers nothing,
 * ever); a {@link ListerWatcher} whose answer takes longer than that to arrive in full,
 * yet keeps arriving (the body of a large list on a slow link), reports each part that
 * arrives, and the request then counts as unanswered only from its last part on.
 * <p>
 * A lister-watcher calls {@link #made()} on the thread that called
 * {@link ListerWatcher#list}, or reads its response body through
 * {@link #reporting(InputStream)}; whoever sends the request and wants to hear of it runs
 * it inside {@link #tracked(Runnable, Supplier)}. Outside of that, {@code made()} does
 * nothing. Cheap enough for every read of a body (a thread-local read), not meant for
 * every byte.
 */
public final class RequestProgress {

	private static final ThreadLocal<@Nullable Runnable> LISTENER = new ThreadLocal<>();

	private RequestProgress() {
	}

	/**
	 * Reports that part of the answer to the request in flight on this thread arrived.
	 */
	public static void made() {
		Runnable listener = LISTENER.get();
		if (listener != null) {
			listener.run();
		}
	}

	/**
	 * A body that reports progress each time a read returns bytes.
	 * @param body the response body
	 * @return the body, reporting
	 */
	public static InputStream reporting(InputStream body) {
		return new FilterInputStream(body) {

			@Override
			public int read() throws IOException {
				int b = super.read();
				if (b >= 0) {
					made();
				}
				return b;
			}

			@Override
			public int read(byte[] buffer, int offset, int length) throws IOException {
				int n = super.read(buffer, offset, length);
				if (n > 0) {
					made();
				}
				return n;
			}

		};
	}

	/**
	 * Sends a request on this thread, hearing of its progress.
	 * @param <R> the result
	 * @param listener called on this thread each time part of the answer arrives
	 * @param request the request
	 * @return its result
	 */
	public static <R> R tracked(Runnable listener, Supplier<R> request) {
		Runnable outer = LISTENER.get();
		LISTENER.set(listener);
		try {
			return request.get();
		}
		finally {
			if (outer != null) {
				LISTENER.set(outer);
			}
			else {
				LISTENER.remove();
			}
		}
	}

}
