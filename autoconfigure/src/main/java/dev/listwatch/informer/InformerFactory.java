package dev.listwatch.informer;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Collection;
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

import dev.listwatch.ListerWatcher;
import dev.listwatch.WatchIndex;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.ApplicationEvent;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Makes {@link Informer}s, and holds what they share: the clock, the event publisher, the threads
 * that read watches (virtual threads on Java 21 and later, else one platform thread per watch),
 * the threads that dispatch events, and the watchdog that replaces watches gone silent.
 * <p>
 * The auto-configuration makes one, as the {@code listwatchInformerFactory} bean, and the informer
 * of every declared watch from it. Safe to use from any thread. {@link #close()} stops the
 * watchdog and the dispatch threads; stop the informers first (the application context does,
 * since informers are {@code SmartLifecycle} beans and this factory is closed when the context
 * closes).
 */
public final class InformerFactory implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(InformerFactory.class);

	private final Clock clock;

	private final Ticker ticker;

	private final Consumer<ApplicationEvent> publisher;

	private final SimpleAsyncTaskExecutor watchThreads;

	/** Virtual threads (a {@link SimpleAsyncTaskExecutor}) or a pool of platform threads. */
	private final Executor dispatchThreads;

	private final ScheduledExecutorService watchdog;

	private final List<Informer<?>> informers = new CopyOnWriteArrayList<>();

	/**
	 * Makes a factory.
	 * @param clock the one clock of the watches: instants shown in their status come from it, and
	 * durations (idle streams, backoff, failing periods) are measured on the monotonic
	 * {@link System#nanoTime()} when it is a system clock, else on its own milliseconds (a test's
	 * clock)
	 * @param publisher where events go (the application context), called on dispatch threads
	 * @param dispatchThreads how many platform threads dispatch events on Java 17-20 (on Java 21+
	 * each dispatch runs on a virtual thread)
	 * @param watchdogPeriod how often silent watches are looked for
	 */
	public InformerFactory(Clock clock, Consumer<ApplicationEvent> publisher, int dispatchThreads,
			Duration watchdogPeriod) {
		this(clock, isSystem(clock) ? Ticker.system() : Ticker.of(clock), publisher, dispatchThreads, watchdogPeriod);
	}

	/**
	 * Makes a factory with its own monotonic time source (tests).
	 * @param clock the wall clock (times shown in health and the endpoint)
	 * @param ticker the monotonic time source (idle watches, backoff, failing periods)
	 * @param publisher where events go (the application context)
	 * @param dispatchThreads how many platform threads dispatch events on Java 17-20 (on Java 21+
	 * each dispatch runs on a virtual thread)
	 * @param watchdogPeriod how often silent watches are looked for
	 */
	InformerFactory(Clock clock, Ticker ticker, Consumer<ApplicationEvent> publisher, int dispatchThreads,
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

	/**
	 * Makes the informer of a watch. It is not started: start it (the application context starts
	 * informer beans), then read its cache through {@link Informer#lister()}.
	 * @param <T> the Java type of the objects
	 * @param watch the watch's name, shown in logs, health, meters and events
	 * @param type the Java type of the objects
	 * @param listerWatcher what lists and watches the objects
	 * @param options how to list and watch
	 * @param indexes index declarations; those naming another watch are ignored
	 * @return the informer
	 * @throws IllegalArgumentException when two indexes of the watch have the same name, or one is
	 * named {@value WatchIndex#NAMESPACE}
	 */
	public <T> Informer<T> informer(String watch, Class<T> type, ListerWatcher<T> listerWatcher,
			InformerOptions options, Collection<? extends WatchIndex<?>> indexes) {
		return new Informer<>(watch, type, listerWatcher, Store.forWatch(watch, indexes), options, this);
	}

	/**
	 * The clock the watches run on.
	 * @return the clock
	 */
	public Clock clock() {
		return this.clock;
	}

	Ticker ticker() {
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
	 * Runs a task every period on the factory's scheduler thread, until cancelled; a task that
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

	/** Closes every watch that has delivered nothing for its idle timeout. Runs periodically. */
	void checkIdle() {
		for (Informer<?> informer : this.informers) {
			informer.checkIdle();
		}
	}

	/**
	 * Stops the watchdog and the dispatch threads; events not yet dispatched are dropped. Idempotent.
	 */
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

	private static boolean isSystem(Clock clock) {
		return Clock.systemUTC().equals(clock.withZone(ZoneOffset.UTC));
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
