package dev.listwatch;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One page of a LIST.
 *
 * @param <T> the Java type of the objects
 * @param items the objects of this page with their metadata, in the server's order
 * @param resourceVersion the list's resourceVersion: where a watch that follows it starts
 * @param continueToken the token of the next page, or {@code null} for the last page
 * @param remainingItemCount the server's estimate of the items left, or {@code null}
 * @param unbindable the items of this page that could not be held (they do not bind to
 * the Java type, or are larger than the size limit): they exist on the server, but are
 * not in {@code items}
 */
public record ObjectList<T>(List<Item<T>> items, String resourceVersion, @Nullable String continueToken,
		@Nullable Long remainingItemCount, List<UnbindableObject> unbindable) {

	/**
	 * Makes a page; a {@code null} {@code unbindable} is taken as none.
	 * @param items the objects of this page with their metadata, in the server's order
	 * @param resourceVersion the list's resourceVersion
	 * @param continueToken the token of the next page, or {@code null} for the last page
	 * @param remainingItemCount the server's estimate of the items left, or {@code null}
	 * @param unbindable the items of this page that could not be held, or {@code null}
	 * for none
	 */
	public ObjectList(List<Item<T>> items, String resourceVersion, @Nullable String continueToken,
			@Nullable Long remainingItemCount, @Nullable List<UnbindableObject> unbindable) {
		this.items = items;
		this.resourceVersion = resourceVersion;
		this.continueToken = continueToken;
		this.remainingItemCount = remainingItemCount;
		this.unbindable = (unbindable != null) ? unbindable : List.of();
	}

	/**
	 * A page whose items could all be held.
	 * @param items the objects of this page with their metadata, in the server's order
	 * @param resourceVersion the list's resourceVersion
	 * @param continueToken the token of the next page, or {@code null} for the last page
	 * @param remainingItemCount the server's estimate of the items left, or {@code null}
	 */
	public ObjectList(List<Item<T>> items, String resourceVersion, @Nullable String continueToken,
			@Nullable Long remainingItemCount) {
		this(items, resourceVersion, continueToken, remainingItemCount, List.of());
	}

	/**
	 * The objects of this page, without their metadata, in the server's order.
	 * @return the objects, a new list on each call
	 */
	public List<T> objects() {
		List<T> objects = new ArrayList<>(this.items.size());
		for (Item<T> item : this.items) {
			objects.add(item.object());
		}
		return objects;
	}

	/**
	 * Whether more pages follow.
	 * @return {@code true} when there is a continue token
	 */
	public boolean hasMore() {
		return this.continueToken != null && !this.continueToken.isEmpty();
	}

	/**
	 * An object with its metadata, as the decoder read them: the one pair that travels
	 * from the decoder through the reflector into the cache.
	 *
	 * @param <T> the Java type of the object
	 * @param meta its metadata (key, resourceVersion, labels)
	 * @param object the object
	 */
	public record Item<T>(ObjectMeta meta, T object) {

		/**
		 * Makes an item.
		 * @throws NullPointerException when either part is {@code null}
		 */
		public Item {
			Objects.requireNonNull(meta, "meta must not be null");
			Objects.requireNonNull(object, "object must not be null");
		}

	}

}
