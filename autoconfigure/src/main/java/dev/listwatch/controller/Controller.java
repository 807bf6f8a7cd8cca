package dev.listwatch.controller;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.leader.ShardListener;
import dev.listwatch.leader.ShardMembership;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;

/**
 * Runs a {@link Reconciler} on the keys of one watch: client-go's controller pattern, a
 * {@link SmartLifecycle} that starts after the informers and stops before them. Every
 * change the informer publishes (the initial list, changes, relists, resyncs) queues its
 * object's key in a work queue; workers take keys, read the object from the informer's
 * cache, and reconcile. Workers start taking keys once the informer has synced, so a
 * reconcile never sees a partial cache.
 * <p>
 * A reconcile that throws, or asks for it, is tried again after the key's backoff; one
 * that succeeds forgets the key's failures. A reconcile that fails because an object
 * changed meanwhile (a {@link KubernetesApiException} of status 409, anywhere in the
 * causes) is retried the same way, logged at debug only: the next reconcile reads the
 * newer object. Keys that keep failing are kept, with the class of their last exception
 * and where it was thrown (its message only when {@link #showExceptionMessages shown};
 * never an object's values), for health and the endpoint. Each reconcile runs in a
 * Micrometer {@link Observation} named {@code listwatch.reconcile}, so a tracer shows it.
 * <p>
 * A stop stops queueing, lets the reconciles under way finish within the shutdown
 * timeout, and ends the workers. The next start queues every cached key again (the
 * informer gives a new listener each of them) and the keys the last run left queued or
 * waiting, those of objects deleted meanwhile included, so no key is lost across a stop
 * and start, as when leadership moves between the replicas of one application. (A
 * deletion that happens while no replica runs the controller is seen by none: an object
 * whose deletion must be acted on carries a finalizer, as with client-go.)
 * <p>
 * Run on several replicas, a controller either runs on the elected leader only
 * ({@link #runOnlyWhen}) or shares its keys out among them ({@link #shardBy}): each key's
 * shard runs on one replica at a time, and {@link Request#stillOwned()} tells a reconcile
 * whether its key is still this replica's. Thread-safe.
 *
 * @param <T> the Java type of the watch's objects
 */
public final class Controller<T> implements SmartLifecycle, ApplicationEventPublisherAware {

	/** The phase of controllers: after the informers' ({@link Informer#PHASE}). */
	public static final int PHASE = Informer.PHASE + 1024;

	/** The name of the observation around each reconcile. */
	public static final String OBSERVATION = Workers.OBSERVATION;

	private static final Log logger = LogFactory.getLog(Controller.class);

	private final String name;

	private final Informer<T> informer;

	private final ControllerOptions options;

	private final LongSupplier ticker;

	/** The runs of workers, their reconciles and what they count. */
	private final Workers<T> workers;

	/** Which of the watch's changes queue their key: see {@link #filter}. */
	private volatile Predicate<? super ResourceEvent<T>> filter = (event) -> true;

	/** The secondary watches, and how their objects map to keys: see {@link #watch}. */
	private final List<Workers.Secondary<?>> secondaries = new CopyOnWriteArrayList<>();

	/** The sharding across replicas: see {@link #shardBy}. */
	private volatile @Nullable Shards shards;

	private volatile @Nullable ApplicationEventPublisher publisher;

	/** What must hold for a start to start anything: see {@link #runOnlyWhen}. */
	private volatile BooleanSupplier condition = () -> true;

	/**
	 * Makes a controller; it does nothing until started.
	 * @param name the controller's name, for logs, threads, meters and health
	 * @param informer the watch whose keys it reconciles
	 * @param reconciler the application's code
	 * @param options how it works its keys
	 * @param observations where the observation of each reconcile goes
	 * ({@link ObservationRegistry#NOOP} for none)
	 */
	public Controller(String name, Informer<T> informer, Reconciler<T> reconciler, ControllerOptions options,
			ObservationRegistry observations) {
		this(name, informer, reconciler, options, observations, System::nanoTime);
	}

