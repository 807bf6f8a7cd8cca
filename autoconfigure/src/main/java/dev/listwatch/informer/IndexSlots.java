package dev.listwatch.informer;

import java.util.Arrays;
import java.util.Collection;

import org.jspecify.annotations.Nullable;

/**
 * What a cached object is filed under in the user indexes of a {@link Store}, the one
 * place that knows how it is held: the other classes read and build it through these
 * methods only.
 * <p>
 * A <em>slot</em> is what an object is filed under in one user index:
 * <ul>
 * <li>{@code null}: no value;</li>
 * <li>a {@code String}: one value;</li>
 * <li>a {@code String[]}: two or more distinct values;</li>
 * <li>the {@linkplain #failed() failed} marker: no value, because the index function
 * failed (a relist calls it again).</li>
 * </ul>
 * What an object is <em>filed</em> under is one reference for all user indexes, kept in
 * the object's entry: with one user index, that index's slot; with several, an
 * {@code Object[]} of slots (one per user index, in order), or {@code null} when no slot
 * holds anything. The entry's field costs nothing with compressed pointers (an entry is
 * 24 bytes with it or without it), and the common cases add no object per entry: none for
 * no value or one value in a single index. Because a {@code String[]} is also an
 * {@code Object[]}, reading what was filed takes the number of user indexes.
 * <p>
 * Indexes are numbered from {@code 1}, as in the store, whose index {@code 0} is the
 * built-in namespace index. Nothing here allocates but {@link #of} and {@link #with},
 * which build what they return.
 */
final class IndexSlots {

	/** The slot of an index whose function failed: no value, retried by a relist. */
	private static final Object FAILED = new Object();

	private IndexSlots() {
	}

	// ---------------------------------------------------------------- one slot

	/**
	 * The slot of the values an index function returned: duplicates dropped, the order
	 * kept.
	 * @param values the values, or {@code null} for none
	 * @return {@code null} for no value, a value, distinct values, or the
	 * {@linkplain #failed() failed} marker when an element is {@code null} (for the
	 * caller to record as a failure)
	 */
	static @Nullable Object of(@Nullable Collection<String> values) {
		if (values == null || values.isEmpty()) {
			return null;
		}
		String[] distinct = new String[values.size()];
		int count = 0;
		for (String value : values) {
			if (value == null) {
				return FAILED;
			}
			if (!contains(distinct, count, value)) {
				distinct[count++] = value;
			}
		}
		if (count <= 1) {
			return (count == 1) ? distinct[0] : null;
		}
		return (count == distinct.length) ? distinct : Arrays.copyOf(distinct, count);
	}

	/**
	 * The slot of an index whose function failed.
	 * @return the failed marker
	 */
	static Object failed() {
		return FAILED;
	}

	/**
	 * Whether a slot is the failed marker.
	 * @param slot a slot
	 * @return {@code true} if the index function failed
	 */
	static boolean isFailed(@Nullable Object slot) {
		return slot == FAILED;
	}

	/**
	 * How many values a slot holds.
	 * @param slot a slot
	 * @return {@code 0} for none (and for the failed marker), else the count
	 */
	static int size(@Nullable Object slot) {
		if (slot instanceof String) {
			return 1;
		}
		return (slot instanceof String[] values) ? values.length : 0;
	}

	/**
	 * One value of a slot.
	 * @param slot a slot holding values
	 * @param i the position, from {@code 0} to {@link #size} excluded
	 * @return the value
	 */
	static String value(Object slot, int i) {
		return (slot instanceof String single) ? single : ((String[]) slot)[i];
	}

	/**
	 * Whether a slot holds a value.
	 * @param slot a slot
	 * @param value the value
	 * @return {@code true} if the value is one of the slot's
	 */
	static boolean contains(@Nullable Object slot, String value) {
		if (slot instanceof String single) {
			return single.equals(value);
		}
		return (slot instanceof String[] values) && contains(values, values.length, value);
	}

	private static boolean contains(String[] values, int count, String value) {
		for (int i = 0; i < count; i++) {
			if (values[i].equals(value)) {
				return true;
			}
		}
		return false;
	}

	// ---------------------------------------------------------------- what an object is
	// filed under

	/**
	 * What an object is filed under once one more index's slot is known. Start from
	 * {@code null} and add the slots in any order; an {@code Object[]} is made only for a
	 * slot that holds something.
	 * @param filed what is filed so far ({@code null} at first)
	 * @param index the index, from {@code 1} to {@code userIndexes}
	 * @param userIndexes the number of user indexes
	 * @param slot the index's slot
	 * @return what is filed with the slot
	 */
	static @Nullable Object with(@Nullable Object filed, int index, int userIndexes, @Nullable Object slot) {
		if (userIndexes == 1) {
			return slot;
		}
		if (slot == null) {
			return filed;
		}
		Object[] slots = (filed != null) ? (Object[]) filed : new Object[userIndexes];
		slots[index - 1] = slot;
		return slots;
	}

	/**
	 * The slot of one user index in what an object is filed under.
	 * @param filed what the object is filed under
	 * @param index the index, from {@code 1} to {@code userIndexes}
	 * @param userIndexes the number of user indexes
	 * @return the slot
	 */
	static @Nullable Object slot(@Nullable Object filed, int index, int userIndexes) {
		if (filed == null || userIndexes == 1) {
			return filed;
		}
		return ((Object[]) filed)[index - 1];
	}

	/**
	 * Whether the function of one of the user indexes failed for an object.
	 * @param filed what the object is filed under
	 * @param userIndexes the number of user indexes
	 * @return {@code true} if a slot is the failed marker
	 */
	static boolean hasFailure(@Nullable Object filed, int userIndexes) {
		for (int i = 1; i <= userIndexes && filed != null; i++) {
			if (isFailed(slot(filed, i, userIndexes))) {
				return true;
			}
		}
		return false;
	}

}
