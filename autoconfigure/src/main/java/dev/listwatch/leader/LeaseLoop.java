package dev.listwatch.leader;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * The thread of a loop on Leases ({@link LeaderElector}, {@link ShardMembership}): starts
 * it, runs a step, waits for the next one until asked to stop, and stops it, with or
 * without the final release ({@link #halt()}, as a killed process). What a step does, how
 * long to wait and how to finish are the {@link Steps}' business; the requests, cut off
 * at their deadlines, are the {@link LeaseRequests}', aborted on stop. Thread-safe.
 */
final class LeaseLoop {

	private final Log logger;

	private final String subject;

	private final String threadName;

	private final long stopTimeoutNanos;

	private final LeaseRequests requests;

	private final Steps steps;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition wake = this.lock.newCondition();

	/** The loop's thread, {@code null} when not running; guarded by {@link #lock}. */
	private @Nullable Thread thread;

	/** Counted down when the loop's thread has ended; guarded by {@link #lock}. */
	private CountDownLatch done = new CountDownLatch(0);

	/** Guarded by {@link #lock}. */
	private boolean stopRequested;

	/** Stop without the final release (a killed process); guarded by {@link #lock}. */
	private boolean halted;

	/**
	 * Makes a loop, not started.
	 * @param logger where it logs (the owner's logger)
	 * @param subject what runs, for messages (e.g.
	 * {@code "Leader election on Lease ns/app"})
	 * @param threadName the name of the loop's thread
	 * @param stopTimeoutNanos how long {@link #stop()} waits for the thread to end
	 * @param requests the requests of the steps, aborted on stop, closed on close
	 * @param steps what the loop does
	 */
	LeaseLoop(Log logger, String subject, String threadName, long stopTimeoutNanos, LeaseRequests requests,
			Steps steps) {
		this.logger = logger;
		this.subject = subject;
		this.threadName = threadName;
		this.stopTimeoutNanos = stopTimeoutNanos;
		this.requests = requests;
		this.steps = steps;
	}

	/**
	 * Starts the loop's thread, unless it runs already; {@link Steps#reset()} is called
	 * first.
	 */
	void start() {
		this.lock.lock();
		try {
			if (this.thread != null) {
				return;
			}
			this.stopRequested = false;
			this.halted = false;
			this.steps.reset();
			CountDownLatch finished = new CountDownLatch(1);
			this.done = finished;
			Thread loop = new Thread(() -> run(finished), this.threadName);
			loop.setDaemon(true);
			this.thread = loop;
			loop.start();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Stops the loop (with the final release) and waits for its thread. */
	void stop() {
		stop(false);
	}

	/** Stops the loop as a killed process would: no final release. */
	void halt() {
		stop(true);
	}

	private void stop(boolean halt) {
		CountDownLatch finished;
		Thread loop;
		this.lock.lock();
		try {
			loop = this.thread;
			if (loop == null) {
				return;
			}
			this.stopRequested = true;
			this.halted = halt;
			this.requests.abort();
			this.wake.signalAll();
			finished = this.done;
		}
		finally {
			this.lock.unlock();
		}
		try {
			if (loop != Thread.currentThread() && !finished.await(this.stopTimeoutNanos, TimeUnit.NANOSECONDS)) {
				this.logger.warn(this.subject + " did not stop in time");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.lock.lock();
		try {
			// a loop that did not end in time stays registered: start() must not run a
			// second one
			if (this.thread == loop && finished.getCount() == 0) {
				this.thread = null;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	boolean isRunning() {
		this.lock.lock();
		try {
			return this.thread != null;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Stops the loop (with the final release) and the request threads. */
	void close() {
		stop();
		this.requests.close();
	}

	/**
	 * Whether stop (or halt) was asked for.
	 * @return whether the loop is asked to stop
	 */
	boolean stopRequested() {
		this.lock.lock();
		try {
			return this.stopRequested;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits, woken early by a stop.
	 * @param nanos how long
	 * @throws InterruptedException when interrupted
	 */
	void pause(long nanos) throws InterruptedException {
		this.lock.lock();
		try {
			this.wake.awaitNanos(nanos);
		}
		finally {
			this.lock.unlock();
		}
	}

	private void run(CountDownLatch finished) {
		try {
			this.steps.started();
			while (!stopRequested()) {
				this.steps.step();
				if (!awaitNext(this.steps.nextDelayNanos())) {
					break;
				}
			}
		}
		catch (Throwable ex) {
			this.steps.crashed(ex);
			this.logger.error(this.subject + " stopped unexpectedly", ex);
		}
		finally {
			try {
				this.steps.finish(isHalted());
			}
			finally {
				finished.countDown();
			}
		}
	}

	private boolean isHalted() {
		this.lock.lock();
		try {
			return this.halted;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits for the next step.
	 * @return false when the loop is asked to stop
	 */
	private boolean awaitNext(long nanos) throws InterruptedException {
		this.lock.lock();
		try {
			long left = nanos;
			while (!this.stopRequested && left > 0) {
				left = this.wake.awaitNanos(left);
			}
			return !this.stopRequested;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * What a loop does; called on the loop's thread, one call at a time, but for
	 * {@link #reset()}.
	 */
	interface Steps {

		/**
		 * Forgets what a former run saw; called by {@link LeaseLoop#start()}, holding the
		 * loop's lock, before the thread starts.
		 */
		void reset();

		/** The loop's thread has started. */
		void started();

		/** One step; what fails in it is the step's to handle. */
		void step();

		/**
		 * How long to wait before the next step.
		 * @return nanoseconds
		 */
		long nextDelayNanos();

		/**
		 * A step threw: the loop ends (the error is logged by the loop).
		 * @param ex what was thrown
		 */
		void crashed(Throwable ex);

		/**
		 * The loop ends: release what it holds, unless halted.
		 * @param halted whether it was halted (a killed process: release nothing)
		 */
		void finish(boolean halted);

	}

}
