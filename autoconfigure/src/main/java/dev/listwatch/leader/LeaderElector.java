package dev.listwatch.leader;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.informer.Informer;
import dev.listwatch.leader.LeaderStatus.Role;
import dev.listwatch.leader.LeadershipRevokedEvent.Reason;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * Elects one leader among the replicas of an application on a
 * {@code coordination.k8s.io/v1} Lease, as client-go's {@code leaderelection} package
 * does, and publishes a {@link LeadershipGrantedEvent} when this replica becomes leader
 * and a {@link LeadershipRevokedEvent} when it stops being leader.
 *
 * <h2>The algorithm</h2> Every {@code retryPeriod} (a little less, at random, while
 * following) the elector's thread tries to acquire or renew the Lease; every write
 * carries the resourceVersion last seen, so of two replicas writing at once one fails
 * with 409 Conflict, which is counted and retried at the next period, never fatal.
 * <ul>
 * <li>It takes the Lease when there is none (it creates it), when nobody holds it
 * (released), when this process holds it, or when the Lease has not changed (the same
 * resourceVersion) for its {@code leaseDurationSeconds} since this replica first saw it
 * as it is. That time is measured on this replica's monotonic clock from when it saw the
 * change, never by comparing the holder's {@code renewTime} with the wall clock: clocks
 * set apart by minutes change nothing.</li>
 * <li>This process holds the Lease when it is held by this replica's identity with a
 * {@code renewTime} this process wrote. Held by the same identity otherwise, it was
 * written by another process (two processes given one identity, or an earlier run of this
 * one): it is waited out as any other holder's, never taken over at once, so two
 * processes with one identity never lead together (client-go would let both); that other
 * process renewing it is logged as an error and kept in the status's last error, and a
 * leader that finds it revokes ({@link Reason#LOST}).</li>
 * <li>The leader renews the Lease every {@code retryPeriod}, first with the object it
 * wrote last, on a conflict by reading the Lease again. It is leader only while fewer
 * than {@code renewDeadline} have passed since the <em>start</em> of its last successful
 * write: every request is cut off at that deadline, and at the deadline it stops acting
 * (a revoke with {@link Reason#RENEW_DEADLINE_PASSED}) whether or not the API server can
 * be reached. Seeing the Lease held by another replica revokes at once
 * ({@link Reason#LOST}).</li>
 * <li>On {@link #stop()} the leader steps down in controller-runtime's order: it
 * publishes the revoke ({@link Reason#STOPPED}) and, while its listeners stop the
 * leader's work (the reconciles under way finish within their shutdown timeout), goes on
 * renewing the Lease, so no other replica can take over while that work runs; then it
 * releases the Lease (an empty holder, a lease duration of 1 s, as client-go's
 * {@code ReleaseOnCancel}), so that another replica takes over at its next retry rather
 * than after a lease duration. While it steps down it never acquires the Lease again. If
 * a renewal fails meanwhile, leadership ends at the renew deadline as ever, and
 * {@link #workMayRunFor()} tells the listeners still draining when to interrupt what is
 * left.</li>
 * </ul>
 *
 * <h2>Why two replicas never lead at once, and the clock skew this tolerates</h2> The API
 * server commits a write after the request was sent, and another replica sees that write
 * after it was committed; so others start waiting for the Lease to expire no earlier than
 * the start of the leader's last successful write, and take it over no earlier than
 * {@code leaseDuration} after that. The leader stops at {@code renewDeadline} after that
 * same start. The margin, {@code leaseDuration - renewDeadline} (5 s by default), must
 * cover how long the leader's revoke listeners take and how far the replicas' monotonic
 * clocks drift apart over one lease duration (rate skew: parts per million, microseconds
 * per lease, not seconds). The offset between the replicas' wall clocks plays no part. A
 * write of the old leader still in flight when another takes over fails with 409, because
 * the take-over changed the resourceVersion.
 *
 * <h2>Threads</h2> One thread ({@code listwatch-leader-<lease>}) runs the loop and
 * publishes the events, one at a time, in order; requests run on short-lived helper
 * threads so that the loop can give up on a request at its deadline (the request is then
 * aborted). {@link #isLeader()} and {@link #status()} may be called from any thread.
 */
public final class LeaderElector implements SmartLifecycle, AutoCloseable {

	/**
	 * The lifecycle phase: after the informers ({@link Informer#PHASE}), so that it
	 * starts after them and stops (releasing the Lease) before them.
	 */
	public static final int PHASE = Informer.PHASE + 1024;

	private static final Log logger = LogFactory.getLog(LeaderElector.class);

	/** The API server's {@code MicroTime}: RFC 3339 with microseconds, in UTC. */
	private static final DateTimeFormatter MICRO_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX")
		.withZone(ZoneOffset.UTC);

	/**
	 * How much shorter than {@code retryPeriod} a follower may wait, at random: up to
	 * 20%.
	 */
	private static final double FOLLOWER_JITTER = 0.2;

	private static final AtomicInteger electors = new AtomicInteger();

	private final LeaderElectionOptions options;

	private final LeaseStore store;

	private final Consumer<? super LeadershipEvent> publisher;

	private final Clock clock;

	private final LongSupplier ticker;

	private final RandomGenerator random;

	private final int leaseSeconds;

	private final long renewNanos;

	private final long retryNanos;

	/** Its requests on the Lease, each cut off at a deadline. */
	private final LeaseRequests requests;

	/** Its thread: start, stop, the wait between steps. */
	private final LeaseLoop loop;

	// written by the loop's thread only (or a test driving the steps)

	private @Nullable Lease observed;

	/** When {@link #observed}'s record was first seen as it is, on {@link #ticker}. */
	private long observedAt;

	private boolean failing;

	/**
	 * What this process wrote on the Lease: whether a Lease of its identity is its own.
	 */
	private final OwnWrites writes;

	/**
	 * Why a Lease held by this identity is not this process's, while it is so; kept in
	 * the status's last error.
	 */
	private @Nullable String impostor;

	/**
	 * Guards the decisions to grant and to revoke, which the loop's thread and a stop
	 * make.
	 */
	private final Object term = new Object();

	/** Whether the revoke of the current term went out; guarded by {@link #term}. */
	private boolean revoked;

	/**
	 * Held while a grant or a stop's revoke is decided and published, so that a revoke
	 * never overtakes the listeners of the grant before it.
	 */
	private final Object transitions = new Object();

	// read by any thread

	/**
	 * A stop is under way and its revoke listeners are draining the leader's work: renew
	 * while leading, never acquire, never grant.
	 */
	private volatile boolean draining;

	/**
	 * Until when the work of this replica's last term may run, on {@link #ticker}: half
	 * the lease's margin after its renew deadline (see {@link #workMayRunFor()}).
	 */
	private volatile long workUntil;

	private final long halfMarginNanos;

	private volatile boolean leading;

	/**
	 * When leadership ends unless renewed, on {@link #ticker}; meaningful while
	 * {@link #leading}.
	 */
	private volatile long leadingUntil;

	private volatile boolean running;

	private volatile @Nullable String holder;

	private volatile int leaseTransitions;

	private volatile @Nullable Instant since;

	private volatile @Nullable Instant lastRenewal;

	private volatile @Nullable String lastError;

	private final AtomicLong conflicts = new AtomicLong();

	private final AtomicLong failures = new AtomicLong();

	LeaderElector(LeaderElectionOptions options, LeaseStore store, Consumer<? super LeadershipEvent> publisher,
			Clock clock, LongSupplier ticker, RandomGenerator random) {
		this.options = Objects.requireNonNull(options, "options");
		this.store = Objects.requireNonNull(store, "store");
		this.publisher = Objects.requireNonNull(publisher, "publisher");
		this.clock = Objects.requireNonNull(clock, "clock");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.random = Objects.requireNonNull(random, "random");
		this.writes = new OwnWrites(options.identity());
		this.leaseSeconds = (int) options.leaseDuration().toSeconds();
		this.renewNanos = options.renewDeadline().toNanos();
		this.retryNanos = options.retryPeriod().toNanos();
		this.halfMarginNanos = options.leaseDuration().minus(options.renewDeadline()).toNanos() / 2;
		this.workUntil = ticker.getAsLong();
		this.requests = new LeaseRequests(options.lease(),
				"listwatch-leader-" + electors.incrementAndGet() + "-request-", ticker);
		this.loop = new LeaseLoop(logger, "Leader election on Lease " + options.lease(),
				"listwatch-leader-" + options.leaseName(), 2 * this.renewNanos + TimeUnit.SECONDS.toNanos(5),
				this.requests, new Loop());
	}

	/**
	 * Makes an elector on the API server of a client. Sends no request until
	 * {@link #start()}.
	 * @param client the client (its connection, credentials and proxy)
	 * @param mapper the mapper that reads and writes the Lease
	 * @param options the Lease, this replica's identity and the durations
	 * @param publisher where the events go, e.g. the application context
	 * @return the elector, not started
	 */
	public static LeaderElector create(ApiServerClient client, JsonMapper mapper, LeaderElectionOptions options,
			ApplicationEventPublisher publisher) {
		Objects.requireNonNull(publisher, "publisher");
		// Lease traffic on a lane of its own (client-go builds the election client
		// apart): neither the watches' request budget nor their connection delays it
		return new LeaderElector(options,
				new HttpLeaseStore(client.lane(), mapper, options.leaseNamespace(), options.leaseName()),
				publisher::publishEvent, Clock.systemUTC(), System::nanoTime, RandomGenerator.getDefault());
	}

	/**
	 * The options.
	 * @return the Lease, identity and durations
	 */
	public LeaderElectionOptions options() {
		return this.options;
	}

	/**
	 * Whether this replica is leader now: it was granted leadership and fewer than
	 * {@code renewDeadline} have passed since the start of its last successful renewal.
	 * Turns false at that deadline even before the {@link LeadershipRevokedEvent} is
	 * published, so work that must not run on two replicas can check it right before it
	 * acts.
	 * @return whether this replica is leader
	 */
	public boolean isLeader() {
		return this.leading && this.ticker.getAsLong() - this.leadingUntil < 0;
	}

	/**
	 * How long the work of this replica's current or last term may still run before it
	 * must be interrupted: until half the lease's margin ({@code leaseDuration -
	 * renewDeadline}) after the renew deadline of its last successful renewal. Another
	 * replica may take the Lease over no earlier than the whole margin after that
	 * deadline, so work interrupted then ends before another replica starts it. While
	 * leading, and while a {@link #stop()} renews during its revoke listeners, it moves
	 * forward with every renewal. Zero once it has passed (after a freeze it has passed
	 * at once: it is counted from the deadline, not from when this replica noticed),
	 * after the Lease was seen held by another replica (which may be working already),
	 * and when this replica has not led.
	 * @return the time left, never negative
	 */
	public Duration workMayRunFor() {
		long left = this.workUntil - this.ticker.getAsLong();
		return (left > 0) ? Duration.ofNanos(left) : Duration.ZERO;
	}

	/**
	 * A snapshot of the elector's state.
	 * @return the snapshot
	 */
	public LeaderStatus status() {
		Role role = !this.running ? Role.STOPPED : isLeader() ? Role.LEADER : Role.FOLLOWER;
		return new LeaderStatus(role, this.options.identity(), this.holder, this.options.lease(), this.since,
				this.lastRenewal, this.leaseTransitions, this.conflicts.get(), this.failures.get(), this.lastError);
	}

	/**
	 * Starts the elector's thread: it tries to acquire the Lease at once, then every
	 * retry period. Does nothing when it runs already. A stopped elector may be started
	 * again; it then forgets what it saw of the Lease and waits a whole lease duration
	 * before taking over a Lease held by another.
	 */
	@Override
	public void start() {
		this.loop.start();
	}

	/**
	 * Stops the elector and waits for it. A leader steps down: it publishes its
	 * {@link LeadershipRevokedEvent} ({@link Reason#STOPPED}) on the calling thread while
	 * its own thread goes on renewing the Lease, so that the listeners can let the
	 * leader's work finish with the Lease still held; once they have returned it releases
	 * the Lease, so another replica takes over at its next retry. Waits for the
	 * listeners, then at most {@code renewDeadline} for the release (plus a request under
	 * way, which is aborted).
	 */
	@Override
	public void stop() {
		synchronized (this.transitions) {
			boolean stepDown;
			synchronized (this.term) {
				stepDown = this.loop.isRunning() && this.leading && !this.revoked && !this.draining;
				this.draining = this.loop.isRunning();
				if (stepDown) {
					this.revoked = true;
				}
			}
			if (stepDown) {
				logger.info(this.options.identity() + " steps down as leader on Lease " + this.options.lease()
						+ ": its leader-only work stops first, with the Lease renewed meanwhile, then the Lease is "
						+ "released");
				publish(new LeadershipRevokedEvent(this, this.options.identity(), this.options.lease(),
						Reason.STOPPED));
			}
		}
		this.loop.stop();
	}

	/**
	 * Stops as a killed process would: no revoke, no release (for tests of a crashed
	 * leader).
	 */
	void halt() {
		this.loop.halt();
	}

	@Override
	public boolean isRunning() {
		return this.loop.isRunning();
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * Stops the elector (releasing the Lease) and its request threads.
	 */
	@Override
	public void close() {
		this.loop.close();
	}

	// ---------------------------------------------------------------- the loop

	/**
	 * How long to wait before the next attempt: the retry period, but no later than the
	 * renew deadline while leading (so the deadline is checked on time), and up to 20%
	 * less at random while following (so that followers do not keep asking at the same
	 * moments).
	 * @return nanoseconds
	 */
	long nextDelayNanos() {
		if (this.leading) {
			return Math.max(0, Math.min(this.retryNanos, this.leadingUntil - this.ticker.getAsLong()));
		}
		return (long) (this.retryNanos * (1 - FOLLOWER_JITTER * this.random.nextDouble()));
	}

	/**
	 * Stops leading if the renew deadline has passed.
	 */
	void checkDeadline() {
		if (this.leading && this.ticker.getAsLong() - this.leadingUntil >= 0) {
			revoke(Reason.RENEW_DEADLINE_PASSED);
		}
	}

	/**
	 * One attempt to acquire or renew the Lease; every failure is counted and reported in
	 * the status, none escapes.
	 */
	void step() {
		long now = this.ticker.getAsLong();
		// an attempt gets half the renew deadline at most: a request that hangs (a
		// half-open connection) fails in time for the next attempt, on a fresh
		// connection, to renew before the deadline
		long deadline = Math.min(this.leading ? this.leadingUntil : now + this.renewNanos, now + this.renewNanos / 2);
		try {
			tryAcquireOrRenew(deadline);
			if (this.failing) {
				this.failing = false;
				logger.info("Leader election on Lease " + this.options.lease() + " reaches the API server again");
			}
			this.lastError = this.impostor;
		}
		catch (RuntimeException ex) {
			failed(ex);
		}
	}

	private void failed(RuntimeException ex) {
		String message = (ex.getMessage() != null) ? ex.getMessage() : ex.getClass().getName();
		if (ex instanceof KubernetesApiException api && api.code() == 409) {
			this.conflicts.incrementAndGet();
			this.lastError = message;
			if (logger.isDebugEnabled()) {
				logger.debug("Conflict on Lease " + this.options.lease() + ", retried in the next period: " + message);
			}
			return;
		}
		this.failures.incrementAndGet();
		this.lastError = message;
		if (this.loop.stopRequested()) {
			// a request aborted by stop(): nothing to warn about
			return;
		}
		if (!this.failing) {
			this.failing = true;
			logger.warn("Leader election on Lease " + this.options.lease() + " failed, retrying every "
					+ this.options.retryPeriod().toMillis() + " ms: " + message);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Leader election on Lease " + this.options.lease() + " failed again: " + message);
		}
	}

	/**
	 * client-go's {@code tryAcquireOrRenew}: acquires or renews the Lease, each request
	 * cut off at {@code deadline}.
	 * @param deadline when to give up, on the ticker
	 * @return whether this replica holds the Lease now, by a write that started before
	 * the renew deadline
	 */
	private boolean tryAcquireOrRenew(long deadline) {
		Instant now = this.clock.instant();
		String time = MICRO_TIME.format(now);
		Lease known = this.observed;
		if (this.leading && known != null && ours(known.record())) {
			// the fast path: renew the Lease as written last
			LeaseRecord renewed = new LeaseRecord(this.options.identity(), this.leaseSeconds,
					known.record().acquireTime(), time, known.record().leaseTransitions());
			this.writes.sending(time);
			long start = this.ticker.getAsLong();
			try {
				return wrote(this.requests.call(() -> this.store.update(known, renewed), deadline), start, now);
			}
			catch (KubernetesApiException ex) {
				if (ex.code() == 409) {
					this.conflicts.incrementAndGet();
				}
				else if (deadline - this.ticker.getAsLong() <= 0) {
					// no time left to read the Lease again: this is the failure to report
					throw ex;
				}
				if (logger.isDebugEnabled()) {
					logger.debug(
							"Renewing Lease " + this.options.lease() + " failed, reading it again: " + ex.getMessage());
				}
			}
		}
		Lease current = this.requests.call(this.store::get, deadline);
		if (current == null) {
			LeaseRecord created = new LeaseRecord(this.options.identity(), this.leaseSeconds, time, time, 0);
			this.writes.sending(time);
			long start = this.ticker.getAsLong();
			return wrote(this.requests.call(() -> this.store.create(created), deadline), start, now);
		}
		boolean changed = this.observed == null || !this.observed.resourceVersion().equals(current.resourceVersion());
		observe(current);
		LeaseRecord record = current.record();
		boolean mine = ours(record);
		impostor(record, changed);
		if (record.held() && !mine) {
			if (this.leading) {
				// another replica holds it, and may be working already
				this.workUntil = this.ticker.getAsLong();
				revoke(Reason.LOST);
			}
			if (this.draining) {
				return false;
			}
			long expiresAt = this.observedAt + TimeUnit.SECONDS.toNanos(record.leaseDurationSeconds());
			if (this.ticker.getAsLong() - expiresAt <= 0) {
				return false;
			}
		}
		LeaseRecord next = mine
				? new LeaseRecord(this.options.identity(), this.leaseSeconds,
						(record.acquireTime() != null) ? record.acquireTime() : time, time, record.leaseTransitions())
				: new LeaseRecord(this.options.identity(), this.leaseSeconds, time, time,
						record.leaseTransitions() + 1);
		this.writes.sending(time);
		long start = this.ticker.getAsLong();
		return wrote(this.requests.call(() -> this.store.update(current, next), deadline), start, now);
	}

	/**
	 * Whether this process holds the Lease: held by this replica's identity, with a renew
	 * time this process wrote. One held by the same identity with another renew time was
	 * written by another process (one with a copied identity, or an earlier run of this
	 * one), and is waited out as any other holder's.
	 */
	private boolean ours(LeaseRecord record) {
		return this.writes.ours(record.holderIdentity(), record.renewTime());
	}

	/**
	 * Says so, once, when the Lease is held under this replica's identity by another
	 * process; an error when that process keeps renewing it (two live processes with one
	 * identity), a warning the first time (it may be this process's earlier run).
	 */
	private void impostor(LeaseRecord record, boolean changed) {
		if (!record.heldBy(this.options.identity()) || ours(record)) {
			if (this.impostor != null) {
				logger.info("Lease " + this.options.lease() + " is no longer held by another process with identity '"
						+ this.options.identity() + "'");
			}
			this.impostor = null;
			return;
		}
		String identity = this.options.identity();
		if (this.impostor == null) {
			this.impostor = "Lease " + this.options.lease() + " is held under this replica's identity '" + identity
					+ "' by another process; waiting for it to expire";
			logger.warn(this.impostor + " (an earlier run of this process, or another process with the same "
					+ "listwatch.leader-election.identity)");
		}
		else if (changed && !this.impostor.startsWith("Another")) {
			this.impostor = "Another live process renews Lease " + this.options.lease()
					+ " under this replica's identity '" + identity
					+ "': this replica stands down; give each replica its own "
					+ "listwatch.leader-election.identity, or leave it unset (the default is unique)";
			logger.error(this.impostor);
		}
	}

	/**
	 * This replica wrote the Lease as its holder, by a request that started at
	 * {@code start}: it leads until {@code start + renewDeadline}, unless the answer came
	 * later than that.
	 */
	private boolean wrote(Lease written, long start, Instant now) {
		observe(written);
		if (written.record().heldBy(this.options.identity())) {
			this.writes.confirmed(written.record().renewTime());
		}
		this.lastRenewal = now;
		long until = start + this.renewNanos;
		if (this.ticker.getAsLong() - until >= 0) {
			// answered after the deadline: too late to act on; the next attempt renews
			return false;
		}
		if (!this.leading && this.draining) {
			// stepping down: the Lease is no longer this replica's to lead on
			return false;
		}
		// whoever held it under this identity before, it is this process's now
		this.impostor = null;
		this.leadingUntil = until;
		this.workUntil = until + this.halfMarginNanos;
		if (!this.leading) {
			// the grant and its listeners are whole before a stop's revoke goes out
			synchronized (this.transitions) {
				if (this.draining) {
					return false;
				}
				synchronized (this.term) {
					this.revoked = false;
				}
				this.leading = true;
				this.since = this.clock.instant();
				logger.info(this.options.identity() + " is now leader on Lease " + this.options.lease());
				publish(new LeadershipGrantedEvent(this, this.options.identity(), this.options.lease()));
			}
		}
		return true;
	}

	/**
	 * Remembers the Lease; a change starts the expiry wait again. Any change counts (a
	 * new resourceVersion, not only a new record): a renewal always changes it, whatever
	 * the holder's clock wrote as its renewTime.
	 */
	private void observe(Lease lease) {
		Lease previous = this.observed;
		if (previous == null || !previous.resourceVersion().equals(lease.resourceVersion())) {
			this.observedAt = this.ticker.getAsLong();
		}
		this.observed = lease;
		LeaseRecord record = lease.record();
		this.holder = record.held() ? record.holderIdentity() : null;
		this.leaseTransitions = record.leaseTransitions();
	}

	private void revoke(Reason reason) {
		boolean publish;
		synchronized (this.term) {
			this.leading = false;
			publish = !this.revoked;
			this.revoked = true;
		}
		this.since = this.clock.instant();
		if (!publish) {
			// stepping down, its revoke out already: what still drains is interrupted
			// once workMayRunFor() runs out
			logger.warn(this.options.identity() + " lost leadership on Lease " + this.options.lease() + " (" + reason
					+ ") while stepping down; leader-only work still running ends within " + workMayRunFor().toMillis()
					+ " ms" + ((this.lastError != null) ? ": " + this.lastError : ""));
			return;
		}
		String text = this.options.identity() + " is no longer leader on Lease " + this.options.lease() + " (" + reason
				+ ")";
		if (reason == Reason.STOPPED) {
			logger.info(text);
		}
		else {
			logger.warn(text + ((this.lastError != null) ? ": " + this.lastError : ""));
		}
		publish(new LeadershipRevokedEvent(this, this.options.identity(), this.options.lease(), reason));
	}

	private void publish(LeadershipEvent event) {
		try {
			this.publisher.accept(event);
		}
		catch (RuntimeException ex) {
			// a failing listener must not stop the election: the others still need to
			// hear
			logger.error("A listener of " + event + " failed", ex);
		}
	}

	/**
	 * client-go's {@code ReleaseOnCancel}: if this replica holds the Lease, writes an
	 * empty holder with a lease duration of 1 s, so that another replica takes it at its
	 * next retry. A failure is logged: the others then take over after a lease duration.
	 */
	void release() {
		Lease known = this.observed;
		if (known == null || !ours(known.record())) {
			return;
		}
		long deadline = this.ticker.getAsLong() + this.renewNanos;
		String time = MICRO_TIME.format(this.clock.instant());
		LeaseRecord released = new LeaseRecord("", 1, time, time, known.record().leaseTransitions());
		this.writes.sending(time);
		try {
			Lease written;
			try {
				written = this.requests.call(() -> this.store.update(known, released), deadline);
			}
			catch (KubernetesApiException ex) {
				if (ex.code() != 409) {
					throw ex;
				}
				// a renewal of ours may have landed without its answer: read what is
				// there
				Lease current = this.requests.call(this.store::get, deadline);
				if (current == null || !ours(current.record())) {
					return;
				}
				written = this.requests.call(() -> this.store.update(current, released), deadline);
			}
			observe(written);
			logger.info(this.options.identity() + " released Lease " + this.options.lease());
		}
		catch (RuntimeException ex) {
			logger.warn("Could not release Lease " + this.options.lease()
					+ "; another replica takes it over once it expires: " + ex.getMessage());
		}
	}

	@Override
	public String toString() {
		return "LeaderElector[" + this.options.identity() + " on " + this.options.lease() + "]";
	}

	/** What the loop's thread does: steps between deadline checks; revoke and release. */
	private final class Loop implements LeaseLoop.Steps {

		@Override
		public void reset() {
			LeaderElector.this.observed = null;
			LeaderElector.this.failing = false;
			LeaderElector.this.leading = false;
			LeaderElector.this.draining = false;
			synchronized (LeaderElector.this.term) {
				LeaderElector.this.revoked = false;
			}
			LeaderElector.this.workUntil = LeaderElector.this.ticker.getAsLong();
			LeaderElector.this.running = true;
		}

		@Override
		public void started() {
			logger.info("Leader election on Lease " + LeaderElector.this.options.lease() + " started as "
					+ LeaderElector.this.options.identity());
		}

		@Override
		public void step() {
			checkDeadline();
			if (LeaderElector.this.leading || !LeaderElector.this.draining) {
				// stepping down, only a leader renews
				LeaderElector.this.step();
			}
			checkDeadline();
		}

		@Override
		public long nextDelayNanos() {
			return LeaderElector.this.nextDelayNanos();
		}

		@Override
		public void crashed(Throwable ex) {
			LeaderElector.this.lastError = "The elector stopped unexpectedly: " + ex;
		}

		@Override
		public void finish(boolean halted) {
			try {
				if (!halted) {
					if (LeaderElector.this.leading && LeaderElector.this.draining) {
						// stepped down: the revoke went out when the stop began, and its
						// listeners have returned
						LeaderElector.this.leading = false;
						LeaderElector.this.workUntil = LeaderElector.this.ticker.getAsLong();
					}
					else if (LeaderElector.this.leading) {
						revoke(Reason.STOPPED);
					}
					release();
				}
			}
			finally {
				LeaderElector.this.draining = false;
				LeaderElector.this.running = false;
			}
		}

	}

}
