package dev.listwatch.informer;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link Reflector} logs when its loop goes on after a turn ({@link Restarts}): a
 * failure at WARN the first time in a row, then at DEBUG; a silent watch replaced, or a
 * stream held open and cut, at INFO the first time only, since a quiet resource behind a
 * proxy that closes idle connections does this all day; a relist at INFO. Not
 * thread-safe: the reflector's loop uses it alone.
 */
final class RestartLog {

	// the reflector's category: what it logs of a watch's loop stays under one name
	private static final Log logger = LogFactory.getLog("dev.listwatch.informer.Reflector");

	private final String name;

	private final Duration idleTimeout;

	/** How often a silent watch was replaced: logged at INFO once, then at DEBUG. */
	private int idleReplacements;

	/** How often a held stream was cut: logged at INFO once, then at DEBUG. */
	private int heldCuts;

	RestartLog(String name, Duration idleTimeout) {
		this.name = name;
		this.idleTimeout = idleTimeout;
	}

	/**
	 * Logs a restart as decided.
	 * @param restart the decision
	 * @param delay the backoff it waits out, or {@code null}
	 * @param resourceVersion the resourceVersion the watch goes on from
	 * @param consecutiveFailures the failures in a row so far, this one included
	 */
	void restarted(Restarts.Restart restart, @Nullable Duration delay, @Nullable String resourceVersion,
			long consecutiveFailures) {
		String error = (restart.error() != null) ? restart.error().getMessage() : "no error";
		switch (restart.what()) {
			case IDLE -> {
				String message = "Watch " + this.name + " delivered nothing for " + this.idleTimeout
						+ "; replacing it from resourceVersion " + resourceVersion;
				if (++this.idleReplacements == 1) {
					logger.info(message + " (a quiet resource, or a half-open connection)");
				}
				else {
					logger.debug(message);
				}
			}
			case CUT -> {
				String message = "Watch " + this.name + ": its stream was cut after it had been open without an "
						+ "error; resuming from resourceVersion " + resourceVersion + " (" + error + ")";
				if (++this.heldCuts == 1) {
					logger.info(message + "; a proxy or load balancer that closes idle connections does this to "
							+ "quiet watches, later ones are logged at DEBUG");
				}
				else {
					logger.debug(message);
				}
			}
			case GONE -> logger.info("Watch " + this.name + ": resourceVersion " + resourceVersion
					+ " is too old; relisting (" + error + ")");
			case FAILED, FAILED_AGAIN -> {
				if (restart.what() == Restarts.What.FAILED_AGAIN) {
					logger.warn("Watch " + this.name + " failed twice in a row after resourceVersion " + resourceVersion
							+ "; relisting (" + error + ")");
				}
				String message = "Watch " + this.name + " failed, retrying in "
						+ ((delay != null) ? delay.toMillis() : 0) + " ms: " + error;
				if (consecutiveFailures <= 1) {
					logger.warn(message);
				}
				else {
					logger.debug(message);
				}
			}
			case REFUSED -> logger.error("Watch " + this.name + " was refused, which retrying will not mend; it "
					+ "stops, FAILED (on-refusal: fail): " + error);
			default -> {
				// ENDED is routine; HANDLER and FATAL are logged where they are caught,
				// with their cause
			}
		}
	}

}
