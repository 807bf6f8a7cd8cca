package dev.listwatch.informer;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.ApplicationEvent;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * What the informers of one {@link InformerFactory} share: the clock and the monotonic
 * ticker, the event publisher, the threads that read watches (a virtual thread per watch,
 * or a platform thread per watch), the threads that dispatch events, and the watchdog
 * thread that runs periodic work (the idle checks of running informers, resyncs).
 * <p>
 * It knows nothing of informers: a running informer registers its idle check here and
 * removes it when it stops, so dependencies run one way (factory and informers to this).
 * Thread-safe.
 */
final class InformerRuntime {

	private static final Log logger = LogFactory.getLog(InformerRuntime.class);

	private final Clock clock;

	private final Ticker ticker;

	private final Consumer<ApplicationEvent> publisher;

	/** See {@link #showsExceptionMessages()}. */
	private volatile boolean showMessages;

	private final SimpleAsyncTaskExecutor watchThreads;

	/**
	 * Virtual threads (a {@link SimpleAsyncTaskExecutor}) or a pool of platform threads.
	 */
	private final Executor dispatchThreads;

	private final ScheduledExecutorService watchdog;

	/** The idle checks of the running informers. */
	private final List<Runnable> idleChecks = new CopyOnWriteArrayList<>();

	/**
	 * Starts the threads.
	 * @param clock the wall clock (times shown in health and the endpoint)
	 * @param ticker the monotonic time source
	 * @param publisher where events go, called on dispatch threads
	 * @param virtualThreads whether watches are read and events dispatched on virtual
	 * threads
	 * @param dispatchThreads how many platform threads dispatch events when threads are
	 * not virtual
	 * @param watchdogPeriod how often the idle checks run (at least every 100 ms)
	 */
	InformerRuntime(Clock clock, Ticker ticker, Consumer<ApplicationEvent> publisher, boolean virtualThreads,
			int dispatchThreads, Duration watchdogPeriod) {
		this.clock = clock;
		this.ticker = ticker;
		this.publisher = publisher;
		this.watchThreads = new SimpleAsyncTaskExecutor("listwatch-watch-");
		this.watchThreads.setVirtualThreads(virtualThreads);
		this.watchThreads.setDaemon(true);
		if (virtualThreads) {
			SimpleAsyncTaskExecutor dispatch = new SimpleAsyncTaskExecutor("listwatch-dispatch-");
			dispatch.setVirtualThreads(true);
			this.dispatchThreads = dispatch;
		}
		else {
			ThreadPoolExecutor pool = new ThreadPoolExecutor(dispatchThreads, dispatchThreads, 30, TimeUnit.SECONDS,
					new LinkedBlockingQueue<>(), daemonThreads("listwatch-dispatch-"));
			pool.allowCoreThreadTimeOut(true);
			this.dispatchThreads = pool;
		}
		this.watchdog = Executors.newSingleThreadScheduledExecutor(daemonThreads("listwatch-watchdog-"));
		long period = Math.max(100, watchdogPeriod.toMillis());
		this.watchdog.scheduleWithFixedDelay(this::checkIdle, period, period, TimeUnit.MILLISECONDS);
	}

	Clock clock() {
		return this.clock;
	}

	Ticker ticker() {
		return this.ticker;
	}

	/**
	 * Whether the errors logged for listeners that threw show the exceptions' messages:
	 * see {@link InformerFactory#showExceptionMessages}.
	 * @return whether they do
	 */
	boolean showsExceptionMessages() {
		return this.showMessages;
	}

	void showExceptionMessages(boolean show) {
		this.showMessages = show;
	}

	Consumer<ApplicationEvent> publisher() {
		return this.publisher;
	}

	Executor dispatchExecutor() {
		return this.dispatchThreads;
	}

	/**
	 * Runs a watch's loop on a thread of its own, named after the watch while it runs.
	 * @param name the watch (and namespace), for the thread's name
	 * @param task the loop
	 */
	void startWatchThread(String name, Runnable task) {
		this.watchThreads.execute(() -> {
			Thread thread = Thread.currentThread();
			String original = thread.getName();
			thread.setName("listwatch-" + name);
			try {
				task.run();
			}
			finally {
				thread.setName(original);
			}
		});
	}

	/**
	 * Runs an idle check with every other, each watchdog period, until it is removed.
	 * @param idleCheck the check, which must be quick
	 */
	void addIdleCheck(Runnable idleCheck) {
		this.idleChecks.add(idleCheck);
	}

	void removeIdleCheck(Runnable idleCheck) {
		this.idleChecks.remove(idleCheck);
	}

	/**
	 * Runs every idle check once: closes every watch that has delivered nothing for its
	 * idle timeout.
	 */
	void checkIdle() {
		for (Runnable idleCheck : this.idleChecks) {
			idleCheck.run();
		}
	}

	/**
	 * Runs a task every period on the watchdog thread, until cancelled; a task that
	 * throws is logged and runs again at the next period.
	 * @param name what the task is, for the log
	 * @param task the task, which must be quick
	 * @param period the period
	 * @return the schedule, to cancel
	 */
	ScheduledFuture<?> every(String name, Runnable task, Duration period) {
		long millis = Math.max(1, period.toMillis());
		return this.watchdog.scheduleAtFixedRate(() -> {
			try {
				task.run();
			}
			catch (RuntimeException ex) {
				logger.error(name + " failed; it runs again in " + period, ex);
			}
		}, millis, millis, TimeUnit.MILLISECONDS);
	}

	/**
	 * Stops the watchdog and the dispatch threads; events not yet dispatched are dropped.
	 * Idempotent.
	 */
	void close() {
		this.watchdog.shutdownNow();
		// both refuse further tasks once closed
		if (this.dispatchThreads instanceof ExecutorService pool) {
			pool.shutdownNow();
		}
		else if (this.dispatchThreads instanceof SimpleAsyncTaskExecutor virtual) {
			virtual.close();
		}
	}

	private static ThreadFactory daemonThreads(String prefix) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

}
