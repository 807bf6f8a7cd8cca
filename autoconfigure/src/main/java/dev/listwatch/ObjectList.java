package dev.listwatch;

import java.util.List;

/**
 * One page of a LIST.
 *
 * @param <T> the Java type of the objects
 * @param items the objects of this page, in the server's order
 * @param metas the metadata of each item, index for index
 * @param resourceVersion the list's resourceVersion: where a watch that follows it starts
 * @param continueToken the token of the next page, or {@code null} for the last page
 * @param remainingItemCount the server's estimate of the items left, or {@code null}
 * @param unbindable the items of this page that could not be held (they do not bind to the Java
 * type, or are larger than the size limit): they exist on the server, but are not in
 * {@code items}
 */
public record ObjectList<T>(List<T> items, List<ObjectMeta> metas, String resourceVersion, String continueToken,
		Long remainingItemCount, List<UnbindableObject> unbindable) {

	/**
	 * Makes a page; a {@code null} {@code unbindable} is taken as none.
	 */
	public ObjectList {
		unbindable = (unbindable != null) ? unbindable : List.of();
	}

	/**
	 * A page whose items could all be held.
	 * @param items the objects of this page, in the server's order
	 * @param metas the metadata of each item, index for index
	 * @param resourceVersion the list's resourceVersion
	 * @param continueToken the token of the next page, or {@code null} for the last page
	 * @param remainingItemCount the server's estimate of the items left, or {@code null}
	 */
	public ObjectList(List<T> items, List<ObjectMeta> metas, String resourceVersion, String continueToken,
			Long remainingItemCount) {
		this(items, metas, resourceVersion, continueToken, remainingItemCount, List.of());
	}

	/**
	 * Whether more pages follow.
	 * @return {@code true} when there is a continue token
	 */
	public boolean hasMore() {
		return this.continueToken != null && !this.continueToken.isEmpty();
	}

}
