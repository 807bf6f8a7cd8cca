package dev.listwatch.informer;

import java.time.Duration;
import java.util.Locale;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.WatchStatus.RestartReason;
import org.jspecify.annotations.Nullable;

/**
 * Decides how a {@link Reflector} goes on after each turn of its loop, a watch that ended
 * or a failure: go on from the last resourceVersion (or retry the sync under way),
 * resync, or relist from scratch; at once or after the backoff; and what the turn tells
 * about the watch's health. The loop's one place for these rules, so that a test drives
 * them alone. The rules, after client-go's reflector:
 * <ul>
 * <li>a watch that ended by itself goes on at once; one that ended within
 * {@link #SHORT_WATCH} of its start backs off, and fails if it delivered nothing (a
 * server that answers, then ends every watch at once, must not become a tight loop, nor
 * pass for healthy);</li>
 * <li>a watch replaced for silence goes on at once: a quiet resource is not a
 * failure;</li>
 * <li>a stream cut after it was held open ({@link ReflectorStatus#HELD}) goes on at once
 * and the backoff starts over: a proxy that closes idle connections cuts every quiet
 * watch;</li>
 * <li>410 Gone, and the API server's 504 for a resourceVersion it has not reached, relist
 * from scratch: at once the first time, after the backoff when it repeats without a watch
 * between;</li>
 * <li>an event that cannot be decoded, or an ERROR event, on an open stream goes on from
 * the last resourceVersion once; the same failure again at the same resourceVersion
 * relists;</li>
 * <li>any other failure backs off ({@code Retry-After} honoured) and goes on; after a
 * connection broke on a watch that had been delivering, the backoff starts over;</li>
 * <li>a failure of the handler, or an {@link Error}, backs off and resyncs;</li>
 * <li>a refusal that retrying will not mend (a request answered 401, which persists after
 * the client refreshed its credentials, 403, or 404 of the resource) backs off and goes
 * on like any failure under {@link InformerOptions.OnRefusal#RETRY}, and ends the loop
 * for good ({@link Next#FAIL}) under {@link InformerOptions.OnRefusal#FAIL}.</li>
 * </ul>
 * Not thread-safe: the reflector's loop uses it alone.
 */
final class Restarts {

	/** A watch that ends sooner than this after it was opened ended "at once". */
	static final Duration SHORT_WATCH = Duration.ofSeconds(1);

	/** 410s (or too large resourceVersions) in a row, with no watch between. */
	private int gonesInARow;

	/** The resourceVersion a watch last failed to decode from, or {@code null}. */
	private @Nullable String undecodableAt;

	/** What a refusal that retrying will not mend does. */
	private final InformerOptions.OnRefusal onRefusal;

	/** Restarts that retry every refusal. */
	Restarts() {
		this(InformerOptions.OnRefusal.RETRY);
	}

	/**
	 * Restarts with a policy for refusals.
	 * @param onRefusal what a refusal that retrying will not mend does
	 */
	Restarts(InformerOptions.OnRefusal onRefusal) {
		this.onRefusal = onRefusal;
	}

	/**
	 * The watch ended without an error.
	 * @param turn how the turn went
	 * @param lasted how long the watch was open
	 * @param name the watch's name, for the failure's message
	 * @return how to go on
	 */
	Restart ended(Turn turn, Duration lasted, String name) {
		this.gonesInARow = 0;
		if (turn.idle()) {
			// not a failure in itself: the watch cache sends no bookmark for a resource
			// that has not changed since the API server started, so a healthy watch of a
			// quiet resource goes silent too. A half-open path shows when the replacement
			// cannot connect: that request is abandoned after the idle timeout, a failure
			// that health counts. It stayed open without an error: as far as failing
			// goes, that is the server answering
			return new Restart(What.IDLE, RestartReason.IDLE, Next.GO_ON, false, false, true, null, false, false);
		}
		if (lasted.compareTo(SHORT_WATCH) >= 0) {
			// held, then ended by the server (its timeout): progress, whatever the
			// resource's traffic
			return new Restart(What.ENDED, RestartReason.ENDED, Next.GO_ON, false, false, turn.held(), null, false,
					false);
		}
		// answered, then ended at once with nothing: not progress, whatever the status
		// says
		KubernetesApiException failure = turn.delivered() ? null : new KubernetesApiException(Kind.CONNECTION,
				"Watch " + name + ": the watch ended at once without an event", null);
		return new Restart(What.ENDED, RestartReason.ENDED, Next.GO_ON, true, false, turn.held(), failure,
				failure != null, true);
	}

