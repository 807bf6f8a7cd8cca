package dev.listwatch.informer;

import java.time.Duration;

/**
 * How a {@link Reflector} lists and watches.
 *
 * @param labelSelector the label selector of every list and watch, or {@code null}
 * @param fieldSelector the field selector of every list and watch, or {@code null}
 * @param pageSize the page size of lists ({@code limit}), or {@code null} for one page
 * @param streamingList whether to try a streaming list ({@code sendInitialEvents}) first, falling
 * back to list + watch where the server does not serve it
 * @param minWatchTimeout the shortest server-side watch timeout; each watch picks one at random
 * between this and {@code maxWatchTimeout}
 * @param maxWatchTimeout the longest server-side watch timeout
 * @param idleTimeout how long a watch may deliver nothing (not even a bookmark) before it is taken
 * for dead and replaced
 * @param backoff the backoff between failed attempts
 */
public record ReflectorOptions(String labelSelector, String fieldSelector, Long pageSize, boolean streamingList,
		Duration minWatchTimeout, Duration maxWatchTimeout, Duration idleTimeout, Backoff.Settings backoff) {

	/**
	 * client-go's defaults: pages of 500, watches of 5 to 10 minutes, its backoff, streaming lists
	 * where served, and a watch silent for 90 seconds (the API server sends a bookmark about every
	 * minute) taken for dead.
	 * @return the defaults
	 */
	public static ReflectorOptions defaults() {
		return new ReflectorOptions(null, null, 500L, true, Duration.ofMinutes(5), Duration.ofMinutes(10),
				Duration.ofSeconds(90), Backoff.Settings.CLIENT_GO);
	}

}
