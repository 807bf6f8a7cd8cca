package dev.listwatch.controller;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;

import dev.listwatch.Thrown;
import dev.listwatch.leader.ShardListener;
import dev.listwatch.leader.ShardMembership;
import dev.listwatch.leader.ShardMembershipOptions;
import dev.listwatch.leader.ShardStatus;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;

/**
 * The sharding of one controller: its {@link ShardMembership}, and what the membership
 * tells it done to the controller's queue.
 * <ul>
 * <li>The controller reconciles a key only while the membership
 * {@link ShardMembership#owns owns} the key's shard (checked when a worker takes the key;
 * false from the renew deadline on, before the membership's thread hears of it).</li>
 * <li>A key taken while its shard is not owned here is dropped. When it is a deletion
 * (its object no longer cached), it is kept aside, with when, for {@link #keepFor}: the
 * replica that owned the shard may have dropped it too while handing the shard over, so
 * the replica that starts the shard queues it with every cached key of the shard. No key
 * is stranded by a hand-over.</li>
 * <li>A shard given up has its reconciles in flight interrupted once half the smaller of
 * the renew deadline and the lease's margin has passed, so that they end before another
 * replica may start the shard (the membership waits for them to end, at most the renew
 * deadline, before it releases the shard). After a self-fence that time counts from the
 * renew deadline, so after a freeze longer than the margin they are interrupted as soon
 * as the replica notices it woke.</li>
 * <li>Each change of this replica's shards is published as a {@link ShardsChangedEvent}
 * on a thread of its own (an event listener never delays the membership).</li>
 * </ul>
 */
final class Shards implements ShardListener {

	private static final Log logger = LogFactory.getLog(Shards.class);

	/** How often the thread that joins looks again whether to stop. */
	private static final Duration SYNC_POLL = Duration.ofMillis(200);

	/** How often the kept deletions are swept at most. */
	private static final long SWEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** How long the per-shard queue depths are reused. */
	private static final long QUEUED_TTL_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final ShardedKeys controller;

	/** The source of the events: the controller. */
	private final Object source;

	private final ShardMembership membership;

	private final ShardMembershipOptions options;

	private final LongSupplier ticker;

	/** How long a dropped deletion is kept for the shard's next owner. */
	private final long keepFor;

	/** How long after a shard is given up its reconciles in flight are interrupted. */
	private final long abandonAfter;

	/** Deletions dropped while their shard was not owned here, by when. */
	private final Map<String, Long> deletions = new ConcurrentHashMap<>();

	private volatile @Nullable ApplicationEventPublisher publisher;

	private @Nullable ScheduledExecutorService timer;

	/** The thread that joins the group once the watch synced; {@code null} after. */
	private @Nullable Thread joining;

	/** Whether a stop was asked since the last start (guarded by this). */
	private boolean stopping;

	/** When the kept deletions were last swept of those kept long enough. */
	private volatile long swept;

	private @Nullable ExecutorService events;

	private volatile SortedSet<Integer> running = Collections.emptySortedSet();

	private volatile @Nullable Queued queued;

	Shards(ShardedKeys controller, Object source, Function<ShardListener, ShardMembership> membership,
			LongSupplier ticker) {
		this.controller = controller;
		this.source = source;
		this.ticker = ticker;
		this.membership = membership.apply(this);
		this.options = this.membership.options();
		Duration lease = this.options.leaseDuration();
		Duration renew = this.options.renewDeadline();
		this.keepFor = lease.multipliedBy(10).toNanos();
		Duration margin = lease.minus(renew);
		this.abandonAfter = ((margin.compareTo(renew) < 0) ? margin : renew).toNanos() / 2;
	}

	ShardMembership membership() {
		return this.membership;
	}

