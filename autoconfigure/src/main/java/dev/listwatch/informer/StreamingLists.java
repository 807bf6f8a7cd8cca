package dev.listwatch.informer;

import dev.listwatch.KubernetesApiException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Whether a reflector syncs with streaming lists (a watch with
 * {@code sendInitialEvents=true}), as client-go does where the API server serves them. A
 * server that refuses them (400, 422) is remembered at once: list + watch from then on.
 * Any other failure falls back to a paged list for that sync; after
 * {@link #FAILURES_TO_GIVE_UP} failures in a row after the server answered, the reflector
 * stops trying (a server that cannot be reached fails the list as well, so those failures
 * do not count). Not thread-safe: the reflector's loop uses it alone.
 */
final class StreamingLists {

	/**
	 * Streaming lists that fail in a row, after the server answered, before the watch
	 * stops trying them.
	 */
	static final int FAILURES_TO_GIVE_UP = 3;

	// the reflector's category: what it logs of a watch's syncs stays under one name
	private static final Log logger = LogFactory.getLog("dev.listwatch.informer.Reflector");

	private final String name;

	private boolean unsupported;

	private int failures;

	/**
	 * Starts trying streaming lists, or not.
	 * @param name the watch's name, for the log
	 * @param enabled whether the options ask for streaming lists
	 */
	StreamingLists(String name, boolean enabled) {
		this.name = name;
		this.unsupported = !enabled;
	}

	/** Whether the next sync tries a streaming list. */
	boolean tried() {
		return !this.unsupported;
	}

	/** A streaming list completed. */
	void completed() {
		this.failures = 0;
	}

	/** The API server refused a streaming list: list + watch from now on. */
	void refused(KubernetesApiException ex) {
		this.unsupported = true;
		logger.info("Watch " + this.name + ": the API server does not serve streaming lists (" + ex.getMessage()
				+ "); using list + watch");
	}

	/**
	 * A streaming list failed: making progress beats waiting for it, so this sync lists
	 * instead.
	 * @param ex the failure
	 * @param afterAnswer whether the server had answered (the stream was being read)
	 */
	void failed(RuntimeException ex, boolean afterAnswer) {
		String why = (ex instanceof KubernetesApiException api) ? api.getMessage() : ex.getClass().getName();
		boolean gone = ex instanceof KubernetesApiException api && api.isGone();
		if (afterAnswer && !gone && ++this.failures >= FAILURES_TO_GIVE_UP) {
			this.unsupported = true;
			logger.warn("Watch " + this.name + ": " + this.failures
					+ " streaming lists in a row did not complete; using list + watch from now on (" + why + ")");
		}
		else {
			logger.info("Watch " + this.name + ": the streaming list did not complete (" + why + "); listing instead");
		}
	}

}
