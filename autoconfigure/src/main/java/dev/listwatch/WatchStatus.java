package dev.listwatch;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What one watch is doing, at one moment: the immutable snapshot that health, metrics and
 * the actuator endpoint read, and nothing else. Obtained from the informer that runs the
 * watch; each call makes a new snapshot, from any thread, without blocking the watch.
 * <p>
 * <b>Consistency.</b> Each field is read once; fields written by the watch's thread
 * between two reads may come from neighbouring moments (a count may be one event ahead of
 * {@link #lastResourceVersion()}), never from a torn value. Counters only grow while the
 * application runs.
 * <p>
 * <b>Failing.</b> A watch is failing from its first failure until it makes progress
 * again: an event or bookmark arrives, a sync completes, or a stream is held open for a
 * second without an error (a quiet resource sends nothing; a proxy that closes idle
 * connections cuts such a stream, which is then no failure either, as in client-go).
 * Opening a watch counts as progress at once after a failure to reach the server
 * (refused, 5xx, 429, 401/403, credentials); after a failure on an open stream (a cut
 * within a second, undecodable bytes, an ERROR event) only once its next stream holds, so
 * a watch that fails at once, again and again, stays failing. A stream replaced for
 * silence ({@link RestartReason#IDLE}) is not a failure. Durations
 * ({@link #failingFor()}, {@link #silentFor()}) are measured on a monotonic clock;
 * instants are for display.
 * <p>
 * Never holds an object's values or a credential: errors carry messages of
 * {@link KubernetesApiException}, unbindable objects their key, path and reason only.
 *
 * @param watch the watch's name
 * @param watched what the watch lists and watches
 * @param running whether the watch has been started and not stopped
 * @param state where the watch is in its life
 * @param stateSince when it entered that state
 * @param synced whether the initial sync has completed (the cache held a whole list
 * once); stays true across relists, stops and starts
 * @param lastResourceVersion the last resourceVersion the watch handed on, or
 * {@code null} before the first list
 * @param objects objects in the cache
 * @param lastEventTime when the last event (bookmarks included) arrived, or {@code null}
 * @param silentFor how long since the last event or the opening of the current watch,
 * whichever is later, or {@code null} before the first watch opened
 * @param lastSyncTime when the last full sync (list or streaming list) completed, or
 * {@code null}
 * @param streamingList whether the last sync used a streaming list, or {@code null}
 * before the first
 * @param events events received, by type (every type present), in the enum's order
 * @param restarts watch restarts, by reason (only reasons that happened), in the enum's
 * order
 * @param relists relists after the first list (the resourceVersion had expired)
 * @param consecutiveFailures failures since the last progress
 * @param failingSince since when the watch has been failing, or {@code null} when it is
 * not
 * @param failingFor how long it has been failing, or {@code null} when it is not
 * @param lastError the last failure, or {@code null}; kept after the watch recovers
 * @param lists the lists made (each page sequence counts once) and their total time
 * @param syncs the full syncs completed and their total time
 * @param backlog events waiting to be delivered to listeners
 * @param listenerFailures event listeners that threw
 * @param indexFailures index functions that failed for an object (cached without values
 * in that index)
 * @param lastIndexFailure the last of those, or {@code null}
 * @param unbindable the objects the server has that the watch cannot hold, in key order
 * @param namespaces for a watch of a namespace set, each namespace's own status (one
 * watch per namespace, each with its own resourceVersion, restarts and relists), in the
 * declared order; empty for a watch of one namespace or all. The watch's own fields then
 * combine them: counts are summed; it is synced once every namespace is; its state is the
 * least advanced of theirs (a failing namespace makes the watch failing, from the
 * earliest time one started failing); its silence is the longest;
 * {@code lastResourceVersion} is {@code null}, since resourceVersions of separate watches
 * are not comparable
 */
public record WatchStatus(String watch, Watched watched, boolean running, State state, Instant stateSince,
		boolean synced, @Nullable String lastResourceVersion, int objects, @Nullable Instant lastEventTime,
		@Nullable Duration silentFor, @Nullable Instant lastSyncTime, @Nullable Boolean streamingList,
		Map<WatchEvent.Type, Long> events, Map<RestartReason, Long> restarts, long relists, long consecutiveFailures,
		@Nullable Instant failingSince, @Nullable Duration failingFor, @Nullable Failure lastError, Timing lists,
		Timing syncs, int backlog, long listenerFailures, long indexFailures, @Nullable IndexFailure lastIndexFailure,
		List<UnbindableObject> unbindable, Map<String, WatchStatus> namespaces) {

	/**
	 * Makes a snapshot; the maps and the list are copied.
	 */
	public WatchStatus {
		events = enumMap(WatchEvent.Type.class, events);
		restarts = enumMap(RestartReason.class, restarts);
		unbindable = List.copyOf(unbindable);
		namespaces = Collections.unmodifiableMap(new LinkedHashMap<>(namespaces));
	}

	/** An unmodifiable copy that iterates in the enum's order. */
	private static <K extends Enum<K>> Map<K, Long> enumMap(Class<K> type, Map<K, Long> map) {
		EnumMap<K, Long> copy = new EnumMap<>(type);
		copy.putAll(map);
		return Collections.unmodifiableMap(copy);
	}

	/**
	 * All restarts, whatever the reason.
	 * @return the count
	 */
	public long totalRestarts() {
		return this.restarts.values().stream().mapToLong(Long::longValue).sum();
	}

	/**
	 * Restarts for one reason.
	 * @param reason the reason
	 * @return the count, 0 when it never happened
	 */
	public long restarts(RestartReason reason) {
		return this.restarts.getOrDefault(reason, 0L);
	}

	/**
	 * Events received of one type.
	 * @param type the type
	 * @return the count
	 */
	public long events(WatchEvent.Type type) {
		return this.events.getOrDefault(type, 0L);
	}

	/**
	 * Where a watch is in its life. Every state is reached: {@code STARTING} before the
	 * first list, {@code SYNCING} while listing, {@code WATCHING} once synced,
	 * {@code BACKOFF} between failed attempts, {@code FAILED} after an {@link Error} on
	 * the watch's thread, {@code STOPPED} after a stop.
	 */
	public enum State {

		/** Not started yet, or starting. */
		STARTING,
		/** Listing (or streaming the initial events) to fill or refill the cache. */
		SYNCING,
		/** Synced and watching for changes. */
		WATCHING,
		/** Waiting before trying again after a failure. */
		BACKOFF,
		/**
		 * Its reading thread failed with an {@link Error}: retrying with backoff, and
		 * FAILED until a resync succeeds (or for good, if the thread itself is gone).
		 */
		FAILED,
		/** Stopped. */
		STOPPED

	}

	/**
	 * Why a watch was restarted; {@link #tag()} is the value of the {@code reason} tag of
	 * the {@code listwatch.restarts} meter and the key in health details.
	 */
	public enum RestartReason {

		/**
		 * The stream delivered nothing, not even a bookmark, for the idle timeout:
		 * replaced.
		 */
		IDLE,
		/** The server ended the stream (its timeout): resumed. */
		ENDED,
		/** The cache or what feeds listeners failed: resynced. */
		HANDLER,
		/** The resourceVersion expired (410 Gone): relisted. */
		EXPIRED,
		/** The connection failed or was cut. */
		DISCONNECTED,
		/** The server sent what could not be decoded. */
		BAD_DATA,
		/** The server answered 429. */
		THROTTLED,
		/** The server answered 401. */
		UNAUTHORIZED,
		/** The server answered 403. */
		FORBIDDEN,
		/** The credentials could not be obtained (a token file, an exec plugin). */
		CREDENTIALS,
		/** The server answered 5xx. */
		SERVER_ERROR,
		/** Any other failure. */
		ERROR,
		/** The watch's thread failed with an {@link Error}. */
		FATAL;

		/**
		 * The reason in lower case with dashes, for example {@code bad-data}.
		 * @return the tag value
		 */
		public String tag() {
			return name().toLowerCase(Locale.ROOT).replace('_', '-');
		}

	}

	/**
	 * What a watch lists and watches.
	 *
	 * @param resource the resource (its plural may be resolved through discovery after
	 * start)
	 * @param labelSelector the label selector, or {@code null}
	 * @param fieldSelector the field selector, or {@code null}
	 * @param type the name of the Java type its objects are bound to
	 * @param indexNames the index names of its cache
	 * @param idleTimeout how long a stream may deliver nothing before it is replaced
	 * @param resyncPeriod how often the cache is delivered again to listeners, or
	 * {@code null} for never
	 * @param autoStartup whether the application context starts the watch (else the
	 * application does)
	 * @param namespaces the namespaces of a namespace set, in the declared order, or
	 * empty when the watch covers one namespace or all (then {@code resource} names it);
	 * for a namespace set the resource's namespace is {@code null}
	 */
	public record Watched(Resource resource, @Nullable String labelSelector, @Nullable String fieldSelector,
			String type, List<String> indexNames, Duration idleTimeout, @Nullable Duration resyncPeriod,
			boolean autoStartup, List<String> namespaces) {

		/**
		 * Makes a description; the lists are copied.
		 */
		public Watched {
			indexNames = List.copyOf(indexNames);
			namespaces = List.copyOf(namespaces);
		}

	}

	/**
	 * A failure: its reason and message (which never hold secrets) and HTTP code.
	 *
	 * @param reason the reason, for example {@code Forbidden} or {@code CONNECTION}
	 * @param message the message
	 * @param code the HTTP code, 0 when none
	 */
	public record Failure(String reason, @Nullable String message, int code) {
	}

	/**
	 * A user's index function that failed for an object: the object was cached without
	 * values in that index.
	 *
	 * @param index the index name
	 * @param key the object's key
	 * @param error the class name of what was thrown (never its message, which may hold
	 * values)
	 */
	public record IndexFailure(String index, String key, String error) {
	}

	/**
	 * How often something was done and how long it took in total.
	 *
	 * @param count how often
	 * @param total the total time
	 */
	public record Timing(long count, Duration total) {

		/** Nothing done yet. */
		public static final Timing NONE = new Timing(0, Duration.ZERO);

	}

}
