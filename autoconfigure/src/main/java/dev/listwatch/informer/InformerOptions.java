package dev.listwatch.informer;

import java.time.Duration;
import java.util.random.RandomGenerator;

import dev.listwatch.ListOptions;
import org.jspecify.annotations.Nullable;

/**
 * How an {@link Informer} lists and watches: one value, checked when made.
 *
 * @param labelSelector the label selector of every list and watch, or {@code null}
 * @param fieldSelector the field selector of every list and watch, or {@code null}
 * @param pageSize the page size of lists ({@code limit}), or {@code null} for one page
 * @param streamingList whether to try a streaming list ({@code sendInitialEvents}) first,
 * falling back to list + watch where the server does not serve it
 * @param minWatchTimeout the shortest server-side watch timeout; each watch picks one at
 * random between this and {@code maxWatchTimeout}
 * @param maxWatchTimeout the longest server-side watch timeout
 * @param idleTimeout how long a watch may deliver nothing (not even a bookmark) before it
 * is taken for dead and replaced
 * @param backoff the backoff between failed attempts
 * @param resyncPeriod how often the whole cache is delivered again to listeners (as
 * MODIFIED events flagged {@code resync}, without a request to the API server), or
 * {@code null} or zero for never
 * @param autoStartup whether the application context starts the informer ({@code false}:
 * the application calls {@link Informer#start()} itself)
 * @param onRefusal what the watch does when the API server refuses it in a way that
 * retrying will not mend (see {@link OnRefusal})
 */