	Controller(String name, Informer<T> informer, Reconciler<T> reconciler, ControllerOptions options,
			ObservationRegistry observations, LongSupplier ticker) {
		this.name = name;
		this.informer = informer;
		this.options = options;
		this.ticker = ticker;
		this.workers = new Workers<>(name, informer, reconciler, options, observations, ticker,
				() -> this.condition.getAsBoolean(), logger);
	}

	/**
	 * The controller's name.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * The watch whose keys it reconciles.
	 * @return the informer
	 */
	public Informer<T> informer() {
		return this.informer;
	}

	/**
	 * How it works its keys.
	 * @return the options
	 */
	public ControllerOptions options() {
		return this.options;
	}

	/**
	 * Queues only the changes of the watch that a predicate passes, for example
	 * {@link Relations#generationChanged()}. A start after a stop, a {@link #resync()}, a
	 * secondary watch and {@link #enqueue} queue keys whatever the predicate says. Takes
	 * effect at the next start.
	 * @param predicate which changes queue their key
	 * @return this controller
	 */
	public Controller<T> filter(Predicate<? super ResourceEvent<T>> predicate) {
		this.filter = predicate;
		return this;
	}

	/**
	 * Queues keys of this controller when the objects of another watch change: the keys a
	 * function maps each object to (those of its old state too, for a modification), for
	 * example its owners ({@link Relations#owners}). The objects the secondary watch
	 * holds when this controller starts are mapped too. A function that cannot map an
	 * object yet returns {@code null} (the owners' scope is not known before discovery
	 * has found their resource): the object is held, and mapped once this controller's
	 * watch has synced (which it does only once its resource is found), or at the next
	 * change of the secondary watch after that. Takes effect at the next start.
	 * @param <S> the Java type of the secondary watch's objects
	 * @param secondary the secondary watch
	 * @param keys the keys of this controller an object of it maps to
	 * @return this controller
	 */
	public <S> Controller<T> watch(Informer<S> secondary, Function<? super S, ? extends Collection<String>> keys) {
		this.secondaries.add(new Workers.Secondary<>(secondary, keys));
		return this;
	}

	/**
	 * Shows the messages of what reconciles, resyncs, observation handlers and the
	 * listeners of its {@link ShardsChangedEvent}s throw, in its status (and so the
	 * {@code listwatch} endpoint) and in the warnings and errors it logs; else only their
	 * class and where they were thrown ({@link dev.listwatch.Thrown}). Off unless the
	 * application opted in ({@code listwatch.show-exception-messages}): a message may
	 * quote values. Takes effect at once.
	 * @param show whether to show them
	 * @return this controller
	 */
	public Controller<T> showExceptionMessages(boolean show) {
		this.workers.showExceptionMessages(show);
		return this;
	}

	/**
	 * Whether exception messages are shown: see {@link #showExceptionMessages}.
	 * @return whether they are
	 */
	boolean showsExceptionMessages() {
		return this.workers.showsExceptionMessages();
	}

	/**
	 * Makes every later start a no-op unless the condition holds when it is called: for a
	 * controller that runs on the leader only, so that a context start (which starts
	 * every lifecycle bean) or code that holds the controller cannot start it on a
	 * follower.
	 * @param condition what must hold, for example {@code elector::isLeader}
	 */
	public void runOnlyWhen(BooleanSupplier condition) {
		this.condition = condition;
	}