	/**
	 * A request, or the watch's stream, failed.
	 * @param failure the failure
	 * @param turn how the turn went
	 * @return how to go on
	 */
	Restart failed(KubernetesApiException failure, Turn turn) {
		boolean afterConnect = turn.reading();
		if (afterConnect && turn.held() && failure.kind() == Kind.CONNECTION && !turn.syncing()) {
			// a cut after the stream was held: the way client-go's stream watcher takes
			// an unexpected EOF or a reset, the watch's end, not a failure; the server
			// answered and nothing was lost
			return new Restart(What.CUT, RestartReason.DISCONNECTED, Next.GO_ON, false, true, true, failure, false,
					true);
		}
		if (failure.isGone() || isResourceVersionTooLarge(failure)) {
			this.gonesInARow++;
			return new Restart(What.GONE, RestartReason.EXPIRED, Next.RELIST, this.gonesInARow > 1, false, false,
					failure, false, afterConnect);
		}
		if (this.onRefusal == InformerOptions.OnRefusal.FAIL && isRefusal(failure, turn)) {
			// retrying cannot mend it: the watch ends, FAILED
			return new Restart(What.REFUSED, reason(failure), Next.FAIL, false, false, false, failure, true, false);
		}
		Next next = Next.GO_ON;
		What what = What.FAILED;
		if (afterConnect && !turn.syncing() && (failure.kind() == Kind.DECODE || failure.status() != null)) {
			// an event it cannot decode, or an ERROR event other than 410, on an open
			// stream
			String at = turn.resourceVersion();
			if (at != null && at.equals(this.undecodableAt)) {
				// the same again: resuming cannot get past it, a fresh list can
				// (client-go relists after any such error)
				next = Next.RELIST;
				what = What.FAILED_AGAIN;
				this.undecodableAt = null;
			}
			else {
				this.undecodableAt = at;
			}
		}
		RestartReason reason = (turn.idle() && failure.kind() == Kind.CONNECTION) ? RestartReason.IDLE
				: reason(failure);
		// the watch had been delivering: the server is there, the connection broke
		// (client-go resumes at once then); the backoff starts over, so that a network
		// that cuts watches now and then is not answered with ever longer waits
		boolean resetBackoff = failure.kind() == Kind.CONNECTION && turn.delivered();
		return new Restart(what, reason, next, true, resetBackoff, false, failure, true, afterConnect);
	}

	/**
	 * The handler failed (the cache, or what feeds listeners): the cache must be
	 * resynced.
	 * @param failure the failure, as the status shows it
	 * @return how to go on
	 */
	Restart handlerFailed(KubernetesApiException failure) {
		// the server answered; only a completed resync ends this failure
		return new Restart(What.HANDLER, RestartReason.HANDLER, Next.RESYNC, true, false, false, failure, true, true);
	}

	/**
	 * An {@link Error} struck the loop (the reflector reports it).
	 * @return how to go on
	 */
	Restart fatal() {
		return new Restart(What.FATAL, RestartReason.FATAL, Next.RESYNC, true, false, false, null, false, false);
	}

	/** A sync completed: what failed to decode before it no longer counts. */
	void synced() {
		this.undecodableAt = null;
	}

	/**
	 * The API server's 504 for a resourceVersion it has not reached (a watch resumed
	 * against a restored etcd or another cluster): as client-go does, relist from
	 * scratch.
	 */
	private static boolean isResourceVersionTooLarge(KubernetesApiException ex) {
		String message = ex.getMessage();
		return message != null && message.toLowerCase(Locale.ROOT).contains("too large resource version");
	}

