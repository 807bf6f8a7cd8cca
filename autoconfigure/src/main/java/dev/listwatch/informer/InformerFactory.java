package dev.listwatch.informer;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import dev.listwatch.ListerWatcher;
import dev.listwatch.WatchIndex;
import dev.listwatch.event.ResourceEvent;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEvent;

/**
 * Makes {@link Informer}s, and holds what they share: the clock, the event publisher, the
 * threads that read watches (a virtual thread per watch when
 * {@link Settings#virtualThreads()}, else a platform thread per watch), the threads that
 * dispatch events, the watchdog that replaces watches gone silent, and the informers
 * shared by {@link WatchDeclaration}.
 * <p>
 * The auto-configuration makes one, as the {@code listwatchInformerFactory} bean, and the
 * informer of every declared watch from it. Safe to use from any thread. {@link #close()}
 * stops the watchdog and the dispatch threads; stop the informers first (the application
 * context does, since informers are {@code SmartLifecycle} beans and this factory is
 * closed when the context closes).
 */
public final class InformerFactory implements AutoCloseable {

	/** The clock, the publisher and the threads its informers share. */
	private final InformerRuntime runtime;

	private final InformerOptions defaults;

	private final boolean virtualThreads;

	private final @Nullable Declarations declarations;

	/** The shared informers, by their declaration (its resync period resolved). */
	private final Map<WatchDeclaration<?>, Informer<?>> shared = new ConcurrentHashMap<>();

	/**
	 * The shared informers this factory made for code (not beans): stopped on
	 * {@link #close()}.
	 */
	private final List<Informer<?>> madeForCode = new CopyOnWriteArrayList<>();

	/**
	 * Makes a factory that makes informers from lister-watchers only; its threads are
	 * virtual on Java 21 and later.
	 * @param clock the one clock of the watches: instants shown in their status come from
	 * it, and durations (idle streams, backoff, failing periods) are measured on the
	 * monotonic {@link System#nanoTime()} when it is a system clock, else on its own
	 * milliseconds (a test's clock)
	 * @param publisher where events go (the application context), called on dispatch
	 * threads
	 * @param dispatchThreads how many platform threads dispatch events on Java 17-20 (on
	 * Java 21+ each dispatch runs on a virtual thread)
	 * @param watchdogPeriod how often silent watches are looked for
	 */
	public InformerFactory(Clock clock, Consumer<ApplicationEvent> publisher, int dispatchThreads,
			Duration watchdogPeriod) {
		this(clock, publisher, new Settings(dispatchThreads, watchdogPeriod, Runtime.version().feature() >= 21,
				InformerOptions.defaults()), null);
	}

	/**
	 * Makes a factory that also makes shared informers from {@link WatchDeclaration}s.
	 * @param clock the one clock of the watches (see the other constructor)
	 * @param publisher where events go (the application context), called on dispatch
	 * threads
	 * @param settings its threads, and how declared watches run
	 * @param declarations where declared watches get their lister-watchers and the
	 * informers declared in configuration, or {@code null} when this factory makes no
	 * informer from a declaration
	 */
	public InformerFactory(Clock clock, Consumer<ApplicationEvent> publisher, Settings settings,
			@Nullable Declarations declarations) {
		this(clock, isSystem(clock) ? Ticker.system() : Ticker.of(clock), publisher, settings, declarations);
	}

	/**
	 * Makes a factory with its own monotonic time source (tests).
	 * @param clock the wall clock (times shown in health and the endpoint)
	 * @param ticker the monotonic time source (idle watches, backoff, failing periods)
	 * @param publisher where events go (the application context)
	 * @param dispatchThreads how many platform threads dispatch events on Java 17-20 (on
	 * Java 21+ each dispatch runs on a virtual thread)
	 * @param watchdogPeriod how often silent watches are looked for
	 */
	InformerFactory(Clock clock, Ticker ticker, Consumer<ApplicationEvent> publisher, int dispatchThreads,
			Duration watchdogPeriod) {
		this(clock, ticker, publisher, new Settings(dispatchThreads, watchdogPeriod, Runtime.version().feature() >= 21,
				InformerOptions.defaults()), null);
	}