	/**
	 * Shares this controller's keys out among the replicas that run it, each key
	 * reconciled on one replica at a time: the key's shard ({@code namespace/name}
	 * hashed, modulo the number of shards) is run by the one member of a
	 * {@link ShardMembership} it is assigned to. A start starts the membership after the
	 * workers, a stop stops it first (its shards drained and released) and then the
	 * workers. A shard started here has every cached key of it queued, and the deletions
	 * of it that the replicas may have dropped while it moved. Call once, before the
	 * first start; not with {@link #runOnlyWhen}.
	 * @param membership makes the membership from the listener it must tell, for example
	 * {@code (listener) -> ShardMembership.create(client, mapper, options, listener)}
	 * @return this controller
	 * @throws IllegalStateException when it is sharded already
	 */
	public synchronized Controller<T> shardBy(Function<ShardListener, ShardMembership> membership) {
		if (this.shards != null) {
			throw new IllegalStateException("Controller " + this.name + " is sharded already");
		}
		Shards sharding = new Shards(new Keys(), this, membership, this.ticker);
		onlyKeys(sharding::owns, sharding::refused);
		this.shards = sharding;
		return this;
	}

	/**
	 * The shard membership of a sharded controller.
	 * @return the membership, or empty when the controller runs on every replica
	 */
	public Optional<ShardMembership> shardMembership() {
		Shards sharding = this.shards;
		return (sharding != null) ? Optional.of(sharding.membership()) : Optional.empty();
	}