public record InformerOptions(@Nullable String labelSelector, @Nullable String fieldSelector, @Nullable Long pageSize,
		boolean streamingList, Duration minWatchTimeout, Duration maxWatchTimeout, Duration idleTimeout,
		BackoffPolicy backoff, @Nullable Duration resyncPeriod, boolean autoStartup, OnRefusal onRefusal) {

	/**
	 * Makes options.
	 * @throws IllegalArgumentException when a selector does not parse (the message says
	 * which and why), a duration is missing, the idle timeout is not positive, or the
	 * page size is not positive
	 */
	public InformerOptions {
		if (labelSelector != null) {
			try {
				LabelSelector.parse(labelSelector);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(
						"Label selector '" + labelSelector + "' does not parse: " + ex.getMessage(), ex);
			}
		}
		if (fieldSelector != null) {
			try {
				FieldSelector.validate(fieldSelector);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(
						"Field selector '" + fieldSelector + "' does not parse: " + ex.getMessage(), ex);
			}
		}
		if (minWatchTimeout == null || maxWatchTimeout == null || backoff == null) {
			throw new IllegalArgumentException("minWatchTimeout, maxWatchTimeout and backoff must not be null");
		}
		if (idleTimeout == null || idleTimeout.isNegative() || idleTimeout.isZero()) {
			throw new IllegalArgumentException("idleTimeout must be a positive duration, not " + idleTimeout);
		}
		if (resyncPeriod != null && resyncPeriod.isNegative()) {
			throw new IllegalArgumentException("resyncPeriod must not be negative, not " + resyncPeriod);
		}
		if (pageSize != null && pageSize <= 0) {
			throw new IllegalArgumentException("pageSize must be positive, or null for one page, not " + pageSize);
		}
		if (onRefusal == null) {
			onRefusal = OnRefusal.RETRY;
		}
	}

	/**
	 * Makes options that retry every refusal ({@link OnRefusal#RETRY}).
	 * @param labelSelector the label selector, or {@code null}
	 * @param fieldSelector the field selector, or {@code null}
	 * @param pageSize the page size of lists, or {@code null} for one page
	 * @param streamingList whether to try a streaming list first
	 * @param minWatchTimeout the shortest server-side watch timeout
	 * @param maxWatchTimeout the longest server-side watch timeout
	 * @param idleTimeout how long a watch may deliver nothing before it is replaced
	 * @param backoff the backoff between failed attempts
	 * @param resyncPeriod how often the cache is delivered again, or {@code null}
	 * @param autoStartup whether the application context starts the informer
	 * @throws IllegalArgumentException as the canonical constructor
	 */
	public InformerOptions(@Nullable String labelSelector, @Nullable String fieldSelector, @Nullable Long pageSize,
			boolean streamingList, Duration minWatchTimeout, Duration maxWatchTimeout, Duration idleTimeout,
			BackoffPolicy backoff, @Nullable Duration resyncPeriod, boolean autoStartup) {
		this(labelSelector, fieldSelector, pageSize, streamingList, minWatchTimeout, maxWatchTimeout, idleTimeout,
				backoff, resyncPeriod, autoStartup, OnRefusal.RETRY);
	}

	/**
	 * These options with another label selector.
	 * @param labelSelector the selector, for example
	 * {@code app=web,tier in (front,back)}, or {@code null} for every object
	 * @return the options
	 * @throws IllegalArgumentException when it does not parse
	 */
	public InformerOptions withLabelSelector(@Nullable String labelSelector) {
		return new InformerOptions(labelSelector, this.fieldSelector, this.pageSize, this.streamingList,
				this.minWatchTimeout, this.maxWatchTimeout, this.idleTimeout, this.backoff, this.resyncPeriod,
				this.autoStartup, this.onRefusal);
	}

	/**
	 * These options with another field selector.
	 * @param fieldSelector the selector, for example {@code metadata.name!=x}, or
	 * {@code null} for every object
	 * @return the options
	 * @throws IllegalArgumentException when it does not parse
	 */
	public InformerOptions withFieldSelector(@Nullable String fieldSelector) {
		return new InformerOptions(this.labelSelector, fieldSelector, this.pageSize, this.streamingList,
				this.minWatchTimeout, this.maxWatchTimeout, this.idleTimeout, this.backoff, this.resyncPeriod,
				this.autoStartup, this.onRefusal);
	}

	/**
	 * These options with another resync period.
	 * @param resyncPeriod how often the cache is delivered again, or {@code null} or zero
	 * for never
	 * @return the options
	 */
	public InformerOptions withResyncPeriod(@Nullable Duration resyncPeriod) {
		return new InformerOptions(this.labelSelector, this.fieldSelector, this.pageSize, this.streamingList,
				this.minWatchTimeout, this.maxWatchTimeout, this.idleTimeout, this.backoff, resyncPeriod,
				this.autoStartup, this.onRefusal);
	}

	/**
	 * These options with another auto-startup.
	 * @param autoStartup whether the application context starts the informer
	 * @return the options
	 */
	public InformerOptions withAutoStartup(boolean autoStartup) {
		return new InformerOptions(this.labelSelector, this.fieldSelector, this.pageSize, this.streamingList,
				this.minWatchTimeout, this.maxWatchTimeout, this.idleTimeout, this.backoff, this.resyncPeriod,
				autoStartup, this.onRefusal);
	}

	/**
	 * These options with another policy for refusals that retrying will not mend.
	 * @param onRefusal the policy
	 * @return the options
	 */
	public InformerOptions withOnRefusal(OnRefusal onRefusal) {
		return new InformerOptions(this.labelSelector, this.fieldSelector, this.pageSize, this.streamingList,
				this.minWatchTimeout, this.maxWatchTimeout, this.idleTimeout, this.backoff, this.resyncPeriod,
				this.autoStartup, onRefusal);
	}

	/**
	 * Whether the cache is delivered again periodically.
	 * @return whether the resync period is set and positive
	 */
	public boolean resyncs() {
		return this.resyncPeriod != null && !this.resyncPeriod.isZero();
	}

	/**
	 * client-go's defaults: pages of 500, watches of 5 to 10 minutes, its backoff,
	 * streaming lists where served, and a watch silent for 90 seconds (the API server
	 * sends a bookmark about every minute) taken for dead; no resync; started with the
	 * application context; every refusal retried.
	 * @return the defaults
	 */
	public static InformerOptions defaults() {
		return new InformerOptions(null, null, 500L, true, Duration.ofMinutes(5), Duration.ofMinutes(10),
				Duration.ofSeconds(90), BackoffPolicy.CLIENT_GO, null, true, OnRefusal.RETRY);
	}

	/**
	 * What a watch does when the API server refuses its list or watch in a way that
	 * retrying will not mend: 401 (the client refreshes its credentials and sends the
	 * request once more before it sees one, so a 401 here persists after the refresh),
	 * 403 (RBAC forbids it), or 404 (the resource does not exist, for example a custom
	 * resource whose definition is missing). Failures of any other kind (the server
	 * cannot be reached, 5xx, 429, credentials that cannot be obtained) are always
	 * retried.
	 */
	public enum OnRefusal {

		/**
		 * Back off and try again, as for any failure (client-go's behaviour): the watch
		 * is failing, and health says DOWN once that lasts past its grace period; it
		 * recovers by itself once the refusal is lifted (a role binding added).
		 */
		RETRY,

		/**
		 * Stop the watch: its thread ends, its state is
		 * {@link dev.listwatch.WatchStatus.State#FAILED} (health DOWN), and a
		 * {@link dev.listwatch.event.WatchStateChangedEvent} {@code FAILED} carries the
		 * refusal. Its cache keeps what it held. Other watches go on; for a namespace
		 * set, the namespace refused stops and the others go on. A stop and a start of
		 * the informer try again.
		 */
		FAIL

	}

	/**
	 * The delays of a backoff.
	 *
	 * @param initial the first delay (client-go: 800 ms)
	 * @param max the longest delay, jitter included (client-go: 30 s, to which its jitter
	 * adds up to as much again)
	 * @param factor how much each delay grows (client-go: 2)
	 * @param jitter the random part, as a fraction of the delay (client-go: 1.0)
	 * @param resetAfter how long without failure starts over (client-go: 2 min)
	 */
	public record BackoffPolicy(Duration initial, Duration max, double factor, double jitter, Duration resetAfter) {

		/**
		 * Makes a policy.
		 * @throws IllegalArgumentException when the initial delay is not positive, the
		 * longest is shorter than it, the factor is below 1, or the jitter is negative
		 */
		public BackoffPolicy {
			if (initial == null || initial.isNegative() || initial.isZero() || max == null || max.compareTo(initial) < 0
					|| resetAfter == null) {
				throw new IllegalArgumentException("backoff delays must be positive, the longest at least the first "
						+ "(initial " + initial + ", max " + max + ", reset after " + resetAfter + ")");
			}
			if (factor < 1 || jitter < 0) {
				throw new IllegalArgumentException(
						"backoff factor must be at least 1 and jitter not negative, not " + factor + " and " + jitter);
			}
		}

		/** client-go's reflector backoff. */
		public static final BackoffPolicy CLIENT_GO = new BackoffPolicy(Duration.ofMillis(800), Duration.ofSeconds(30),
				2.0, 1.0, Duration.ofMinutes(2));

	}

	/**
	 * The query of a list's first page: the selectors and the page size.
	 * @return the list options
	 */
	ListOptions listRequest() {
		return ListOptions.none()
			.withLabelSelector(this.labelSelector)
			.withFieldSelector(this.fieldSelector)
			.withLimit(this.pageSize);
	}

	/**
	 * The query of a watch: the selectors, bookmarks, and a timeout drawn between the
	 * shortest and the longest watch timeout, so that the watches of many replicas do not
	 * all end at once.
	 * @param random the source of the draw
	 * @return the watch options
	 */
	ListOptions watchRequest(RandomGenerator random) {
		long min = this.minWatchTimeout.toMillis();
		long max = Math.max(min, this.maxWatchTimeout.toMillis());
		long timeout = min + (long) (random.nextDouble() * (max - min));
		return ListOptions.none()
			.withLabelSelector(this.labelSelector)
			.withFieldSelector(this.fieldSelector)
			.withAllowWatchBookmarks(true)
			.withTimeout(Duration.ofMillis(timeout));
	}

}
