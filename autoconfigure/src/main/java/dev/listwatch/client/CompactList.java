package dev.listwatch.client;

import java.util.AbstractList;
import java.util.RandomAccess;

import org.jspecify.annotations.Nullable;

/**
 * A JSON array bound as an untyped {@code List<Object>} of a typed watch: one array.
 * Read-only: every mutator throws {@link UnsupportedOperationException} (objects in a
 * watch's cache are shared by all its readers). Equal to, and with the hash code and
 * string form of, any {@link java.util.List} with the same elements. Elements may be
 * {@code null}.
 */
final class CompactList extends AbstractList<@Nullable Object> implements RandomAccess {

	static final CompactList EMPTY = new CompactList(new Object[0]);

	private final @Nullable Object[] elements;

	private CompactList(@Nullable Object[] elements) {
		this.elements = elements;
	}

	/**
	 * A list of the first {@code size} elements.
	 * @param elements the elements; not kept (copied)
	 * @param size how many
	 * @return the list
	 */
	static CompactList of(@Nullable Object[] elements, int size) {
		return (size == 0) ? EMPTY : new CompactList(java.util.Arrays.copyOf(elements, size));
	}

	@Override
	public @Nullable Object get(int index) {
		return this.elements[index];
	}

	@Override
	public int size() {
		return this.elements.length;
	}

}