	private InformerFactory(Clock clock, Ticker ticker, Consumer<ApplicationEvent> publisher, Settings settings,
			@Nullable Declarations declarations) {
		this.defaults = settings.defaults();
		this.declarations = declarations;
		this.virtualThreads = settings.virtualThreads();
		this.runtime = new InformerRuntime(clock, ticker, publisher, this.virtualThreads, settings.dispatchThreads(),
				settings.watchdogPeriod());
	}

	/**
	 * Shows the messages of what event listeners throw in the errors logged for them (as
	 * the stack trace), or only their class and where they were thrown
	 * ({@link dev.listwatch.Thrown}). Off unless the application opted in
	 * ({@code listwatch.show-exception-messages}): a message may quote values. Takes
	 * effect at once, for every informer of this factory.
	 * @param show whether to show them
	 */
	public void showExceptionMessages(boolean show) {
		this.runtime.showExceptionMessages(show);
	}

	/**
	 * Whether the watches read and dispatch on virtual threads.
	 * @return whether they do
	 */
	public boolean virtualThreads() {
		return this.virtualThreads;
	}

	/**
	 * Makes the informer of a watch. It is not started: start it (the application context
	 * starts informer beans), then read its cache through {@link Informer#lister()}.
	 * @param <T> the Java type of the objects
	 * @param watch the watch's name, shown in logs, health, meters and events
	 * @param type the Java type of the objects
	 * @param listerWatcher what lists and watches the objects
	 * @param options how to list and watch
	 * @param indexes index declarations; those naming another watch are ignored
	 * @return the informer
	 * @throws IllegalArgumentException when two indexes of the watch have the same name,
	 * or one is named {@value WatchIndex#NAMESPACE}
	 */
	public <T> Informer<T> informer(String watch, Class<T> type, ListerWatcher<T> listerWatcher,
			InformerOptions options, Collection<? extends WatchIndex<?>> indexes) {
		return informer(watch, type, List.of(listerWatcher), options, indexes);
	}

	/**
	 * Makes the informer of a watch over a namespace set: one lister-watcher per
	 * namespace (each {@link ListerWatcher#resource()} names its namespace), one cache.
	 * Not started, not shared.
	 * @param <T> the Java type of the objects
	 * @param watch the watch's name, shown in logs, health, meters and events
	 * @param type the Java type of the objects
	 * @param listerWatchers what lists and watches the objects: one, or one per namespace
	 * @param options how to list and watch
	 * @param indexes index declarations; those naming another watch are ignored
	 * @return the informer
	 * @throws IllegalArgumentException when there is no lister-watcher, several cover the
	 * same namespace or one of several covers all namespaces, or the indexes clash
	 */
	public <T> Informer<T> informer(String watch, Class<T> type, List<ListerWatcher<T>> listerWatchers,
			InformerOptions options, Collection<? extends WatchIndex<?>> indexes) {
		Map<@Nullable String, ListerWatcher<T>> byNamespace = new LinkedHashMap<>();
		if (listerWatchers.size() == 1) {
			byNamespace.put(null, listerWatchers.get(0));
		}
		for (ListerWatcher<T> listerWatcher : (listerWatchers.size() > 1) ? listerWatchers
				: List.<ListerWatcher<T>>of()) {
			String namespace = listerWatcher.resource().namespace();
			if (namespace == null || namespace.isEmpty()) {
				throw new IllegalArgumentException("Watch " + watch + ": " + listerWatcher.resource()
						+ " covers all namespaces, so it cannot be one of a namespace set");
			}
			if (byNamespace.put(namespace, listerWatcher) != null) {
				throw new IllegalArgumentException("Watch " + watch + ": namespace " + namespace + " is given twice");
			}
		}
		return new Informer<>(watch, type, byNamespace, Store.forWatch(watch, indexes), options, this.runtime);
	}

