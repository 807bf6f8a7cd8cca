package dev.listwatch;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Options of one LIST or WATCH request, named as the Kubernetes API names its query
 * parameters.
 * <p>
 * A {@code null} field is left out of the request. Instances are immutable; the
 * {@code with...} methods return a copy.
 *
 * @param labelSelector {@code labelSelector}, for example {@code app=web,tier!=db}
 * @param fieldSelector {@code fieldSelector}, for example {@code metadata.name!=x}
 * @param limit {@code limit}: the page size of a list
 * @param continueToken {@code continue}: the token of the page to fetch
 * @param resourceVersion {@code resourceVersion}: for a list, how fresh ({@code "0"} lets
 * the API server answer from its watch cache); for a watch, where to start
 * @param resourceVersionMatch {@code resourceVersionMatch}: {@code NotOlderThan} or
 * {@code Exact}
 * @param timeout {@code timeoutSeconds}: how long the server keeps a watch open
 * @param allowWatchBookmarks {@code allowWatchBookmarks}
 * @param sendInitialEvents {@code sendInitialEvents}: a streaming list, where the server
 * serves it
 */
public record ListOptions(@Nullable String labelSelector, @Nullable String fieldSelector, @Nullable Long limit,
		@Nullable String continueToken, @Nullable String resourceVersion, @Nullable String resourceVersionMatch,
		@Nullable Duration timeout, @Nullable Boolean allowWatchBookmarks, @Nullable Boolean sendInitialEvents) {

	private static final ListOptions NONE = new ListOptions(null, null, null, null, null, null, null, null, null);

	/** {@code resourceVersionMatch=NotOlderThan}. */
	public static final String NOT_OLDER_THAN = "NotOlderThan";

	/** {@code resourceVersionMatch=Exact}. */
	public static final String EXACT = "Exact";

	/**
	 * Options that set nothing: the newest state, no selector, no paging.
	 * @return the empty options
	 */
	public static ListOptions none() {
		return NONE;
	}

	/**
	 * A copy with another {@code labelSelector}; the receiver is unchanged.
	 * @param labelSelector the label selector, or {@code null} for none
	 * @return the copy
	 */
	public ListOptions withLabelSelector(@Nullable String labelSelector) {
		return new ListOptions(labelSelector, this.fieldSelector, this.limit, this.continueToken, this.resourceVersion,
				this.resourceVersionMatch, this.timeout, this.allowWatchBookmarks, this.sendInitialEvents);
	}

	/**
	 * A copy with another {@code fieldSelector}; the receiver is unchanged.
	 * @param fieldSelector the field selector, or {@code null} for none
	 * @return the copy
	 */
	public ListOptions withFieldSelector(@Nullable String fieldSelector) {
		return new ListOptions(this.labelSelector, fieldSelector, this.limit, this.continueToken, this.resourceVersion,
				this.resourceVersionMatch, this.timeout, this.allowWatchBookmarks, this.sendInitialEvents);
	}

	/**
	 * A copy with another {@code limit}; the receiver is unchanged.
	 * @param limit the page size, or {@code null} for one page
	 * @return the copy
	 */
	public ListOptions withLimit(@Nullable Long limit) {
		return new ListOptions(this.labelSelector, this.fieldSelector, limit, this.continueToken, this.resourceVersion,
				this.resourceVersionMatch, this.timeout, this.allowWatchBookmarks, this.sendInitialEvents);
	}

	/**
	 * A copy with another {@code continueToken}; the receiver is unchanged.
	 * @param continueToken the continue token of the previous page, or {@code null} for
	 * the first
	 * @return the copy
	 */
	public ListOptions withContinueToken(@Nullable String continueToken) {
		return new ListOptions(this.labelSelector, this.fieldSelector, this.limit, continueToken, this.resourceVersion,
				this.resourceVersionMatch, this.timeout, this.allowWatchBookmarks, this.sendInitialEvents);
	}

	/**
	 * A copy with another {@code resourceVersion}; the receiver is unchanged.
	 * @param resourceVersion the resourceVersion, or {@code null} for the newest state
	 * @return the copy
	 */
	public ListOptions withResourceVersion(@Nullable String resourceVersion) {
		return new ListOptions(this.labelSelector, this.fieldSelector, this.limit, this.continueToken, resourceVersion,
				this.resourceVersionMatch, this.timeout, this.allowWatchBookmarks, this.sendInitialEvents);
	}

	/**
	 * A copy with another {@code resourceVersionMatch}; the receiver is unchanged.
	 * @param resourceVersionMatch {@link #NOT_OLDER_THAN}, {@link #EXACT} or {@code null}
	 * @return the copy
	 */
	public ListOptions withResourceVersionMatch(@Nullable String resourceVersionMatch) {
		return new ListOptions(this.labelSelector, this.fieldSelector, this.limit, this.continueToken,
				this.resourceVersion, resourceVersionMatch, this.timeout, this.allowWatchBookmarks,
				this.sendInitialEvents);
	}

	/**
	 * A copy with another {@code timeout}; the receiver is unchanged.
	 * @param timeout the server-side watch timeout (whole seconds are sent), or
	 * {@code null}
	 * @return the copy
	 */
	public ListOptions withTimeout(@Nullable Duration timeout) {
		return new ListOptions(this.labelSelector, this.fieldSelector, this.limit, this.continueToken,
				this.resourceVersion, this.resourceVersionMatch, timeout, this.allowWatchBookmarks,
				this.sendInitialEvents);
	}

	/**
	 * A copy with another {@code allowWatchBookmarks}; the receiver is unchanged.
	 * @param allowWatchBookmarks whether the server may send bookmarks, or {@code null}
	 * @return the copy
	 */
	public ListOptions withAllowWatchBookmarks(@Nullable Boolean allowWatchBookmarks) {
		return new ListOptions(this.labelSelector, this.fieldSelector, this.limit, this.continueToken,
				this.resourceVersion, this.resourceVersionMatch, this.timeout, allowWatchBookmarks,
				this.sendInitialEvents);
	}

	/**
	 * A copy with another {@code sendInitialEvents}; the receiver is unchanged.
	 * @param sendInitialEvents whether a watch starts with the current state as ADDED
	 * events, or {@code null}
	 * @return the copy
	 */
	public ListOptions withSendInitialEvents(@Nullable Boolean sendInitialEvents) {
		return new ListOptions(this.labelSelector, this.fieldSelector, this.limit, this.continueToken,
				this.resourceVersion, this.resourceVersionMatch, this.timeout, this.allowWatchBookmarks,
				sendInitialEvents);
	}

}
