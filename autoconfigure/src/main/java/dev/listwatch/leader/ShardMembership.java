package dev.listwatch.leader;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.leader.MemberLeaseStore.MemberRecord;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * This replica's membership in a shard group: which of the group's shards it runs, on one
 * {@code coordination.k8s.io/v1} Lease per member, with the clock rules of
 * {@link LeaderElector}.
 *
 * <h2>A step</h2> Every {@code retryPeriod} the membership writes its own Lease (the
 * resourceVersion last written as the precondition; on 409 Conflict it reads the Lease
 * and writes again, a second conflict fails the step, which is counted and retried) with
 * the shards it lists (annotation {@code listwatch.dev/shards}), then lists the group's
 * Leases. A step succeeds when both answered before {@code renewDeadline} after the start
 * of its write. On success:
 * <ul>
 * <li>Another member is live while its Lease changed (a new resourceVersion) within its
 * lease duration of when this replica saw it change, on this replica's monotonic clock; a
 * Lease gone from the list counts as unchanged. Wall clocks are never compared. The live
 * members are this replica and the holders of the live Leases; the shards go to them by
 * {@link ShardAssignment#assign}.</li>
 * <li>A shard assigned to it that it does not run is <em>claimed</em>: listed in the next
 * write. A claimed shard is started only in a step whose write listed it and whose list
 * shows it on no other live member's Lease (an expired member's list is ignored). Since
 * the list is read after the write, of two members claiming a shard at once at least one
 * sees the other's claim and neither starts it until one withdraws: a claim is withdrawn
 * as soon as the shard is not assigned to the member.</li>
 * <li>A running shard no longer assigned to it is reported stopped at once; it stays
 * listed until {@link ShardListener#drained(int)} answers true (asked at the start of
 * every step) or {@code renewDeadline} has passed since, and the next write drops
 * it.</li>
 * </ul>
 *
 * <h2>The fence</h2> A member runs its shards only until {@code renewDeadline} after the
 * start of the write of its last successful step; requests are cut off at that deadline
 * and, when it passes, every shard is reported stopped at once (a self-fence) and kept
 * listed until drained as above. Another member ignores its list no earlier than
 * {@code leaseDuration} after it saw that write's resourceVersion, itself after the
 * write's start: the margin {@code leaseDuration - renewDeadline} (5 s by default) covers
 * the time the listener takes to stop and the rate skew of the monotonic clocks, as for
 * leader election. A member frozen (a GC pause), cut off or killed stops writing, so the
 * same argument holds; one that comes back lists its running shards again only through a
 * new claim. A new incarnation that finds shards listed on its Lease keeps them listed,
 * unrun, for a lease duration.
 *
 * <h2>Threads</h2> One thread ({@code listwatch-shards-<prefix>}) runs the steps and
 * calls the listener, one call at a time; requests run on helper threads so that they can
 * be cut off. {@link #owns(int)} and {@link #status()} may be called from any thread.
 */
public final class ShardMembership implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ShardMembership.class);

	private static final DateTimeFormatter MICRO_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX")
		.withZone(ZoneOffset.UTC);

	/** How long after a Lease's expiry the step that looks at it runs. */
	private static final long EXPIRY_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	/** How often a stopping membership asks whether its shards are drained. */
	private static final long DRAIN_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

	private static final AtomicInteger memberships = new AtomicInteger();

	private final ShardMembershipOptions options;

	private final MemberLeaseStore store;

	private final ShardListener listener;

	private final Clock clock;

	private final LongSupplier ticker;

	private final String name;

	private final int leaseSeconds;

	private final long leaseNanos;

	private final long renewNanos;

	private final long retryNanos;

	private final LeaseRequests requests;

	/** Its thread: start, stop, the wait between steps. */
	private final LeaseLoop loop;

	// written by the loop's thread only (or a test driving the steps)

	/** This replica's Lease as last written or read; {@code null} before the first. */
	private @Nullable MemberLease own;

	/** Its shards in each state, and the step's decision on them. */
	private final MemberShards shards;

	/** The others' Leases, with when their resourceVersion was first seen. */
	private final MemberObservations observations;

	/** Whether a step succeeded and its deadline has not passed. */
	private boolean active;

	/** The renew deadline, on {@link #ticker}; meaningful while {@link #active}. */
	private long fenceUntil;

	private boolean failing;

	/**
	 * Whether it fenced itself and has not had a successful step since: it then writes
	 * its Lease without a holder, so that the others do not count it live (and give it a
	 * share) while its lists fail and its writes do not.
	 */
	private boolean fenced;

	// read by any thread

	private volatile View view = new View(false, false, 0, Collections.emptySortedSet());

	/**
	 * Since when the members disagree on the number of shards (this replica stands down),
	 * on {@link #ticker}; {@code null} while they agree.
	 */
	private volatile @Nullable Long disagreeingSince;

	/** Whether the loop's thread ended on an unexpected failure (until a restart). */
	private volatile boolean ended;

	/**
	 * What this process wrote on its Lease: whether a Lease of its identity is its own.
	 */
	private final OwnWrites writes;

	/**
	 * Whether another live process writes this replica's Lease under its identity, as
	 * seen at the last step (this replica then stands down).
	 */
	private volatile boolean impostor;

	private volatile List<String> members = List.of();

	private volatile SortedSet<Integer> listed = Collections.emptySortedSet();

	private volatile @Nullable String lastError;

	private volatile @Nullable Instant failingSince;

	private final AtomicLong handOvers = new AtomicLong();

	private final AtomicLong fences = new AtomicLong();

	private final AtomicLong conflicts = new AtomicLong();

	private final AtomicLong failures = new AtomicLong();

	ShardMembership(ShardMembershipOptions options, MemberLeaseStore store, ShardListener listener, Clock clock,
			LongSupplier ticker) {
		this.options = Objects.requireNonNull(options, "options");
		this.writes = new OwnWrites(options.identity());
		this.store = Objects.requireNonNull(store, "store");
		this.listener = Objects.requireNonNull(listener, "listener");
		this.clock = Objects.requireNonNull(clock, "clock");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.name = options.leaseName();
		this.leaseSeconds = (int) options.leaseDuration().toSeconds();
		this.leaseNanos = options.leaseDuration().toNanos();
		this.renewNanos = options.renewDeadline().toNanos();
		this.retryNanos = options.retryPeriod().toNanos();
		this.observations = new MemberObservations(this.name, this.leaseNanos);
		this.shards = new MemberShards(logger, options.identity(), options.group(), this.name, options.shards(),
				this.renewNanos);
		this.requests = new LeaseRequests(options.namespace() + "/" + this.name,
				"listwatch-shards-" + memberships.incrementAndGet() + "-request-", ticker);
		this.loop = new LeaseLoop(logger, "Shard membership in " + options.group(),
				"listwatch-shards-" + options.prefix(), 3 * this.renewNanos + TimeUnit.SECONDS.toNanos(5),
				this.requests, new Loop());
	}

	/**
	 * Makes a membership on the API server of a client. Sends no request until
	 * {@link #start()}.
	 * @param client the client
	 * @param mapper the mapper that reads and writes the Leases
	 * @param options the group, identity, shards and durations
	 * @param listener the controller side
	 * @return the membership, not started
	 */
	public static ShardMembership create(ApiServerClient client, JsonMapper mapper, ShardMembershipOptions options,
			ShardListener listener) {
		// Lease traffic on a lane of its own: see LeaderElector.create
		return new ShardMembership(options, new HttpMemberLeaseStore(client.lane(), mapper, options), listener,
				Clock.systemUTC(), System::nanoTime);
	}

	/**
	 * Whether this replica runs a shard now: started and fewer than {@code renewDeadline}
	 * have passed since the start of its last successful write. Turns false at that
	 * deadline even before the listener hears it.
	 * @param shard a shard
	 * @return whether its keys may be reconciled here now
	 */
	public boolean owns(int shard) {
		View current = this.view;
		return current.active() && current.running().contains(shard) && this.ticker.getAsLong() - current.until() < 0;
	}

	/**
	 * How long ago the renew deadline passed, while this replica is fenced: it stopped
	 * all its shards because no step succeeded within the renew deadline, and none has
	 * succeeded since. The others may start those shards once the lease's margin has
	 * passed since that deadline, so what still runs of them must end before; after a
	 * freeze this is already long.
	 * @return the time since the deadline, or empty when this replica is not fenced
	 */
	public Optional<Duration> fencedFor() {
		View current = this.view;
		if (current.active() || !current.fenced()) {
			return Optional.empty();
		}
		long since = this.ticker.getAsLong() - current.until();
		return (since >= 0) ? Optional.of(Duration.ofNanos(since)) : Optional.empty();
	}

	/**
	 * The group, identity, number of shards and durations of this membership.
	 * @return the options
	 */
	public ShardMembershipOptions options() {
		return this.options;
	}

	/**
	 * A snapshot of the membership.
	 * @return the snapshot
	 */
	public ShardStatus status() {
		View current = this.view;
		boolean live = current.active() && this.ticker.getAsLong() - current.until() < 0;
		Long disagreeing = this.disagreeingSince;
		return new ShardStatus(this.options.identity(), this.members,
				live ? current.running() : Collections.emptySortedSet(), this.listed, this.handOvers.get(),
				this.fences.get(), this.conflicts.get(), this.failures.get(), this.lastError, this.failingSince,
				(disagreeing != null) ? Duration.ofNanos(this.ticker.getAsLong() - disagreeing) : null, this.ended,
				this.impostor);
	}

	// ---------------------------------------------------------------- lifecycle

	/** Starts the membership's thread: a step at once, then every retry period. */
	public void start() {
		this.loop.start();
	}

	/**
	 * Stops and waits: reports every running shard stopped, waits for them to drain (at
	 * most the renew deadline), then writes its Lease with no holder and no shard, so the
	 * others take its shards at their next step.
	 */
	public void stop() {
		this.loop.stop();
	}

	/** Stops as a killed process would: no report, no release (for tests). */
	void halt() {
		this.loop.halt();
	}

	public boolean isRunning() {
		return this.loop.isRunning();
	}

	@Override
	public void close() {
		this.loop.close();
	}

	/**
	 * The retry period; no later than the renew deadline while active, so that the fence
	 * is on time; just after the next of the others' Leases would expire, so that its
	 * shards are claimed without waiting for the retry period; and at once after a step
	 * that claimed shards, so that the claim is written and the shards started one step
	 * later rather than one retry period.
	 * @return nanoseconds
	 */
	long nextDelayNanos() {
		long now = this.ticker.getAsLong();
		long delay = this.retryNanos;
		if (this.shards.unwrittenClaims()) {
			return 0;
		}
		if (this.active) {
			delay = Math.min(delay, this.fenceUntil - now);
			delay = Math.min(delay, this.observations.nextExpiry(now) + EXPIRY_SLACK_NANOS - now);
		}
		return Math.max(0, delay);
	}

	// ---------------------------------------------------------------- the step

	/**
	 * Stops every shard if the renew deadline passed (the self-fence): they stay listed
	 * until drained, the claims are dropped.
	 */
	void checkDeadline() {
		if (!this.active || this.ticker.getAsLong() - this.fenceUntil < 0) {
			return;
		}
		this.active = false;
		this.fenced = true;
		this.fences.incrementAndGet();
		SortedSet<Integer> stopped = this.shards.standDown(this.ticker.getAsLong());
		publishView();
		logger.warn(this.options.identity() + " stops all its shards in " + this.options.group() + " " + stopped
				+ ": no successful step within the renew deadline"
				+ ((this.lastError != null) ? ": " + this.lastError : ""));
		report(false, stopped);
	}

	/**
	 * One step: settles the releases, writes this replica's Lease, lists the group,
	 * decides. Every failure is counted and reported in the status, none escapes.
	 */
	void step() {
		long now = this.ticker.getAsLong();
		// a step gets half the renew deadline at most: a request that hangs fails in
		// time for the next step, on a fresh connection, to write before the fence
		long deadline = Math.min(this.active ? this.fenceUntil : now + this.renewNanos, now + this.renewNanos / 2);
		this.shards.settle(now, this::drained);
		SortedSet<Integer> listing = this.shards.listing();
		try {
			long start = this.ticker.getAsLong();
			boolean holderless = this.fenced;
			MemberLease written = writeOwn(listing, deadline, holderless);
			long listSent = this.ticker.getAsLong();
			List<MemberLease> group = this.requests.call(this.store::list, deadline);
			if (this.ticker.getAsLong() - (start + this.renewNanos) >= 0) {
				throw new KubernetesApiException(Kind.CONNECTION,
						"The step answered after the renew deadline: too late to act on", null);
			}
			succeeded(start, written, listing, group, listSent, holderless);
			deleteExpired(deadline, listSent);
			if (this.failing) {
				this.failing = false;
				logger.info("Shard membership in " + this.options.group() + " reaches the API server again");
			}
			String disagreement = this.shards.disagreement();
			this.lastError = disagreement;
			if (disagreement == null) {
				this.disagreeingSince = null;
			}
			else if (this.disagreeingSince == null) {
				this.disagreeingSince = this.ticker.getAsLong();
			}
			this.failingSince = null;
		}
		catch (RuntimeException ex) {
			failed(ex);
		}
		checkDeadline();
	}

	/**
	 * Deletes the others' Leases that are expired (their members fenced themselves a
	 * lease's margin ago at least), each on the condition that it is unchanged, so that a
	 * replica joining later need not wait a lease duration to count them gone, and the
	 * group keeps no Lease of a replica gone for good. A failure waits for the next step.
	 */
	private void deleteExpired(long deadline, long listSent) {
		for (MemberLease expired : this.observations.expired(listSent)) {
			try {
				if (this.requests.call(() -> this.store.delete(expired), deadline)) {
					logger.info(this.options.identity() + " deleted the expired Lease " + expired.name() + " of "
							+ (expired.held() ? expired.holderIdentity() : "a member that left") + " in "
							+ this.options.group());
				}
			}
			catch (RuntimeException ex) {
				logger.debug("Could not delete the expired Lease " + expired.name() + ": " + ex.getMessage());
				return;
			}
		}
	}

	private boolean drained(int shard) {
		try {
			return this.listener.drained(shard);
		}
		catch (RuntimeException ex) {
			logger.error("The shard listener failed to tell whether shard " + shard + " is drained", ex);
			return false;
		}
	}

	/**
	 * Writes this replica's Lease: reads it first when it is not known (a former
	 * incarnation's shards are inherited), creates it when there is none, reads it again
	 * once on a conflict.
	 */
	private MemberLease writeOwn(SortedSet<Integer> listing, long deadline, boolean holderless) {
		MemberLease known = this.own;
		if (known == null) {
			known = this.requests.call(this.store::get, deadline);
			if (known != null) {
				this.shards.inherit(known, this.ticker.getAsLong() + this.observations.durationNanos(known), listing);
			}
		}
		MemberRecord record = new MemberRecord(holderless ? "" : this.options.identity(), this.leaseSeconds,
				MICRO_TIME.format(this.clock.instant()), Collections.unmodifiableSortedSet(new TreeSet<>(listing)));
		this.writes.sending(record.renewTime());
		return write(known, record, deadline);
	}

	private MemberLease write(@Nullable MemberLease known, MemberRecord record, long deadline) {
		if (known == null) {
			return this.requests.call(() -> this.store.create(record), deadline);
		}
		try {
			return this.requests.call(() -> this.store.update(known, record), deadline);
		}
		catch (KubernetesApiException ex) {
			if (ex.code() == 409) {
				this.conflicts.incrementAndGet();
			}
			else if (ex.code() != 404) {
				throw ex;
			}
			if (logger.isDebugEnabled()) {
				logger.debug("Writing Lease " + this.name + " failed, reading it again: " + ex.getMessage());
			}
		}
		MemberLease current = this.requests.call(this.store::get, deadline);
		if (current == null) {
			return this.requests.call(() -> this.store.create(record), deadline);
		}
		if (current.held() && this.writes.another(current.holderIdentity(), current.renewTime())) {
			// this Lease changed under this identity since this process wrote it: another
			// live process has the same identity; of the two, the one that meets the
			// other's write stands down, so they never run a shard at once
			this.impostor = true;
			throw new IllegalStateException("Another process renews Lease " + this.name + " under this replica's "
					+ "identity '" + this.options.identity() + "': this replica stands down; give each replica its "
					+ "own sharding.identity, or leave it unset (the default is unique)");
		}
		return this.requests.call(() -> this.store.update(current, record), deadline);
	}

	/**
	 * Takes a successful step: the fence moves to the renew deadline after the start of
	 * its write, the shards' decision ({@link MemberShards#decide}) is published and told
	 * to the listener, the shards stopped first.
	 */
	private void succeeded(long start, MemberLease written, SortedSet<Integer> listing, List<MemberLease> group,
			long listSent, boolean holderless) {
		long now = this.ticker.getAsLong();
		this.own = written;
		this.writes.confirmed(written.renewTime());
		this.impostor = false;
		this.active = true;
		this.fenced = false;
		this.fenceUntil = start + this.renewNanos;
		MemberShards.Decision decision = this.shards.decide(this.observations, group, listing, listSent, now);
		this.handOvers.addAndGet(decision.handOvers());
		this.members = decision.members();
		this.listed = Collections.unmodifiableSortedSet(new TreeSet<>(listing));
		publishView();
		report(false, decision.toStop());
		report(true, decision.toStart());
	}

	private void publishView() {
		this.view = new View(this.active, this.fenced, this.fenceUntil, this.shards.running());
	}

	private void report(boolean started, SortedSet<Integer> shards) {
		if (shards.isEmpty()) {
			return;
		}
		Set<Integer> copy = Collections.unmodifiableSet(new TreeSet<>(shards));
		try {
			if (started) {
				this.listener.started(copy);
			}
			else {
				this.listener.stopped(copy);
			}
		}
		catch (RuntimeException ex) {
			logger.error("The shard listener failed on " + (started ? "started " : "stopped ") + copy, ex);
		}
	}

	private void failed(RuntimeException ex) {
		this.shards.forgetUnwrittenClaims();
		String message = (ex.getMessage() != null) ? ex.getMessage() : ex.getClass().getName();
		this.lastError = message;
		if (this.failingSince == null) {
			this.failingSince = this.clock.instant();
		}
		if (ex instanceof KubernetesApiException api && api.code() == 409) {
			this.conflicts.incrementAndGet();
			return;
		}
		this.failures.incrementAndGet();
		if (this.loop.stopRequested()) {
			return;
		}
		if (!this.failing) {
			this.failing = true;
			logger.warn("Shard membership in " + this.options.group() + " failed, retrying every "
					+ this.options.retryPeriod().toMillis() + " ms: " + message);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Shard membership in " + this.options.group() + " failed again: " + message);
		}
	}

	/**
	 * Leaves the group: reports every running shard stopped, waits for them to drain (at
	 * most the renew deadline), then writes its Lease with no holder and only the shards
	 * it must still list. A failure is logged: the others then take over once it expires.
	 */
	void release() {
		SortedSet<Integer> stopped = this.shards.stopAll(this.ticker.getAsLong());
		this.active = false;
		publishView();
		report(false, stopped);
		long waited = 0;
		while (true) {
			this.shards.settle(this.ticker.getAsLong(), this::drained);
			if (this.shards.drained() || waited >= this.renewNanos) {
				break;
			}
			waited += DRAIN_POLL_NANOS;
			try {
				this.loop.pause(DRAIN_POLL_NANOS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		SortedSet<Integer> listing = this.shards.stillListed();
		MemberLease known = this.own;
		if (known == null) {
			return;
		}
		// shards still listed (not drained in time, or inherited) keep the full duration,
		// so that the others respect them as long as for a live member
		MemberRecord record = new MemberRecord("", listing.isEmpty() ? 1 : this.leaseSeconds,
				MICRO_TIME.format(this.clock.instant()), Collections.unmodifiableSortedSet(listing));
		try {
			this.own = write(known, record, this.ticker.getAsLong() + this.renewNanos);
			this.listed = record.shards();
			logger.info(this.options.identity() + " left shard group " + this.options.group());
		}
		catch (RuntimeException ex) {
			logger.warn("Could not release Lease " + this.name + " of " + this.options.group()
					+ "; the others take its shards once it expires: " + ex.getMessage());
		}
	}

	@Override
	public String toString() {
		return "ShardMembership[" + this.options.identity() + " in " + this.options.group() + "]";
	}

	/** What the loop's thread does: a step; the release. */
	private final class Loop implements LeaseLoop.Steps {

		@Override
		public void reset() {
			// a membership keeps its state across a restart, but for a crash of its loop
			ShardMembership.this.ended = false;
		}

		@Override
		public void started() {
			logger.info("Shard membership in " + ShardMembership.this.options.group() + " started as "
					+ ShardMembership.this.options.identity() + " on Lease " + ShardMembership.this.name);
		}

		@Override
		public void step() {
			checkDeadline();
			ShardMembership.this.step();
		}

		@Override
		public long nextDelayNanos() {
			return ShardMembership.this.nextDelayNanos();
		}

		@Override
		public void crashed(Throwable ex) {
			ShardMembership.this.lastError = "The membership stopped unexpectedly: " + ex.getClass().getName();
			ShardMembership.this.ended = true;
		}

		@Override
		public void finish(boolean halted) {
			if (!halted) {
				release();
			}
		}

	}

	/** What other threads read: running shards and until when. */
	private record View(boolean active, boolean fenced, long until, SortedSet<Integer> running) {
	}

}
