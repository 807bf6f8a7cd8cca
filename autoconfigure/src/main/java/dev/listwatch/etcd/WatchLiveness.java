package dev.listwatch.etcd;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

/**
 * Finds the etcd watches of a client whose connection died without a word (a half-open
 * TCP connection: a dead load balancer, a NAT failover), so that none stays open and
 * stale for longer than the timeout. A watch whose reader has waited a third of the
 * timeout without hearing from etcd asks etcd for progress on the open watch
 * ({@link Transport.Answers#requestProgress()}: etcd answers with its revision once it
 * has sent every event up to it), again after another third, and is given up when the
 * whole timeout has passed in silence: its answers are abandoned (closed, their
 * connection no longer used for new calls), and {@link Watched#abandoned()} says why, for
 * the reader to fail as a broken connection (the reflector then resumes from the last
 * revision, without a relist). A watch of a quiet prefix on a live connection is answered
 * each time, with a revision that moves with etcd's, so it is never given up, and a
 * compaction does not catch it behind.
 * <p>
 * Silence counts only while the reader waits for an answer: a reader busy with answers it
 * already has (a slow handler) is not etcd's silence. Times are nanoseconds of the
 * ticker. One scheduler thread per client checks each watch when its next step is due.
 * Thread-safe.
 */
final class WatchLiveness implements AutoCloseable {

	/**
	 * The timeout of a client made without one: the informer's default idle timeout, so
	 * that an etcd watch finds a dead connection as fast as an API server watch does.
	 */
	static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(90);

	private static final AtomicInteger schedulers = new AtomicInteger();

	private final long timeoutNanos;

	private final long requestNanos;

	private final Duration timeout;

	private final LongSupplier ticker;

	private final @Nullable ScheduledExecutorService scheduler;

	/**
	 * Liveness checks on a scheduler thread of their own.
	 * @param timeout how long a watch may stay silent while its reader waits, progress
	 * requests unanswered, before it is given up; at least 3 ms
	 */
	WatchLiveness(Duration timeout) {
		this(timeout, System::nanoTime, newScheduler());
	}

	/**
	 * Liveness checks with a ticker and scheduler of the caller's.
	 * @param timeout how long a watch may stay silent before it is given up
	 * @param ticker the monotonic time source, in nanoseconds
	 * @param scheduler runs the checks, or {@code null} for none (a test calls
	 * {@link Watched#check(long)} itself)
	 */
	WatchLiveness(Duration timeout, LongSupplier ticker, @Nullable ScheduledExecutorService scheduler) {
		if (timeout.toMillis() < 3) {
			throw new IllegalArgumentException("the watch timeout must be at least 3 ms, not " + timeout);
		}
		this.timeout = timeout;
		this.timeoutNanos = timeout.toNanos();
		this.requestNanos = this.timeoutNanos / 3;
		this.ticker = ticker;
		this.scheduler = scheduler;
	}

	private static ScheduledExecutorService newScheduler() {
		String name = "listwatch-etcd-liveness-" + schedulers.incrementAndGet();
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, name);
			thread.setDaemon(true);
			return thread;
		});
		scheduler.setRemoveOnCancelPolicy(true);
		return Executors.unconfigurableScheduledExecutorService(scheduler);
	}

	/**
	 * The timeout.
	 * @return how long a watch may stay silent before it is given up
	 */
	Duration timeout() {
		return this.timeout;
	}

	/**
	 * Starts looking after a watch; its reader reports to the registration it gets.
	 * @param answers the watch's answers, asked for progress and closed through it
	 * @param what the watch, for the reason it is given up
	 * @return the registration; {@link Watched#ended()} ends it
	 */
	Watched watch(Transport.Answers answers, String what) {
		Watched watched = new Watched(answers, what, this.ticker.getAsLong());
		watched.schedule(this.requestNanos);
		return watched;
	}

	/** Stops the checks; open watches are no longer looked after. Idempotent. */
	@Override
	public void close() {
		if (this.scheduler != null) {
			this.scheduler.shutdownNow();
		}
	}

	/**
	 * One watch looked after. Its reader calls {@link #waiting()} before it blocks for an
	 * answer and {@link #heard()} when it has one (or the watch ended).
	 */
	final class Watched {

		private final Transport.Answers answers;

		private final String what;

		/** When etcd was last heard from, or the watch opened. */
		private volatile long heardAt;

		/** When the reader began to wait for the answer it waits for. */
		private volatile long waitingSince;

		private volatile boolean waiting;

		private volatile boolean ended;

		private volatile @Nullable String abandoned;

		/** When a progress request was last sent; the checks alone use it. */
		private long requestedAt;

		private @Nullable ScheduledFuture<?> next;

		private Watched(Transport.Answers answers, String what, long now) {
			this.answers = answers;
			this.what = what;
			this.heardAt = now;
			this.waitingSince = now;
			this.requestedAt = now;
		}

		/** The reader is about to wait for etcd's next answer. */
		void waiting() {
			this.waitingSince = WatchLiveness.this.ticker.getAsLong();
			this.waiting = true;
		}

		/** The reader has etcd's answer (or the watch ended): etcd is there. */
		void heard() {
			this.heardAt = WatchLiveness.this.ticker.getAsLong();
			this.waiting = false;
		}

		/** The watch ended (closed, or broke off): it is no longer looked after. */
		void ended() {
			this.ended = true;
			ScheduledFuture<?> next = this.next;
			if (next != null) {
				next.cancel(false);
			}
		}

		/**
		 * Why the watch was given up.
		 * @return the reason, or {@code null} while it was not
		 */
		@Nullable String abandoned() {
			return this.abandoned;
		}

		/**
		 * One check: asks etcd for progress when a third of the timeout passed in silence
		 * since etcd was last heard from or asked, gives the watch up when the whole
		 * timeout passed in silence.
		 * @param now the ticker's reading
		 * @return nanoseconds until the next check is due, or -1 when there is none (the
		 * watch ended, or was given up)
		 */
		long check(long now) {
			if (this.ended || this.abandoned != null) {
				return -1;
			}
			if (!this.waiting) {
				// the reader is busy with what etcd sent: nothing is missing
				return WatchLiveness.this.requestNanos;
			}
			long since = Math.max(this.heardAt, this.waitingSince);
			long silent = now - since;
			if (silent >= WatchLiveness.this.timeoutNanos) {
				this.abandoned = this.what + ": no answer from etcd for " + Duration.ofNanos(silent).toMillis()
						+ " ms, not even to a progress request; the connection is taken for dead (half-open)";
				this.answers.abandon();
				return -1;
			}
			long asked = Math.max(since, this.requestedAt);
			if (now - asked >= WatchLiveness.this.requestNanos) {
				this.requestedAt = now;
				asked = now;
				this.answers.requestProgress();
			}
			long nextRequest = asked + WatchLiveness.this.requestNanos;
			long givingUp = since + WatchLiveness.this.timeoutNanos;
			return Math.max(1, Math.min(nextRequest, givingUp) - now);
		}

		private void run() {
			long delay = check(WatchLiveness.this.ticker.getAsLong());
			if (delay >= 0) {
				schedule(delay);
			}
		}

		private void schedule(long delayNanos) {
			ScheduledExecutorService scheduler = WatchLiveness.this.scheduler;
			if (scheduler == null || this.ended) {
				return;
			}
			try {
				this.next = scheduler.schedule(this::run, delayNanos, TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				// the client is closing: its watches break off
			}
		}

	}

}