	void publishTo(@Nullable ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	/**
	 * Whether this replica reconciles a key now.
	 * @param key the key
	 * @return whether the membership owns its shard
	 */
	boolean owns(String key) {
		return this.membership.owns(this.options.shardOf(key));
	}

	/**
	 * A key dropped because its shard is not owned here: kept aside when its object is
	 * gone; queued after all when the shard was started meanwhile.
	 * @param key the key
	 */
	void refused(String key) {
		if (!this.controller.cached(key)) {
			long now = this.ticker.getAsLong();
			this.deletions.put(key, now);
			if (now - this.swept > SWEEP_NANOS) {
				this.swept = now;
				this.deletions.values().removeIf((since) -> now - since - this.keepFor > 0);
			}
		}
		// started between the worker's check and now: its start may not have seen the key
		if (owns(key)) {
			this.controller.enqueue(key);
		}
	}

	/**
	 * Joins the group once the watch has synced (on a thread of its own): a replica that
	 * took shards before its cache held every object could miss a deletion of theirs
	 * (neither in its first list nor an event), and one whose watch never syncs would
	 * hold a share it cannot work.
	 */
	synchronized void start() {
		if (this.timer == null) {
			this.timer = Executors.newSingleThreadScheduledExecutor((task) -> daemon(task, "abandon"));
			this.events = Executors.newSingleThreadExecutor((task) -> daemon(task, "shard-events"));
		}
		this.stopping = false;
		Thread thread = daemon(this::joinOnceSynced, "join");
		this.joining = thread;
		thread.start();
	}

	private void joinOnceSynced() {
		try {
			while (!this.controller.awaitSynced(SYNC_POLL)) {
				if (Thread.currentThread().isInterrupted()) {
					return;
				}
			}
		}
		catch (InterruptedException ex) {
			return;
		}
		synchronized (this) {
			if (!this.stopping) {
				this.membership.start();
			}
		}
	}

	/**
	 * Stops the membership: its shards are given up, their reconciles drained (at most
	 * the renew deadline) and its Lease released.
	 */
	void stop() {
		Thread thread;
		synchronized (this) {
			this.stopping = true;
			thread = this.joining;
			this.joining = null;
		}
		if (thread != null) {
			thread.interrupt();
			try {
				thread.join(TimeUnit.SECONDS.toMillis(5));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		stopMembership();
	}

	private synchronized void stopMembership() {
		this.membership.stop();
		ScheduledExecutorService timers = this.timer;
		ExecutorService publishing = this.events;
		this.timer = null;
		this.events = null;
		if (timers != null) {
			timers.shutdownNow();
		}
		if (publishing != null) {
			publishing.shutdown();
		}
	}

	boolean isRunning() {
		return this.membership.isRunning();
	}

	ShardStatus status() {
		return this.membership.status();
	}

	/**
	 * The keys queued here, by shard, of the shards this replica runs; computed at most
	 * once a second.
	 * @return queued keys by shard
	 */
	SortedMap<Integer, Integer> queuedByShard() {
		long now = this.ticker.getAsLong();
		Queued last = this.queued;
		if (last != null && now - last.at() < QUEUED_TTL_NANOS) {
			return last.counts();
		}
		SortedMap<Integer, Integer> counts = new TreeMap<>();
		for (int shard : this.running) {
			counts.put(shard, 0);
		}
		for (String key : this.controller.queued()) {
			counts.computeIfPresent(this.options.shardOf(key), (shard, count) -> count + 1);
		}
		SortedMap<Integer, Integer> copy = Collections.unmodifiableSortedMap(counts);
		this.queued = new Queued(now, copy);
		return copy;
	}

	@Override
	public void started(Set<Integer> shards) {
		SortedSet<Integer> now = new TreeSet<>(this.running);
		now.addAll(shards);
		this.running = Collections.unmodifiableSortedSet(now);
		this.queued = null;
		this.controller.enqueueCached((key) -> shards.contains(this.options.shardOf(key)));
		this.deletions.keySet().removeIf((key) -> {
			if (shards.contains(this.options.shardOf(key))) {
				this.controller.enqueue(key);
				return true;
			}
			return false;
		});
		publish(now, shards, Set.of());
	}

	@Override
	public void stopped(Set<Integer> shards) {
		SortedSet<Integer> now = new TreeSet<>(this.running);
		now.removeAll(shards);
		this.running = Collections.unmodifiableSortedSet(now);
		this.queued = null;
		ScheduledExecutorService timers = this.timer;
		if (timers != null && !timers.isShutdown()) {
			// after a self-fence, counted from the renew deadline, not from now: after a
			// freeze that is at once
			long fenced = this.membership.fencedFor().map(Duration::toNanos).orElse(0L);
			timers.schedule(() -> abandon(shards), Math.max(0, this.abandonAfter - fenced), TimeUnit.NANOSECONDS);
		}
		publish(now, Set.of(), shards);
	}

	@Override
	public boolean drained(int shard) {
		return !this.controller.busyWith((key) -> this.options.shardOf(key) == shard);
	}

	/** Interrupts the reconciles in flight of shards given up and not run again since. */
	private void abandon(Set<Integer> shards) {
		int interrupted = this.controller.interrupt((key) -> shards.contains(this.options.shardOf(key)) && !owns(key));
		if (interrupted > 0) {
			logger.warn("Controller " + this.controller.name() + " interrupts " + interrupted + " reconciles of shards "
					+ shards + " it gave up, still running " + Duration.ofNanos(this.abandonAfter).toMillis()
					+ " ms later (their keys go to the new owner)");
		}
	}

	private void publish(SortedSet<Integer> now, Set<Integer> started, Set<Integer> stopped) {
		ApplicationEventPublisher events = this.publisher;
		ExecutorService publishing = this.events;
		if (events == null || publishing == null) {
			return;
		}
		ShardsChangedEvent event = new ShardsChangedEvent(this.source, this.controller.name(), now,
				new TreeSet<>(started), new TreeSet<>(stopped));
		try {
			publishing.execute(() -> {
				try {
					events.publishEvent(event);
				}
				catch (RuntimeException ex) {
					Thrown.error(logger, "A listener of " + event + " failed", ex,
							this.controller.showsExceptionMessages());
				}
			});
		}
		catch (RuntimeException ex) {
			// stopping: the event is not published
			logger.debug("Not publishing " + event + ": stopping");
		}
	}

	private Thread daemon(Runnable task, String what) {
		Thread thread = new Thread(task, "listwatch-controller-" + this.controller.name() + "-" + what);
		thread.setDaemon(true);
		return thread;
	}

	private record Queued(long at, SortedMap<Integer, Integer> counts) {
	}

}
