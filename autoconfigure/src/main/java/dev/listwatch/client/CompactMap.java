package dev.listwatch.client;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * A JSON object bound as an untyped {@code Map<String, Object>} of a typed watch, held in one
 * array of keys and values in the order of the JSON (as Jackson's {@code LinkedHashMap}), with a
 * hash index when it is larger than a few entries. Read-only: every mutator throws
 * {@link UnsupportedOperationException} (objects in a watch's cache are shared by all its readers).
 * Equal to, and with the hash code and string form of, any {@link Map} with the same entries.
 * Values may be {@code null}; keys never are.
 */
final class CompactMap extends AbstractMap<String, Object> {

	static final CompactMap EMPTY = new CompactMap(new Object[0], 0);

	/** Up to this many entries, a key is looked up by a scan of the keys. */
	private static final int SCAN = 8;

	/** key 0, value 0, key 1, value 1, ... */
	private final Object[] entries;

	/** Open addressing, linear probing: the index of an entry plus one, 0 when empty; or null. */
	private final int @Nullable [] index;

	private CompactMap(Object[] entries, int size) {
		this.entries = entries;
		this.index = (size > SCAN) ? index(entries, size) : null;
	}

	/**
	 * A map of the first {@code 2 * size} elements of {@code keysAndValues} (key, value, key,
	 * value...); a key that appears again keeps its first position and takes the last value, as
	 * Jackson's {@code LinkedHashMap} does.
	 * @param keysAndValues the keys (non-null strings) and values; not kept (copied)
	 * @param size the number of pairs
	 * @return the map
	 */
	static CompactMap of(Object[] keysAndValues, int size) {
		if (size == 0) {
			return EMPTY;
		}
		Object[] entries = new Object[2 * size];
		int n = 0;
		for (int i = 0; i < size; i++) {
			Object key = keysAndValues[2 * i];
			int at = indexOf(entries, n, key);
			if (at >= 0) {
				entries[2 * at + 1] = keysAndValues[2 * i + 1];
			}
			else {
				entries[2 * n] = key;
				entries[2 * n + 1] = keysAndValues[2 * i + 1];
				n++;
			}
		}
		if (n < size) {
			entries = java.util.Arrays.copyOf(entries, 2 * n);
		}
		return new CompactMap(entries, n);
	}

	/** The index of a key among the first {@code n} entries (a scan; only while building). */
	private static int indexOf(Object[] entries, int n, Object key) {
		for (int i = 0; i < n; i++) {
			Object k = entries[2 * i];
			if (k == key || k.equals(key)) {
				return i;
			}
		}
		return -1;
	}

	private static int[] index(Object[] entries, int size) {
		int[] index = new int[Integer.highestOneBit(size * 2 - 1) << 1];
		int mask = index.length - 1;
		for (int i = 0; i < size; i++) {
			int slot = spread(entries[2 * i].hashCode()) & mask;
			while (index[slot] != 0) {
				slot = (slot + 1) & mask;
			}
			index[slot] = i + 1;
		}
		return index;
	}

	private static int spread(int hash) {
		return hash ^ (hash >>> 16);
	}

	private int find(@Nullable Object key) {
		if (key == null) {
			return -1;
		}
		int size = this.entries.length / 2;
		int[] index = this.index;
		if (index == null) {
			for (int i = 0; i < size; i++) {
				Object k = this.entries[2 * i];
				if (k == key || k.equals(key)) {
					return i;
				}
			}
			return -1;
		}
		int mask = index.length - 1;
		for (int slot = spread(key.hashCode()) & mask;; slot = (slot + 1) & mask) {
			int at = index[slot] - 1;
			if (at < 0) {
				return -1;
			}
			Object k = this.entries[2 * at];
			if (k == key || k.equals(key)) {
				return at;
			}
		}
	}

	@Override
	public int size() {
		return this.entries.length / 2;
	}

	@Override
	public boolean isEmpty() {
		return this.entries.length == 0;
	}

	@Override
	public boolean containsKey(@Nullable Object key) {
		return find(key) >= 0;
	}

	@Override
	public @Nullable Object get(@Nullable Object key) {
		int at = find(key);
		return (at >= 0) ? this.entries[2 * at + 1] : null;
	}

	@Override
	public @Nullable Object getOrDefault(@Nullable Object key, @Nullable Object defaultValue) {
		int at = find(key);
		return (at >= 0) ? this.entries[2 * at + 1] : defaultValue;
	}

	@Override
	public Set<Map.Entry<String, Object>> entrySet() {
		return new AbstractSet<>() {

			@Override
			public Iterator<Map.Entry<String, Object>> iterator() {
				return new Iterator<>() {

					private int next;

					@Override
					public boolean hasNext() {
						return this.next < CompactMap.this.entries.length;
					}

					@Override
					public Map.Entry<String, Object> next() {
						if (!hasNext()) {
							throw new NoSuchElementException();
						}
						int at = this.next;
						this.next += 2;
						return new SimpleImmutableEntry<>((String) CompactMap.this.entries[at],
								CompactMap.this.entries[at + 1]);
					}

				};
			}

			@Override
			public int size() {
				return CompactMap.this.size();
			}

		};
	}

}
