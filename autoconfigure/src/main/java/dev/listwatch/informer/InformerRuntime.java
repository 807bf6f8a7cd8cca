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
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;


import org.springframework.context.ApplicationEvent;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * What the informers of an application share: the clock, the event publisher, the threads that
 * read watches (virtual threads on Java 21 and later, else one platform thread per watch), the
 * threads that dispatch events, and the watchdog that replaces watches gone silent.
 */
public final class InformerRuntime implements AutoCloseable {

	private final Clock clock;

	private final Ticker ticker;

	private final Consumer<ApplicationEvent> publisher;

	private final SimpleAsyncTaskExecutor watchThreads;

	/** Virtual threads (a {@link SimpleAsyncTaskExecutor}) or a pool of platform threads. */
	private final Executor dispatchThreads;

	private final ScheduledExecutorService watchdog;

	private final List<Informer<?>> informers = new CopyOnWriteArrayList<>();

	/**
	 * Makes a runtime.
	 * @param clock the clock
	 * @param publisher where events go (the application context)
	 * @param dispatchThreads how many platform threads dispatch events on Java 17-20 (on Java 21+
	 * each dispatch runs on a virtual thread)
	 * @param watchdogPeriod how often silent watches are looked for
	 */
	public InformerRuntime(Clock clock, Consumer<ApplicationEvent> publisher, int dispatchThreads,
			Duration watchdogPeriod) {
		this(clock, Ticker.system(), publisher, dispatchThreads, watchdogPeriod);
	}

	/**
	 * Makes a runtime.
	 * @param clock the wall clock (times shown in health and the endpoint)
	 * @param ticker the monotonic time source (idle watches, backoff, failing periods)
	 * @param publisher where events go (the application context)
	 * @param dispatchThreads how many platform threads dispatch events on Java 17-20 (on Java 21+
	 * each dispatch runs on a virtual thread)
	 * @param watchdogPeriod how often silent watches are looked for
	 */
	public InformerRuntime(Clock clock, Ticker ticker, Consumer<ApplicationEvent> publisher, int dispatchThreads,
			Duration watchdogPeriod) {
		this.clock = clock;
		this.ticker = ticker;
		this.publisher = publisher;
		boolean virtual = Runtime.version().feature() >= 21;
		this.watchThreads = new SimpleAsyncTaskExecutor("listwatch-watch-");
		this.watchThreads.setVirtualThreads(virtual);
		this.watchThreads.setDaemon(true);
		if (virtual) {
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

	public Clock clock() {
		return this.clock;
	}

	/** @return the monotonic time source of the watches */
	public Ticker ticker() {
		return this.ticker;
	}

	Consumer<ApplicationEvent> publisher() {
		return this.publisher;
	}

	Executor dispatchExecutor() {
		return this.dispatchThreads;
	}

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

	void register(Informer<?> informer) {
		this.informers.add(informer);
	}

	void unregister(Informer<?> informer) {
		this.informers.remove(informer);
	}

	/**
	 * Closes every watch that has delivered nothing for its idle timeout. Runs periodically; public
	 * so that tests with a fake ticker can run it.
	 */
	public void checkIdle() {
		for (Informer<?> informer : this.informers) {
			informer.checkIdle();
		}
	}

	@Override
	public void close() {
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