	/**
	 * The shared informer of a declaration: the one made for an equal declaration before
	 * (from code, or under {@code listwatch.watches}, whatever its name), else a new one
	 * named {@code watch}. One watch and one cache serve every caller: client-go's
	 * {@code SharedInformerFactory}, shared by the whole declaration rather than by type.
	 * <p>
	 * An informer made here for code is not started: call {@link Informer#start()}
	 * (starting a started one does nothing), add listeners before or after, and
	 * {@link Informer#awaitSynced(Duration)}. It is stopped for everyone who shares it by
	 * {@link Informer#stop()}, and by {@link #close()} (the application context closes
	 * the factory); one declared in configuration is started and stopped with the
	 * context, unless its {@code auto-startup} is false. Its health, meters and endpoint
	 * entry are those of any watch. Thread-safe: callers racing for the same declaration
	 * get the same informer.
	 * @param <T> the Java type of the objects
	 * @param watch the name of a new informer: its meters' {@code watch} tag, its health
	 * entry and its events' {@link ResourceEvent#watch()}
	 * @param declaration what to list and watch
	 * @return the shared informer
	 * @throws IllegalStateException when this factory has no source of lister-watchers,
	 * or another declaration's informer has that name
	 */
	@SuppressWarnings("unchecked")
	public <T> Informer<T> informer(String watch, WatchDeclaration<T> declaration) {
		WatchDeclaration<T> key = resolved(declaration);
		Informer<?> existing = this.shared.get(key);
		if (existing != null) {
			return (Informer<T>) existing;
		}
		if (this.declarations == null) {
			throw new IllegalStateException("This InformerFactory makes no informer from a declaration: "
					+ "it was made without Declarations (use the listwatchInformerFactory bean)");
		}
		// outside any lock: this may make the configured watch's bean, which shares it
		// here
		Informer<?> configured = this.declarations.configured(key);
		if (configured != null) {
			return (Informer<T>) this.shared.getOrDefault(key, configured);
		}
		// made outside the lock too (they come from the application context); unused if
		// another caller wins
		List<ListerWatcher<T>> listerWatchers = new ArrayList<>();
		if (key.namespaces().size() <= 1) {
			listerWatchers
				.add(this.declarations.listerWatcher(key, key.namespaces().isEmpty() ? null : key.namespaces().get(0)));
		}
		else {
			for (String namespace : key.namespaces()) {
				listerWatchers.add(this.declarations.listerWatcher(key, namespace));
			}
		}
		Informer<T> informer;
		synchronized (this.shared) {
			existing = this.shared.get(key);
			if (existing != null) {
				return (Informer<T>) existing;
			}
			checkName(watch, key);
			InformerOptions options = this.defaults.withLabelSelector(key.labelSelector())
				.withFieldSelector(key.fieldSelector())
				.withResyncPeriod(key.resyncPeriod())
				.withAutoStartup(false);
			informer = informer(watch, key.type(), listerWatchers, options, List.of());
			this.shared.put(key, informer);
		}
		// outside the lock, since it takes the application context's: made a bean, in
		// health and meters
		try {
			this.declarations.made(informer);
		}
		catch (RuntimeException ex) {
			this.shared.remove(key, informer);
			throw ex;
		}
		this.madeForCode.add(informer);
		return informer;
	}

	/**
	 * Makes an informer the shared one of its declaration, so that
	 * {@link #informer(String, WatchDeclaration)} gives it to code that asks for an equal
	 * one. The auto-configuration shares each watch declared under
	 * {@code listwatch.watches} this way. When an informer is shared for that declaration
	 * already, it stays the shared one (of several configured watches that declare the
	 * same, the first is shared; each still runs).
	 * @param <T> the Java type of the objects
	 * @param declaration what it lists and watches
	 * @param informer the informer
	 * @return the informer
	 */
	public <T> Informer<T> share(WatchDeclaration<T> declaration, Informer<T> informer) {
		WatchDeclaration<T> key = resolved(declaration);
		synchronized (this.shared) {
			this.shared.putIfAbsent(key, informer);
		}
		return informer;
	}

