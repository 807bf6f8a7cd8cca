package dev.listwatch.informer;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * One index of a {@link Store}: the keys filed under each value, kept apart from the
 * store's objects as client-go keeps {@code storeIndex} apart from {@code threadSafeMap}.
 * A key is filed under a value at most once; a value under which no key is filed is not
 * kept.
 * <p>
 * A value holds its key as the {@code String} itself while it has one (most values of
 * most indexes name one object: a unique label, the namespace of one object), and a
 * {@code HashSet<String>} of its keys from the second on: no set for a single key, the
 * key instance the store's map holds rather than a copy. That representation stays inside
 * this class.
 * <p>
 * Not thread-safe: the store changes an index only under its write lock (or before it
 * publishes the index) and reads it under its read lock. The operations allocate nothing
 * but what they keep (a set when a value gets its second key) or return (the list of a
 * read).
 */
final class StoreIndex {

	/**
	 * Value -> its one key ({@code String}) or its keys ({@code HashSet<String>}, two or
	 * more).
	 */
	private final HashMap<String, Object> keys = new HashMap<>();

	/**
	 * Files a key under a value; nothing if it is filed there already.
	 * @param value the value
	 * @param key the key
	 */
	@SuppressWarnings("unchecked")
	void file(String value, String key) {
		Object current = this.keys.get(value);
		if (current == null) {
			this.keys.put(value, key);
		}
		else if (current instanceof String single) {
			if (!single.equals(key)) {
				HashSet<String> keys = new HashSet<>(4);
				keys.add(single);
				keys.add(key);
				this.keys.put(value, keys);
			}
		}
		else {
			((HashSet<String>) current).add(key);
		}
	}

	/**
	 * Unfiles a key from a value; nothing if it is not filed there. The value goes when
	 * its last key does.
	 * @param value the value
	 * @param key the key
	 */
	@SuppressWarnings("unchecked")
	void unfile(String value, String key) {
		Object current = this.keys.get(value);
		if (current instanceof String single) {
			if (single.equals(key)) {
				this.keys.remove(value);
			}
		}
		else if (current != null) {
			HashSet<String> keys = (HashSet<String>) current;
			keys.remove(key);
			if (keys.size() == 1) {
				this.keys.put(value, keys.iterator().next());
			}
			else if (keys.isEmpty()) {
				this.keys.remove(value);
			}
		}
	}

	/**
	 * Files a key under each value of a slot (see {@link IndexSlots}).
	 * @param slot the slot
	 * @param key the key
	 */
	void fileSlot(@Nullable Object slot, String key) {
		if (slot == null) {
			return;
		}
		for (int i = 0, n = IndexSlots.size(slot); i < n; i++) {
			file(IndexSlots.value(slot, i), key);
		}
	}

	/**
	 * Unfiles a key from each value of a slot.
	 * @param slot the slot
	 * @param key the key
	 */
	void unfileSlot(@Nullable Object slot, String key) {
		if (slot == null) {
			return;
		}
		for (int i = 0, n = IndexSlots.size(slot); i < n; i++) {
			unfile(IndexSlots.value(slot, i), key);
		}
	}

	/**
	 * Moves a key from the values of one slot to those of another: out of each value only
	 * the first holds, then into each value only the second holds. A value both hold is
	 * not touched.
	 * @param before the slot the key is filed under
	 * @param after the slot to file it under
	 * @param key the key
	 */
	void refile(@Nullable Object before, @Nullable Object after, String key) {
		if (before != null) {
			for (int i = 0, n = IndexSlots.size(before); i < n; i++) {
				String value = IndexSlots.value(before, i);
				if (!IndexSlots.contains(after, value)) {
					unfile(value, key);
				}
			}
		}
		if (after != null) {
			for (int i = 0, n = IndexSlots.size(after); i < n; i++) {
				String value = IndexSlots.value(after, i);
				if (!IndexSlots.contains(before, value)) {
					file(value, key);
				}
			}
		}
	}

	/**
	 * The keys filed under a value, for a writer (the caller holds the store's writer
	 * mutex, so the index does not change meanwhile).
	 * @param value the value
	 * @return the keys, a view not to be changed; empty for none
	 */
	@SuppressWarnings("unchecked")
	Collection<String> keys(String value) {
		Object current = this.keys.get(value);
		if (current == null) {
			return List.of();
		}
		return (current instanceof String single) ? List.of(single) : (HashSet<String>) current;
	}

	/**
	 * How many keys are filed under a value.
	 * @param value the value
	 * @return the count, {@code 0} for a value not kept
	 */
	int count(String value) {
		Object current = this.keys.get(value);
		return (current == null) ? 0 : (current instanceof String) ? 1 : ((HashSet<?>) current).size();
	}

	/**
	 * The values with keys filed under them.
	 * @return a snapshot of the values
	 */
	Set<String> values() {
		return Set.copyOf(this.keys.keySet());
	}

	/**
	 * Reads the objects filed under a value: each key through a reader that looks it up,
	 * skipping the keys it returns {@code null} for. The reader takes its two arguments
	 * from the caller, so that it can be a constant (a method reference that captures
	 * nothing) and a read allocates its list only.
	 * @param <C> the type of the reader's first argument (the store's content)
	 * @param <S> the type of the reader's second argument (the selection)
	 * @param <R> the type of the objects read
	 * @param value the value
	 * @param content the reader's first argument
	 * @param selection the reader's second argument
	 * @param reader what looks a key up
	 * @return the objects, unmodifiable, in no particular order
	 */
	@SuppressWarnings("unchecked")
	<C, S, R> List<R> read(String value, C content, S selection, KeyReader<C, S, R> reader) {
		Object current = this.keys.get(value);
		if (current == null) {
			return List.of();
		}
		if (current instanceof String single) {
			R object = reader.read(content, selection, single);
			return (object != null) ? List.of(object) : List.of();
		}
		HashSet<String> keys = (HashSet<String>) current;
		List<R> objects = new ArrayList<>(keys.size());
		for (String key : keys) {
			R object = reader.read(content, selection, key);
			if (object != null) {
				objects.add(object);
			}
		}
		return objects.isEmpty() ? List.of() : Collections.unmodifiableList(objects);
	}

	/**
	 * Looks up what a key filed in an index names, for {@link StoreIndex#read}.
	 *
	 * @param <C> the type of the first argument
	 * @param <S> the type of the second argument
	 * @param <R> the type of the result
	 */
	@FunctionalInterface
	interface KeyReader<C, S, R> {

		/**
		 * Looks a key up.
		 * @param content the first argument given to {@link StoreIndex#read}
		 * @param selection the second argument given to {@link StoreIndex#read}
		 * @param key a key filed under the value read
		 * @return the object, or {@code null} to skip the key
		 */
		@Nullable R read(C content, S selection, String key);

	}

}