	/**
	 * A request answered with a refusal that retrying will not mend: 401 (the client has
	 * refreshed its credentials and sent the request once more already), 403, or 404 of
	 * the resource. Not an ERROR event on an open stream, which the server sent while it
	 * served the watch.
	 */
	static boolean isRefusal(KubernetesApiException failure, Turn turn) {
		if (turn.reading()) {
			return false;
		}
		return switch (failure.kind()) {
			case UNAUTHORIZED, FORBIDDEN, NOT_FOUND -> true;
			default -> false;
		};
	}

	private static RestartReason reason(KubernetesApiException ex) {
		return switch (ex.kind()) {
			case CONNECTION -> RestartReason.DISCONNECTED;
			case DECODE -> RestartReason.BAD_DATA;
			case TOO_MANY_REQUESTS -> RestartReason.THROTTLED;
			case UNAUTHORIZED -> RestartReason.UNAUTHORIZED;
			case FORBIDDEN -> RestartReason.FORBIDDEN;
			case CREDENTIALS -> RestartReason.CREDENTIALS;
			case SERVER_ERROR -> RestartReason.SERVER_ERROR;
			default -> RestartReason.ERROR;
		};
	}

	/**
	 * What the loop knew when the turn ended.
	 *
	 * @param syncing whether it was syncing (a list, or a streaming list, was under way
	 * or due)
	 * @param reading whether it was reading an open stream, after the server had answered
	 * @param held whether the last stream to end had been held open
	 * @param delivered whether the watch being read delivered an event (or bookmark)
	 * @param idle whether the watchdog closed a silent stream, or abandoned a request
	 * @param resourceVersion the resourceVersion it would go on from, or {@code null}
	 */
	record Turn(boolean syncing, boolean reading, boolean held, boolean delivered, boolean idle,
			@Nullable String resourceVersion) {

	}

	/** What happened, for the log. */
	enum What {

		/** The watch ended by itself. */
		ENDED,

		/** The watch was replaced for silence. */
		IDLE,

		/** A stream held open was cut. */
		CUT,

		/** The resourceVersion is too old (or too new): relist. */
		GONE,

		/** A request or stream failed. */
		FAILED,

		/** The same failure again at the same resourceVersion: relist. */
		FAILED_AGAIN,

		/** The handler failed. */
		HANDLER,

		/** An {@link Error} struck the loop. */
		FATAL,

		/** A refusal that retrying will not mend, under a policy that fails: the end. */
		REFUSED

	}

	/** Where the loop goes on. */
	enum Next {

		/**
		 * From the last resourceVersion, or with the sync under way when it had not
		 * completed.
		 */
		GO_ON,

		/** With a list no older than the cache. */
		RESYNC,

		/** With a fresh list (consistent, from scratch). */
		RELIST,

		/**
		 * Nowhere: the loop ends and the watch is FAILED (a refusal under
		 * {@link InformerOptions.OnRefusal#FAIL}).
		 */
		FAIL

	}

	/**
	 * How the loop goes on after a turn.
	 *
	 * @param what what happened, for the log
	 * @param reason the restart's reason, counted in the status
	 * @param next where it goes on
	 * @param backsOff whether it waits out the backoff first ({@code Retry-After} of a
	 * failure that counts honoured)
	 * @param resetsBackoff whether the backoff starts over first
	 * @param held whether the turn counts as progress: a stream held open that ended
	 * without a failure
	 * @param error what ended the turn, or {@code null} when the watch ended by itself
	 * @param failing whether the status counts the error as a failure (not a 410, nor a
	 * cut of a stream held open)
	 * @param afterConnect whether the error came after the server had answered
	 */
	record Restart(What what, RestartReason reason, Next next, boolean backsOff, boolean resetsBackoff, boolean held,
			@Nullable KubernetesApiException error, boolean failing, boolean afterConnect) {

	}

}