	/**
	 * A declaration whose resync period is the default when it leaves it open: the
	 * sharing key.
	 */
	private <T> WatchDeclaration<T> resolved(WatchDeclaration<T> declaration) {
		if (declaration.resyncPeriod() != null) {
			return declaration;
		}
		Duration period = this.defaults.resyncPeriod();
		return declaration.withResyncPeriod((period != null) ? period : Duration.ZERO);
	}

	private void checkName(String watch, WatchDeclaration<?> key) {
		for (Map.Entry<WatchDeclaration<?>, Informer<?>> entry : this.shared.entrySet()) {
			if (entry.getValue().watch().equals(watch)) {
				throw new IllegalStateException("Watch name '" + watch + "' is taken by " + entry.getKey()
						+ ": name the informer of " + key + " differently");
			}
		}
	}

	/**
	 * A factory's threads, and how the watches it declares run.
	 *
	 * @param dispatchThreads how many platform threads dispatch events when threads are
	 * not virtual
	 * @param watchdogPeriod how often silent watches are looked for
	 * @param virtualThreads whether watches are read, and events dispatched, on virtual
	 * threads (one per watch and per dispatch): Java 21 or later; the auto-configuration
	 * follows {@code spring.threads.virtual.enabled}
	 * @param defaults how declared watches run (timeouts, backoff, page size, streaming
	 * lists, the default resync period)
	 */
	public record Settings(int dispatchThreads, Duration watchdogPeriod, boolean virtualThreads,
			InformerOptions defaults) {

		/**
		 * Checks the settings.
		 * @throws IllegalArgumentException when there is no dispatch thread, or virtual
		 * threads are asked before Java 21
		 */
		public Settings {
			if (dispatchThreads < 1) {
				throw new IllegalArgumentException("dispatchThreads must be at least 1, not " + dispatchThreads);
			}
			if (virtualThreads && Runtime.version().feature() < 21) {
				throw new IllegalArgumentException(
						"Virtual threads need Java 21 or later; this is Java " + Runtime.version().feature());
			}
		}

	}

	/**
	 * Where a factory finds what declared watches need. The auto-configuration provides
	 * one.
	 */
	public interface Declarations {

		/**
		 * Makes the lister-watcher of a declaration in one namespace.
		 * @param <T> the Java type of the objects
		 * @param declaration what to list and watch
		 * @param namespace the namespace, or {@code null} for all namespaces (or a
		 * cluster-scoped resource)
		 * @return the lister-watcher
		 */
		<T> ListerWatcher<T> listerWatcher(WatchDeclaration<T> declaration, @Nullable String namespace);

		/**
		 * The informer of a watch declared in configuration with an equal declaration
		 * (made now if it was not yet, and then shared through {@link #share}), or
		 * {@code null} when none is.
		 * @param declaration the declaration, its resync period resolved
		 * @return the informer, or {@code null}
		 */
		@Nullable Informer<?> configured(WatchDeclaration<?> declaration);

		/**
		 * Told of each informer the factory made for code, so that health, meters and the
		 * endpoint see it as they see the configured ones.
		 * @param informer the new informer, not started
		 */
		void made(Informer<?> informer);

	}

	/**
	 * The clock the watches run on.
	 * @return the clock
	 */
	public Clock clock() {
		return this.runtime.clock();
	}

	/** What its informers share (tests make informers on it directly). */
	InformerRuntime runtime() {
		return this.runtime;
	}

	/**
	 * Closes every watch that has delivered nothing for its idle timeout, as the watchdog
	 * does periodically.
	 */
	void checkIdle() {
		this.runtime.checkIdle();
	}

	/**
	 * Stops the informers it made for code from declarations, then the watchdog and the
	 * dispatch threads; events not yet dispatched are dropped. Idempotent.
	 */
	@Override
	public void close() {
		for (Informer<?> informer : this.madeForCode) {
			informer.stop();
		}
		this.runtime.close();
	}

	private static boolean isSystem(Clock clock) {
		return Clock.systemUTC().equals(clock.withZone(ZoneOffset.UTC));
	}

}