	/**
	 * Publishes a {@link ShardsChangedEvent} on each change of this replica's shards,
	 * when sharded.
	 * @param publisher where the events go
	 */
	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
		Shards sharding = this.shards;
		if (sharding != null) {
			sharding.publishTo(publisher);
		}
	}

	/**
	 * Queues every change of the watch, and starts the workers; nothing when running, or
	 * when the condition of {@link #runOnlyWhen} does not hold.
	 */
	@Override
	public synchronized void start() {
		if (this.workers.running() || !this.condition.getAsBoolean()) {
			return;
		}
		this.workers.start(this.filter, this.secondaries);
		Shards sharding = this.shards;
		if (sharding != null) {
			sharding.publishTo(this.publisher);
			sharding.start();
		}
		logger.debug("Controller " + this.name + " started with " + this.options.workers() + " workers on watch "
				+ this.informer.watch());
	}

	/** Stops as {@link #stop(Duration)} does, within the shutdown timeout. */
	@Override
	public void stop() {
		stop(this.options.shutdownTimeout());
	}

	/**
	 * Stops on another thread, so that the controllers of a context stop together, and
	 * calls back when done.
	 * @param callback called once stopped
	 */
	@Override
	public void stop(Runnable callback) {
		Thread stopping = new Thread(() -> {
			try {
				stop();
			}
			finally {
				callback.run();
			}
		}, "listwatch-controller-" + this.name + "-stop");
		stopping.setDaemon(true);
		stopping.start();
	}

	/**
	 * Stops queueing and taking keys, and waits for the reconciles under way.
	 * @param timeout how long to wait for them
	 * @return whether every reconcile under way finished in time (the workers of those
	 * that did not are interrupted)
	 */
	public synchronized boolean stop(Duration timeout) {
		if (!this.workers.running()) {
			return true;
		}
		Shards sharding = this.shards;
		if (sharding != null) {
			// its shards drained and released first, so that the others take them over
			// at once
			sharding.stop();
		}
		return this.workers.stop(timeout);
	}

	@Override
	public boolean isRunning() {
		return this.workers.running();
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	@Override
	public boolean isAutoStartup() {
		return this.options.autoStartup();
	}

	/**
	 * What the controller is doing and has done so far.
	 * @return the snapshot
	 */
	public ControllerStatus status() {
		Shards sharding = this.shards;
		return this.workers.status((sharding != null) ? sharding.status() : null,
				(sharding != null) ? sharding.queuedByShard() : Collections.emptySortedMap());
	}

	/**
	 * Queues a key now, as a change of its object does (from a secondary watch, or to
	 * look again); while stopped, for the next start.
	 * @param key the key: {@code namespace/name}, or {@code name} for a cluster-scoped
	 * object
	 */
	public void enqueue(String key) {
		this.workers.enqueue(key);
	}

	/**
	 * Queues every cached key now, as a resync does.
	 */
	public void resync() {
		this.workers.enqueueCached((key) -> true);
	}

	/**
	 * Reconciles only the keys a predicate passes from now on, as when this replica owns
	 * some shards of the keys: a key taken that it does not pass is dropped without a
	 * reconcile (its failures kept) and told to the consumer given, and comes back with
	 * {@link #enqueueCached}. A reconcile under way is not stopped: {@link #busyWith}
	 * tells when none of the keys given up is being reconciled any more.
	 * @param allowed the keys to reconcile
	 * @param dropped told each key taken and dropped, after it was dropped
	 */
	void onlyKeys(Predicate<String> allowed, Consumer<String> dropped) {
		this.workers.onlyKeys(allowed, dropped);
	}

	/**
	 * Queues every cached key a predicate passes: the keys of shards this replica has
	 * just taken over.
	 * @param which the keys
	 */
	void enqueueCached(Predicate<String> which) {
		this.workers.enqueueCached(which);
	}

	/**
	 * Whether a worker is reconciling a key a predicate passes.
	 * @param which the keys
	 * @return whether one of them is being reconciled now
	 */
	boolean busyWith(Predicate<String> which) {
		return this.workers.busyWith(which);
	}

	/**
	 * Interrupts the workers reconciling a key a predicate passes (the reconcile then
	 * fails, or ends as it handles the interrupt; the key is queued again by the usual
	 * rules).
	 * @param which the keys
	 * @return how many workers were interrupted
	 */
	int interrupt(Predicate<String> which) {
		return this.workers.interrupt(which);
	}

	/**
	 * Interrupts every reconcile under way, without waiting: for work that must end now,
	 * because another replica may start it (a leadership lost while the controller still
	 * drains). The reconciles fail, or end as they handle the interrupt, and their keys
	 * are handled by the usual rules. Not synchronized with {@link #stop(Duration)}: it
	 * may be called while a stop waits.
	 * @return how many reconciles were interrupted
	 */
	public int interruptReconciles() {
		return interrupt((key) -> true);
	}

	/**
	 * The keys queued now: ready, or waiting out a delay.
	 * @return the keys
	 */
	Set<String> queuedKeys() {
		return this.workers.queued();
	}

	/** Wakes the workers waiting for a delayed key (for a ticker that tests move). */
	void wakeUp() {
		this.workers.wakeUp();
	}

	/**
	 * Reads the keys that a resync queues from elsewhere than the informer's cache: for
	 * tests.
	 * @param keys the keys cached
	 */
	void cachedKeysFrom(Supplier<? extends Collection<String>> keys) {
		this.workers.cachedKeysFrom(keys);
	}

	@Override
	public String toString() {
		return "Controller[" + this.name + " on " + this.informer.watch() + "]";
	}

	/** The controller's side of its sharding. */
	private final class Keys implements ShardedKeys {

		@Override
		public String name() {
			return Controller.this.name;
		}

		@Override
		public boolean awaitSynced(Duration timeout) throws InterruptedException {
			return Controller.this.informer.awaitSynced(timeout);
		}

		@Override
		public boolean cached(String key) {
			return Controller.this.informer.lister().get(key).isPresent();
		}

		@Override
		public void enqueue(String key) {
			Controller.this.enqueue(key);
		}

		@Override
		public void enqueueCached(Predicate<String> which) {
			Controller.this.enqueueCached(which);
		}

		@Override
		public boolean busyWith(Predicate<String> which) {
			return Controller.this.busyWith(which);
		}

		@Override
		public int interrupt(Predicate<String> which) {
			return Controller.this.interrupt(which);
		}

		@Override
		public Set<String> queued() {
			return Controller.this.queuedKeys();
		}

		@Override
		public boolean showsExceptionMessages() {
			return Controller.this.showsExceptionMessages();
		}

	}

}
