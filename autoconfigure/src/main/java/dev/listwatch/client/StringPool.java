package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;

/**
 * Shares equal strings, integers, and the keys of maps of the same shape: direct-mapped
 * tables of the last one seen per hash slot, strings looked up from the parser's
 * characters so that a string seen before is not even created again. Racy by design and
 * safe: a slot holds one immutable object (a string with its characters, keys, an
 * integer) or another one.
 */
final class StringPool {

	/** Slots for map keys (a power of two). */
	private static final int KEYS_SLOTS = 1024;

	/** Slots for integers beyond the JDK's own cache (a power of two). */
	private static final int INTEGER_SLOTS = 256;

	/** Maps with more keys than this have keys of their own. */
	private static final int KEYS_MAX = 64;

	/** A string and its characters (compared as one range), published together. */
	private record Pooled(String string, char[] chars) {
	}

	/**
	 * An ASCII string, its first and last eight bytes (all of them up to 16) and its
	 * bytes when longer, published together.
	 */
	private record PooledAscii(String string, byte[] bytes, long first, long last, int length) {
	}

	private static final byte[] NO_BYTES = {};

	private final Pooled[] slots;

	private final PooledAscii[] asciiSlots;

	private final CompactMap.Keys[] keys = new CompactMap.Keys[KEYS_SLOTS];

	private final Integer[] integers = new Integer[INTEGER_SLOTS];

	private final int maxLength;

	StringPool(int slots, int maxLength) {
		this.slots = new Pooled[slots];
		this.asciiSlots = new PooledAscii[slots];
		this.maxLength = maxLength;
	}

	String get(char[] chars, int offset, int length) {
		if (length > this.maxLength) {
			return new String(chars, offset, length);
		}
		// at most 16 characters hashed: the first and last 8 (names and ids differ at
		// the end)
		int hash = length;
		int end = offset + length;
		if (length <= 16) {
			for (int i = offset; i < end; i++) {
				hash = 31 * hash + chars[i];
			}
		}
		else {
			for (int i = offset; i < offset + 8; i++) {
				hash = 31 * hash + chars[i];
			}
			for (int i = end - 8; i < end; i++) {
				hash = 31 * hash + chars[i];
			}
		}
		int slot = (hash ^ (hash >>> 16)) & (this.slots.length - 1);
		Pooled seen = this.slots[slot];
		if (seen != null && Arrays.equals(seen.chars, 0, seen.chars.length, chars, offset, end)) {
			return seen.string;
		}
		String string = new String(chars, offset, length);
		this.slots[slot] = new Pooled(string, Arrays.copyOfRange(chars, offset, end));
		return string;
	}

	/**
	 * The string of ASCII bytes (each below 0x80, so each its own character), shared with
	 * the strings of the same bytes seen before through a table of its own (bytes are
	 * compared as bytes).
	 * @param bytes the bytes
	 * @param offset where the string starts
	 * @param length how many bytes
	 * @return the string
	 */
	String ascii(byte[] bytes, int offset, int length) {
		if (length > this.maxLength) {
			return new String(bytes, offset, length, StandardCharsets.ISO_8859_1);
		}
		// the first and last eight bytes (overlapping from 8 to 16 bytes), or all of them
		long first;
		long last;
		if (length >= 8) {
			first = (long) JsonScanner.LONGS.get(bytes, offset);
			last = (long) JsonScanner.LONGS.get(bytes, offset + length - 8);
		}
		else {
			first = 0;
			for (int i = 0; i < length; i++) {
				first |= (bytes[offset + i] & 0xffL) << (8 * i);
			}
			last = first;
		}
		long mixed = (first * 0x9E3779B97F4A7C15L + last) * 0x9E3779B97F4A7C15L + length;
		int hash = (int) (mixed ^ (mixed >>> 32));
		int slot = (hash ^ (hash >>> 16)) & (this.asciiSlots.length - 1);
		PooledAscii seen = this.asciiSlots[slot];
		int end = offset + length;
		// up to 16 bytes, the first and last eight are all of them
		if (seen != null && seen.first == first && seen.last == last && seen.length == length
				&& (length <= 16 || Arrays.equals(seen.bytes, 0, length, bytes, offset, end))) {
			return seen.string;
		}
		String string = new String(bytes, offset, length, StandardCharsets.ISO_8859_1);
		this.asciiSlots[slot] = new PooledAscii(string,
				(length <= 16) ? NO_BYTES : Arrays.copyOfRange(bytes, offset, end), first, last, length);
		return string;
	}

	String get(JsonParser p) {
		return get(p.getStringCharacters(), p.getStringOffset(), p.getStringLength());
	}

	/**
	 * An {@code Integer} equal to the value, shared with others seen before (ports,
	 * sizes...).
	 */
	Integer integer(int value) {
		if (value >= -128 && value <= 127) {
			return value;
		}
		int slot = (value ^ (value >>> 16)) & (this.integers.length - 1);
		Integer shared = this.integers[slot];
		if (shared != null && shared == value) {
			return shared;
		}
		Integer integer = value;
		this.integers[slot] = integer;
		return integer;
	}

	/**
	 * The keys of a map of this shape seen before, if they are still in the pool.
	 * @param names the names in order (not kept)
	 * @param size how many
	 * @return the keys, or {@code null}
	 */
	CompactMap.@Nullable Keys sharedKeys(String[] names, int size) {
		if (size > KEYS_MAX) {
			return null;
		}
		CompactMap.Keys shared = this.keys[slot(names, size)];
		return (shared != null && shared.sameAs(names, size)) ? shared : null;
	}

	private static int slot(String[] names, int size) {
		int hash = 1;
		for (int i = 0; i < size; i++) {
			hash = 31 * hash + names[i].hashCode();
		}
		return (hash ^ (hash >>> 16)) & (KEYS_SLOTS - 1);
	}

	/**
	 * The keys of these names, shared with the maps of the same shape.
	 * @param names the distinct names in order (may be kept)
	 * @return the keys
	 */
	CompactMap.Keys keys(String[] names) {
		if (names.length > KEYS_MAX) {
			return new CompactMap.Keys(names);
		}
		int slot = slot(names, names.length);
		CompactMap.Keys shared = this.keys[slot];
		if (shared != null && shared.sameAs(names, names.length)) {
			return shared;
		}
		CompactMap.Keys keys = new CompactMap.Keys(names);
		this.keys[slot] = keys;
		return keys;
	}

}
