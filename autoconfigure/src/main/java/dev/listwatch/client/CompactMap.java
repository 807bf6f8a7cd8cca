package dev.listwatch.client;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * A JSON object bound as an untyped {@code Map<String, Object>} of a typed watch: its
 * values in one array, in the order of the JSON (as Jackson's {@code LinkedHashMap}), and
 * its keys as {@link Keys} that the maps of the same shape share (the containers of all
 * Pods, their conditions...). Read-only: every mutator throws
 * {@link UnsupportedOperationException} (objects in a watch's cache are shared by all its
 * readers). Equal to, and with the hash code and string form of, any {@link Map} with the
 * same entries. Values may be {@code null}; keys never are.
 */
final class CompactMap implements Map<String, Object> {

	static final CompactMap EMPTY = new CompactMap(new Keys(new String[0]), new Object[0]);

	private final Keys keys;

	private final @Nullable Object[] values;

	CompactMap(Keys keys, @Nullable Object[] values) {
		this.keys = keys;
		this.values = values;
	}

	/**
	 * A map of the first {@code 2 * size} elements of {@code keysAndValues} (key, value,
	 * key, value...), with keys of its own.
	 * @param keysAndValues the keys (non-null strings) and values; not kept
	 * @param size the number of pairs
	 * @return the map
	 * @see #build
	 */
	static CompactMap of(Object[] keysAndValues, int size) {
		return build(keysAndValues, size, Keys::new);
	}

	/**
	 * A map of the first {@code 2 * size} elements of {@code keysAndValues} (key, value,
	 * key, value...); a key that appears again keeps its first position and takes the
	 * last value, as Jackson's {@code LinkedHashMap} does.
	 * @param keysAndValues the keys (non-null strings) and values; not kept
	 * @param size the number of pairs
	 * @param keys makes (or finds) the keys from their names in order (an array it may
	 * keep)
	 * @return the map
	 */
	static CompactMap build(@Nullable Object[] keysAndValues, int size, Function<String[], Keys> keys) {
		if (size == 0) {
			return EMPTY;
		}
		String[] names = new String[size];
		Object[] values = new Object[size];
		int n = 0;
		for (int i = 0; i < size; i++) {
			String name = (String) keysAndValues[2 * i];
			int at = indexOf(names, n, name);
			if (at >= 0) {
				values[at] = keysAndValues[2 * i + 1];
			}
			else {
				names[n] = name;
				values[n] = keysAndValues[2 * i + 1];
				n++;
			}
		}
		if (n < size) {
			names = Arrays.copyOf(names, n);
			values = Arrays.copyOf(values, n);
		}
		return new CompactMap(keys.apply(names), values);
	}

	/** The index of a name among the first {@code n} (a scan; only while building). */
	private static int indexOf(String[] names, int n, String name) {
		for (int i = 0; i < n; i++) {
			if (names[i] == name || names[i].equals(name)) {
				return i;
			}
		}
		return -1;
	}

	@Override
	public int size() {
		return this.values.length;
	}

	@Override
	public boolean isEmpty() {
		return this.values.length == 0;
	}

	@Override
	public boolean containsKey(@Nullable Object key) {
		return this.keys.find(key) >= 0;
	}

	@Override
	public boolean containsValue(@Nullable Object value) {
		for (Object v : this.values) {
			if (v == value || (v != null && v.equals(value))) {
				return true;
			}
		}
		return false;
	}

	@Override
	public @Nullable Object get(@Nullable Object key) {
		int at = this.keys.find(key);
		return (at >= 0) ? this.values[at] : null;
	}

	@Override
	public @Nullable Object getOrDefault(@Nullable Object key, @Nullable Object defaultValue) {
		int at = this.keys.find(key);
		return (at >= 0) ? this.values[at] : defaultValue;
	}

	@Override
	public Object put(String key, Object value) {
		throw readOnly();
	}

	@Override
	public Object remove(@Nullable Object key) {
		throw readOnly();
	}

	@Override
	public void putAll(Map<? extends String, ? extends Object> m) {
		throw readOnly();
	}

	@Override
	public void clear() {
		throw readOnly();
	}

	@Override
	public void replaceAll(BiFunction<? super String, ? super Object, ? extends Object> function) {
		throw readOnly();
	}

	@Override
	public @Nullable Object putIfAbsent(String key, Object value) {
		throw readOnly();
	}

	@Override
	public boolean remove(@Nullable Object key, @Nullable Object value) {
		throw readOnly();
	}

	@Override
	public boolean replace(String key, Object oldValue, Object newValue) {
		throw readOnly();
	}

	@Override
	public @Nullable Object replace(String key, Object value) {
		throw readOnly();
	}

	@Override
	public Object computeIfAbsent(String key, Function<? super String, ? extends Object> mappingFunction) {
		throw readOnly();
	}

	@Override
	public Object computeIfPresent(String key,
			BiFunction<? super String, ? super Object, ? extends Object> remappingFunction) {
		throw readOnly();
	}

	@Override
	public Object compute(String key, BiFunction<? super String, ? super Object, ? extends Object> remappingFunction) {
		throw readOnly();
	}

	@Override
	public Object merge(String key, Object value,
			BiFunction<? super Object, ? super Object, ? extends Object> remappingFunction) {
		throw readOnly();
	}

	private static UnsupportedOperationException readOnly() {
		return new UnsupportedOperationException("read-only: objects in a watch's cache are shared");
	}

	@Override
	public Set<String> keySet() {
		return new AbstractSet<>() {

			@Override
			public Iterator<String> iterator() {
				return new Entries<>((i) -> CompactMap.this.keys.names[i]);
			}

			@Override
			public boolean contains(@Nullable Object o) {
				return containsKey(o);
			}

			@Override
			public int size() {
				return CompactMap.this.size();
			}

		};
	}

	@Override
	public Collection<Object> values() {
		return new AbstractCollection<>() {

			@Override
			public Iterator<Object> iterator() {
				return new Entries<>((i) -> CompactMap.this.values[i]);
			}

			@Override
			public int size() {
				return CompactMap.this.size();
			}

		};
	}

	@Override
	public Set<Map.Entry<String, Object>> entrySet() {
		return new AbstractSet<>() {

			@Override
			public Iterator<Map.Entry<String, Object>> iterator() {
				return new Entries<>((i) -> new AbstractMap.SimpleImmutableEntry<>(CompactMap.this.keys.names[i],
						CompactMap.this.values[i]));
			}

			@Override
			public int size() {
				return CompactMap.this.size();
			}

		};
	}

	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		if (!(other instanceof Map<?, ?> that) || that.size() != size()) {
			return false;
		}
		try {
			for (int i = 0; i < this.values.length; i++) {
				Object value = this.values[i];
				String key = this.keys.names[i];
				if (value == null ? (that.get(key) != null || !that.containsKey(key)) : !value.equals(that.get(key))) {
					return false;
				}
			}
		}
		catch (ClassCastException | NullPointerException ex) {
			return false;
		}
		return true;
	}

	@Override
	public int hashCode() {
		int hash = 0;
		for (int i = 0; i < this.values.length; i++) {
			hash += this.keys.names[i].hashCode() ^ ((this.values[i] != null) ? this.values[i].hashCode() : 0);
		}
		return hash;
	}

	@Override
	public String toString() {
		StringBuilder text = new StringBuilder("{");
		for (int i = 0; i < this.values.length; i++) {
			Object value = this.values[i];
			text.append((i > 0) ? ", " : "")
				.append(this.keys.names[i])
				.append('=')
				.append((value == this) ? "(this Map)" : value);
		}
		return text.append('}').toString();
	}

	/** Iterates over the entries by index. */
	private final class Entries<E> implements Iterator<E> {

		private final java.util.function.IntFunction<E> at;

		private int next;

		Entries(java.util.function.IntFunction<E> at) {
			this.at = at;
		}

		@Override
		public boolean hasNext() {
			return this.next < CompactMap.this.values.length;
		}

		@Override
		public E next() {
			if (!hasNext()) {
				throw new NoSuchElementException();
			}
			return this.at.apply(this.next++);
		}

	}

	/**
	 * The keys of a map in order, shared by the maps of the same shape, with a hash index
	 * when there are more than a few.
	 */
	static final class Keys {

		/** Up to this many keys, a key is looked up by a scan. */
		private static final int SCAN = 8;

		final String[] names;

		/**
		 * Open addressing, linear probing: the index of a key plus one, 0 when empty; or
		 * null.
		 */
		private final int @Nullable [] index;

		/**
		 * Keys of these names.
		 * @param names distinct names in order (kept)
		 */
		Keys(String[] names) {
			this.names = names;
			this.index = (names.length > SCAN) ? index(names) : null;
		}

		/** Whether these are the first {@code size} of {@code names}, in order. */
		boolean sameAs(String[] names, int size) {
			if (size != this.names.length) {
				return false;
			}
			for (int i = 0; i < size; i++) {
				if (names[i] != this.names[i] && !names[i].equals(this.names[i])) {
					return false;
				}
			}
			return true;
		}

		private static int[] index(String[] names) {
			int[] index = new int[Integer.highestOneBit(names.length * 2 - 1) << 1];
			int mask = index.length - 1;
			for (int i = 0; i < names.length; i++) {
				int slot = spread(names[i].hashCode()) & mask;
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

		int find(@Nullable Object key) {
			if (key == null) {
				return -1;
			}
			int[] index = this.index;
			if (index == null) {
				for (int i = 0; i < this.names.length; i++) {
					if (this.names[i] == key || this.names[i].equals(key)) {
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
				if (this.names[at] == key || this.names[at].equals(key)) {
					return at;
				}
			}
		}

	}

}
