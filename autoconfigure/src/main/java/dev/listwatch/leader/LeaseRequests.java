package dev.listwatch.leader;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import org.jspecify.annotations.Nullable;

/**
 * Requests on a Lease, each run on a short-lived helper thread and waited for until a
 * deadline on the monotonic ticker, then aborted: so that the elector's loop gives up on
 * a request that hangs (a half-open connection) before its renew deadline, whatever the
 * transport's timeouts. One request at a time; {@link #abort()} cancels the one under
 * way. Thread-safe.
 */
final class LeaseRequests {

	private final String lease;

	private final LongSupplier ticker;

	private final ExecutorService threads;

	private final ReentrantLock lock = new ReentrantLock();

	/** The request under way, if any; guarded by {@link #lock}. */
	private @Nullable Future<?> inflight;

	/**
	 * Makes the requests of one elector.
	 * @param lease the Lease, for messages ({@code namespace/name})
	 * @param threadPrefix the prefix of the helper threads' names
	 * @param ticker the monotonic time source the deadlines are on
	 */
	LeaseRequests(String lease, String threadPrefix, LongSupplier ticker) {
		this.lease = lease;
		this.ticker = ticker;
		AtomicInteger count = new AtomicInteger();
		this.threads = Executors.newCachedThreadPool((runnable) -> {
			Thread thread = new Thread(runnable, threadPrefix + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * Runs a request on a helper thread and waits for it until {@code deadline}, then
	 * aborts it.
	 * @param <T> what it answers
	 * @param request the request
	 * @param deadline when to give up, on the ticker
	 * @return the answer
	 * @throws KubernetesApiException when it fails, gets no answer in time, is aborted or
	 * interrupted, or there is no time left
	 */
	<T> T call(Supplier<T> request, long deadline) {
		long left = deadline - this.ticker.getAsLong();
		if (left <= 0) {
			throw new KubernetesApiException(Kind.CONNECTION,
					"No time left for a request on Lease " + this.lease + " before the renew deadline", null);
		}
		Future<T> future = this.threads.submit(request::get);
		this.lock.lock();
		try {
			this.inflight = future;
		}
		finally {
			this.lock.unlock();
		}
		try {
			return future.get(left, TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			future.cancel(true);
			throw new KubernetesApiException(Kind.CONNECTION, "A request on Lease " + this.lease
					+ " got no answer within " + Duration.ofNanos(left).toMillis() + " ms", null);
		}
		catch (CancellationException ex) {
			throw new KubernetesApiException(Kind.CONNECTION,
					"A request on Lease " + this.lease + " was aborted: the elector stops", null);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new IllegalStateException(cause);
		}
		catch (InterruptedException ex) {
			future.cancel(true);
			Thread.currentThread().interrupt();
			throw new KubernetesApiException(Kind.CONNECTION,
					"Interrupted while waiting for a request on Lease " + this.lease, null);
		}
		finally {
			this.lock.lock();
			try {
				this.inflight = null;
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	/** Cancels the request under way, if any (the elector stops). */
	void abort() {
		this.lock.lock();
		try {
			if (this.inflight != null) {
				this.inflight.cancel(true);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Stops the helper threads. */
	void close() {
		this.threads.shutdownNow();
	}

}
