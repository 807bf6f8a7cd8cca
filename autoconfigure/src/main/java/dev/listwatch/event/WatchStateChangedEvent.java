package dev.listwatch.event;

import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStatus.RestartReason;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEvent;

/**
 * A watch changed state in a way an application may react to without polling health: it
 * synced, began failing, recovered, failed for good, or stopped. Published once per
 * transition, never per retry: a watch that fails a hundred times in a row publishes one
 * {@link State#FAILING}, and then one {@link State#RECOVERED} (or {@link State#FAILED},
 * or {@link State#STOPPED}).
 * <p>
 * <b>Threads and order.</b> Published on the factory's dispatch threads, never on the
 * thread that reads the watch, one at a time and in the order of the transitions of its
 * watch, on a queue of their own: not ordered with the watch's {@link ResourceEvent}s (a
 * listener that needs the initial list published first listens to
 * {@link WatchSyncedEvent}). Unlike the resource events, state events are not held while
 * the watch is stopped: {@link State#STOPPED} is published before the informer's stop
 * completes (its stop callback runs after the listeners of this event returned).
 * <p>
 * <b>Never a secret.</b> {@link #lastError()} and {@link #status()} carry the messages of
 * {@link dev.listwatch.KubernetesApiException}, which name the request and the server's
 * answer, never a credential.
 * <p>
 * For a watch of a namespace set the states are those of the whole watch: it is failing
 * while one of its namespaces is, and synced once every namespace is.
 */
public final class WatchStateChangedEvent extends ApplicationEvent {

	private final String watch;

	private final @Nullable State previous;

	private final State state;

	private final @Nullable RestartReason reason;

	private final transient WatchStatus.@Nullable Failure lastError;

	private final transient WatchStatus status;

	/**
	 * Makes an event.
	 * @param source the informer
	 * @param watch the watch's name
	 * @param previous the state of the watch's previous state event, or {@code null} for
	 * its first
	 * @param state the state entered
	 * @param reason the reason of the failure behind it, or {@code null}
	 * @param lastError the failure behind it, or {@code null}
	 * @param status the watch's status at the transition
	 */
	public WatchStateChangedEvent(Object source, String watch, @Nullable State previous, State state,
			@Nullable RestartReason reason, WatchStatus.@Nullable Failure lastError, WatchStatus status) {
		super(source);
		this.watch = watch;
		this.previous = previous;
		this.state = state;
		this.reason = reason;
		this.lastError = lastError;
		this.status = status;
	}

	/**
	 * @return the name of the watch
	 */
	public String watch() {
		return this.watch;
	}

	/**
	 * @return the name of the watch, for SpEL conditions
	 */
	public String getWatch() {
		return this.watch;
	}

	/**
	 * The state of the watch's previous state event.
	 * @return the state, or {@code null} for the watch's first state event
	 */
	public @Nullable State previous() {
		return this.previous;
	}

	/**
	 * @return the state entered
	 */
	public State state() {
		return this.state;
	}

	/**
	 * @return the state entered, for SpEL conditions
	 */
	public State getState() {
		return this.state;
	}

	/**
	 * Why, in a low-cardinality form fit for a tag: the restart reason of the failure
	 * behind {@link State#FAILING} (the first failure), {@link State#RECOVERED} (the last
	 * failure before the progress) and {@link State#FAILED} (the refusal).
	 * @return the reason, or {@code null} for {@link State#SYNCED} and
	 * {@link State#STOPPED}
	 */
	public @Nullable RestartReason reason() {
		return this.reason;
	}

	/**
	 * The failure behind the transition, as {@link #reason()}: its reason, message and
	 * HTTP code, never a secret.
	 * @return the failure, or {@code null} for {@link State#SYNCED} and
	 * {@link State#STOPPED}
	 */
	public WatchStatus.@Nullable Failure lastError() {
		return this.lastError;
	}

	/**
	 * @return the watch's status snapshot, taken at the transition
	 */
	public WatchStatus status() {
		return this.status;
	}

	@Override
	public String toString() {
		return "WatchStateChangedEvent[" + this.watch + ", " + this.previous + " -> " + this.state
				+ ((this.reason != null) ? ", " + this.reason.tag() : "")
				+ ((this.lastError != null) ? ", " + this.lastError : "") + "]";
	}

	/**
	 * The transitions a watch announces, each once when it happens.
	 */
	public enum State {

		/**
		 * A sync completed and the whole watch is synced: its first list, and each list
		 * after it (a relist after 410 Gone, a resync after a failure of the handler or
		 * an {@link Error}, the list of each run of a leader-only watch). Not published
		 * for a start that resumes from the last resourceVersion without a list.
		 */
		SYNCED,

		/**
		 * The watch began failing: its first failure after progress (a failure to reach
		 * the server, a refusal, a stream that fails at once, an ERROR event; not a 410,
		 * nor the cut of a stream held open, nor a stream replaced for silence). Later
		 * failures without progress in between publish nothing.
		 */
		FAILING,

		/**
		 * The watch made progress after {@link #FAILING}: an event or bookmark arrived, a
		 * sync completed, a stream held open for a second, or a watch opened again after
		 * the server could not be reached. The progress rules are those of
		 * {@link WatchStatus}; a held stream is noticed within one watchdog period. A
		 * watch stopped while failing (or FAILED) and started again publishes it at its
		 * first progress.
		 */
		RECOVERED,

		/**
		 * The watch stopped after a refusal that retrying will not mend (401 after the
		 * credentials were refreshed, 403, 404 of the resource), under the policy
		 * {@code on-refusal: fail}: its thread ended and its state is
		 * {@link WatchStatus.State#FAILED} until the informer is stopped.
		 */
		FAILED,

		/** The informer stopped (its threads ended). */
		STOPPED

	}

}
