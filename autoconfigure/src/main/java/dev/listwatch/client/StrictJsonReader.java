package dev.listwatch.client;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * One object's bytes, read forward as strictly as RFC 8259 and within the mapper's
 * parser's limits, for {@link DirectBinding}: the untyped values as Jackson binds them
 * ({@link CompactMap}s, {@link CompactList}s, strings shared through the pool and the
 * numbers Jackson's untyped values are), or only checked. At the end of the bytes it
 * throws {@link #NOT_WHOLE}; at anything it cannot be sure the mapper reads the same (a
 * leading zero, a bad escape, a control character, bytes that are not UTF-8, a limit),
 * {@link #GIVE_UP}. Not thread-safe: one object on one thread.
 */
final class StrictJsonReader {

	/** Thrown where the object is Jackson's to bind. */
	static final GiveUp GIVE_UP = new GiveUp();

	/** Thrown where the bytes end inside the object. */
	static final NotWhole NOT_WHOLE = new NotWhole();

	/** The parser's limits this reader keeps to (it gives up beyond them). */
	record Limits(int maxDepth, int maxNumberLength, int maxStringLength, int maxNameLength) {
	}

	final byte[] b;

	final int limit;

	int pos;

	private final Limits limits;

	private final StringPool pool;

	/**
	 * A reader of the bytes from {@code pos} to {@code limit}.
	 * @param b the bytes
	 * @param pos where to start
	 * @param limit where the bytes read end
	 * @param limits the mapper's parser's limits
	 * @param pool shares strings, integers and keys, as the lean deserializers do
	 */
	StrictJsonReader(byte[] b, int pos, int limit, Limits limits, StringPool pool) {
		this.b = b;
		this.pos = pos;
		this.limit = limit;
		this.limits = limits;
		this.pool = pool;
	}

	/** Skips whitespace; the next byte, not consumed. */
	int next() {
		byte[] b = this.b;
		int i = this.pos;
		while (i < this.limit) {
			byte c = b[i];
			if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
				this.pos = i;
				return c;
			}
			i++;
		}
		this.pos = i;
		throw NOT_WHOLE;
	}

	void colon() {
		if (next() != ':') {
			throw GIVE_UP;
		}
		this.pos++;
	}

	void literal(String literal) {
		int n = literal.length();
		if (this.pos + n >= this.limit) {
			throw NOT_WHOLE;
		}
		for (int i = 0; i < n; i++) {
			if (this.b[this.pos + i] != literal.charAt(i)) {
				throw GIVE_UP;
			}
		}
		this.pos += n;
	}

	/**
	 * The key at the quote here, as the index of the component of that name, or -1.
	 */
	int component(String[] names) {
		int start = this.pos + 1;
		int close = plainEnd(start);
		if (close < 0) {
			return indexOf(names, string(this.limits.maxNameLength()));
		}
		this.pos = close + 1;
		int length = close - start;
		for (int i = 0; i < names.length; i++) {
			String name = names[i];
			if (name.length() == length && sameAscii(name, start)) {
				return i;
			}
		}
		return -1;
	}

	private boolean sameAscii(String name, int start) {
		for (int i = 0; i < name.length(); i++) {
			if (name.charAt(i) != this.b[start + i]) {
				return false;
			}
		}
		return true;
	}

	private int indexOf(String[] names, String key) {
		for (int i = 0; i < names.length; i++) {
			if (names[i].equals(key)) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * Where the string that starts at {@code from} (after its quote) ends (its closing
	 * quote), when all of it is printable ASCII without escapes; else -1.
	 */
	private int plainEnd(int from) {
		byte[] b = this.b;
		int limit = this.limit;
		int last = limit - 8;
		int i = from;
		while (i <= last) {
			long w = (long) JsonScanner.LONGS.get(b, i);
			long q = w ^ JsonScanner.QUOTES;
			long e = w ^ JsonScanner.BACKSLASHES;
			// quotes, backslashes, bytes below 0x20 and from 0x80 on: only the lowest
			// flag is sure
			long found = ((q - JsonScanner.ONES) & ~q | (e - JsonScanner.ONES) & ~e | (w - JsonScanner.SPACES) & ~w | w)
					& JsonScanner.HIGHS;
			if (found == 0) {
				i += 8;
				continue;
			}
			i += Long.numberOfTrailingZeros(found) >>> 3;
			return (b[i] == '"') ? i : -1;
		}
		for (; i < limit; i++) {
			byte c = b[i];
			if (c == '"') {
				return i;
			}
			if (c == '\\' || c < 0x20) {
				// bytes of 0x80 and above are negative
				return -1;
			}
		}
		throw NOT_WHOLE;
	}

	/**
	 * The string at the quote here, ASCII ones shared through the pool.
	 * @param maxLength the longest the mapper's parser takes (longer: given up)
	 */
	String string(int maxLength) {
		int start = this.pos + 1;
		int close = plainEnd(start);
		if (close >= 0) {
			int length = close - start;
			if (length > maxLength) {
				throw GIVE_UP;
			}
			this.pos = close + 1;
			return this.pool.ascii(this.b, start, length);
		}
		String text = escaped(start);
		if (text.length() > maxLength) {
			throw GIVE_UP;
		}
		return text;
	}

	/** Checks the string at the quote here and moves past it. */
	void skipString(int maxLength) {
		int start = this.pos + 1;
		int close = plainEnd(start);
		if (close >= 0) {
			if (close - start > maxLength) {
				throw GIVE_UP;
			}
			this.pos = close + 1;
		}
		else {
			string(maxLength);
		}
	}

	/** A string with escapes or other than ASCII, decoded strictly. */
	private String escaped(int start) {
		byte[] b = this.b;
		StringBuilder text = new StringBuilder();
		int run = start;
		int i = start;
		while (true) {
			if (i >= this.limit) {
				throw NOT_WHOLE;
			}
			byte c = b[i];
			if (c == '"') {
				utf8(run, i, text);
				this.pos = i + 1;
				return text.toString();
			}
			if (c >= 0 && c < 0x20) {
				throw GIVE_UP;
			}
			if (c != '\\') {
				i++;
				continue;
			}
			utf8(run, i, text);
			if (i + 1 >= this.limit) {
				throw NOT_WHOLE;
			}
			byte e = b[i + 1];
			int escaped = JsonScanner.unescape(e);
			if (escaped >= 0) {
				text.append((char) escaped);
			}
			else if (e == 'u') {
				if (i + 6 > this.limit) {
					throw NOT_WHOLE;
				}
				int code = 0;
				for (int k = i + 2; k < i + 6; k++) {
					int digit = Character.digit(b[k], 16);
					if (digit < 0) {
						throw GIVE_UP;
					}
					code = code * 16 + digit;
				}
				text.append((char) code);
				i += 4;
			}
			else {
				throw GIVE_UP;
			}
			i += 2;
			run = i;
		}
	}

	private void utf8(int from, int to, StringBuilder text) {
		if (from == to) {
			return;
		}
		try {
			// strict: bytes that are not UTF-8 are Jackson's to judge
			text.append(StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(this.b, from, to - from)));
		}
		catch (CharacterCodingException ex) {
			throw GIVE_UP;
		}
	}

	/**
	 * The value here as Jackson binds an untyped one, or {@code null} when not
	 * {@code build} (then only checked).
	 * @param depth how deep the value is (the object itself is at depth 1)
	 */
	@Nullable Object value(int depth, boolean build) {
		int c = next();
		switch (c) {
			case '{':
				return map(depth + 1, build);
			case '[':
				return list(depth + 1, build);
			case '"':
				if (!build) {
					skipString(this.limits.maxStringLength());
					return null;
				}
				return string(this.limits.maxStringLength());
			case 't':
				literal("true");
				return Boolean.TRUE;
			case 'f':
				literal("false");
				return Boolean.FALSE;
			case 'n':
				literal("null");
				return null;
			default:
				if (c == '-' || (c >= '0' && c <= '9')) {
					return number(build);
				}
				throw GIVE_UP;
		}
	}

	private @Nullable Object map(int depth, boolean build) {
		if (depth >= this.limits.maxDepth()) {
			throw GIVE_UP;
		}
		this.pos++;
		int c = next();
		if (c == '}') {
			this.pos++;
			return build ? CompactMap.EMPTY : null;
		}
		String[] names = build ? new String[8] : null;
		Object[] values = build ? new Object[8] : null;
		int size = 0;
		while (true) {
			if (c != '"') {
				throw GIVE_UP;
			}
			String name = null;
			if (build) {
				name = string(this.limits.maxNameLength());
			}
			else {
				skipString(this.limits.maxNameLength());
			}
			colon();
			Object value = value(depth, build);
			if (names != null && values != null) {
				if (size == names.length) {
					names = Arrays.copyOf(names, size * 2);
					values = Arrays.copyOf(values, size * 2);
				}
				names[size] = name;
				values[size] = value;
				size++;
			}
			c = next();
			this.pos++;
			if (c == '}') {
				break;
			}
			if (c != ',') {
				throw GIVE_UP;
			}
			c = next();
		}
		if (names == null || values == null) {
			return null;
		}
		StringPool pool = this.pool;
		// most maps have the shape of one seen before (whose names are distinct)
		CompactMap.Keys shared = pool.sharedKeys(names, size);
		if (shared != null) {
			return new CompactMap(shared, Arrays.copyOf(values, size));
		}
		Object[] entries = new Object[2 * size];
		for (int i = 0; i < size; i++) {
			entries[2 * i] = names[i];
			entries[2 * i + 1] = values[i];
		}
		return CompactMap.build(entries, size, pool::keys);
	}

	private @Nullable Object list(int depth, boolean build) {
		if (depth >= this.limits.maxDepth()) {
			throw GIVE_UP;
		}
		this.pos++;
		int c = next();
		if (c == ']') {
			this.pos++;
			return build ? CompactList.EMPTY : null;
		}
		Object[] elements = build ? new Object[8] : null;
		int size = 0;
		while (true) {
			Object value = value(depth, build);
			if (elements != null) {
				if (size == elements.length) {
					elements = Arrays.copyOf(elements, size * 2);
				}
				elements[size++] = value;
			}
			c = next();
			this.pos++;
			if (c == ']') {
				break;
			}
			if (c != ',') {
				throw GIVE_UP;
			}
		}
		return (elements != null) ? CompactList.of(elements, size) : null;
	}

	/**
	 * A number as Jackson's untyped values are (without its coercions): an
	 * {@code Integer} when it fits, else a {@code Long}, else a {@code BigInteger}; a
	 * {@code Double} with a fraction or an exponent. Strict: no leading zeros.
	 */
	@Nullable Object number(boolean build) {
		byte[] b = this.b;
		int limit = this.limit;
		int start = this.pos;
		int i = start;
		boolean negative = b[i] == '-';
		if (negative) {
			i++;
		}
		if (i >= limit) {
			throw NOT_WHOLE;
		}
		int firstDigit = i;
		if (b[i] == '0') {
			i++;
		}
		else if (b[i] >= '1' && b[i] <= '9') {
			while (i < limit && b[i] >= '0' && b[i] <= '9') {
				i++;
			}
		}
		else {
			throw GIVE_UP;
		}
		int digits = i - firstDigit;
		boolean floating = false;
		if (i < limit && b[i] == '.') {
			floating = true;
			i = digits(i + 1);
		}
		if (i < limit && (b[i] == 'e' || b[i] == 'E')) {
			floating = true;
			i++;
			if (i < limit && (b[i] == '+' || b[i] == '-')) {
				i++;
			}
			i = digits(i);
		}
		if (i >= limit) {
			// more digits may follow
			throw NOT_WHOLE;
		}
		if (i - start > this.limits.maxNumberLength()) {
			throw GIVE_UP;
		}
		this.pos = i;
		if (!build) {
			return null;
		}
		if (floating) {
			return Double.parseDouble(new String(b, start, i - start, StandardCharsets.ISO_8859_1));
		}
		if (digits <= 18) {
			long value = 0;
			for (int k = firstDigit; k < i; k++) {
				value = value * 10 + (b[k] - '0');
			}
			value = negative ? -value : value;
			return (value == (int) value) ? this.pool.integer((int) value) : (Object) value;
		}
		String text = new String(b, start, i - start, StandardCharsets.ISO_8859_1);
		try {
			return Long.parseLong(text);
		}
		catch (NumberFormatException ex) {
			return new BigInteger(text);
		}
	}

	/** At least one digit from {@code from}; where they end. */
	private int digits(int from) {
		int i = from;
		while (i < this.limit && this.b[i] >= '0' && this.b[i] <= '9') {
			i++;
		}
		if (i == from) {
			if (i >= this.limit) {
				throw NOT_WHOLE;
			}
			throw GIVE_UP;
		}
		return i;
	}

	/** Jackson's to bind: control flow, no stack trace. */
	static final class GiveUp extends RuntimeException {

		private static final long serialVersionUID = 1L;

		GiveUp() {
			super(null, null, false, false);
		}

	}

	/** The bytes end inside the object: control flow, no stack trace. */
	static final class NotWhole extends RuntimeException {

		private static final long serialVersionUID = 1L;

		NotWhole() {
			super(null, null, false, false);
		}

	}

}
