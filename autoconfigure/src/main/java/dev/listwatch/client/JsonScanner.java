package dev.listwatch.client;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

/**
 * A forward-only reader of JSON in a byte array, for the few levels list-watch reads (the
 * event envelope, an object's top level, its metadata): members are read strictly,
 * strings decoded only when asked for, and every other value skipped by a byte scan that
 * follows nesting and strings without tokenizing what it skips. Strings, where most of
 * the bytes are, are scanned eight bytes at a time. Not thread-safe; one per decode.
 */
final class JsonScanner {

	/**
	 * Bytes that matter when skipping outside strings: 1 for a quote, 2 opens, 3 closes.
	 */
	private static final byte[] STRUCTURE = new byte[256];

	static {
		STRUCTURE['"'] = 1;
		STRUCTURE['{'] = 2;
		STRUCTURE['['] = 2;
		STRUCTURE['}'] = 3;
		STRUCTURE[']'] = 3;
	}

	/**
	 * Eight bytes as a long, the first in the lowest bits: the lowest flagged byte comes
	 * first.
	 */
	static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

	static final long ONES = 0x0101010101010101L;

	static final long HIGHS = 0x8080808080808080L;

	static final long QUOTES = 0x2222222222222222L;

	static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;

	static final long SPACES = 0x2020202020202020L;

	private final byte[] b;

	private final int end;

	private int pos;

	JsonScanner(byte[] b, int off, int len) {
		this.b = b;
		this.pos = off;
		this.end = off + len;
	}

	int position() {
		return this.pos;
	}

	/**
	 * Skips whitespace and returns the next byte without consuming it, or -1 at the end.
	 */
	int peek() {
		skipWhitespace();
		return (this.pos < this.end) ? this.b[this.pos] : -1;
	}

	void expect(char c) {
		if (peek() != c) {
			throw error("expected '" + c + "'");
		}
		this.pos++;
	}

	/**
	 * Starts reading an object: consumes '{'.
	 */
	void beginObject() {
		expect('{');
	}

	/**
	 * Moves to the next member of the object being read and consumes its key and colon.
	 * @param first whether no member has been read yet
	 * @return the key's start (just after its opening quote), or -1 when the object ended
	 * (its '}' consumed)
	 */
	int nextKey(boolean first) {
		int c = peek();
		if (c == '}') {
			this.pos++;
			return -1;
		}
		if (!first) {
			if (c != ',') {
				throw error("expected ',' or '}'");
			}
			this.pos++;
			c = peek();
		}
		if (c != '"') {
			throw error("expected a quoted member name");
		}
		int start = this.pos + 1;
		this.pos = skipString(this.pos);
		expect(':');
		return start;
	}

	/** Whether the key that starts at {@code start} (after its quote) is {@code name}. */
	boolean keyIs(int start, byte[] name) {
		int n = name.length;
		if (start + n >= this.end || this.b[start + n] != '"') {
			return false;
		}
		for (int i = 0; i < n; i++) {
			if (this.b[start + i] != name[i]) {
				return false;
			}
		}
		return true;
	}

	/** The key that starts at {@code start}, decoded. */
	@Nullable String key(int start) {
		return decode(start, closingQuote(start - 1));
	}

	/**
	 * Reads a string value, or skips any other value and returns {@code null}.
	 */
	@Nullable String stringOrSkip() {
		if (peek() != '"') {
			skipValue();
			return null;
		}
		int open = this.pos;
		this.pos = closingQuote(open) + 1;
		return decode(open + 1, this.pos - 1);
	}

	/**
	 * Reads an integer value, or skips any other value and returns {@code null}.
	 */
	@Nullable Long longOrSkip() {
		int c = peek();
		if (c != '-' && (c < '0' || c > '9')) {
			skipValue();
			return null;
		}
		int start = this.pos;
		skipValue();
		try {
			return Long.parseLong(new String(this.b, start, this.pos - start, StandardCharsets.US_ASCII));
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * Skips one value of any kind. Objects and arrays are skipped by following nesting
	 * and strings; literals are checked.
	 */
	void skipValue() {
		int c = peek();
		if (c == '"') {
			this.pos = skipString(this.pos);
		}
		else if (c == '{' || c == '[') {
			this.pos = skipContainer(this.pos);
		}
		else if (c == -1) {
			throw error("expected a value");
		}
		else {
			this.pos = skipLiteral(this.pos);
		}
	}

	/** Checks that nothing but whitespace follows. */
	void expectEnd() {
		if (peek() != -1) {
			throw error("expected the end");
		}
	}

	private void skipWhitespace() {
		while (this.pos < this.end) {
			byte c = this.b[this.pos];
			if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
				return;
			}
			this.pos++;
		}
	}

	/** From an opening quote, the index just after the closing one. */
	private int skipString(int open) {
		int close = skipStringBody(open + 1);
		if (close >= this.end) {
			this.pos = this.end;
			throw error("an unterminated string");
		}
		return close + 1;
	}

	/**
	 * From an opening quote, the index of the closing one, refusing control characters.
	 */
	private int closingQuote(int open) {
		byte[] b = this.b;
		int end = this.end;
		int last = end - 8;
		int i = open + 1;
		while (true) {
			if (i <= last) {
				long w = (long) LONGS.get(b, i);
				// and the bytes below 0x20, flagged the same way (only the first flag is
				// sure)
				long found = quoteOrBackslash(w) | ((w - SPACES) & ~w & HIGHS);
				if (found == 0) {
					i += 8;
					continue;
				}
				i += Long.numberOfTrailingZeros(found) >>> 3;
			}
			else if (i >= end) {
				break;
			}
			byte c = b[i];
			if (c == '"') {
				return i;
			}
			if (c == '\\') {
				i += 2;
			}
			else if (c >= 0 && c < 0x20) {
				this.pos = i;
				throw error("a control character inside a string");
			}
			else {
				i++;
			}
		}
		this.pos = end;
		throw error("an unterminated string");
	}

	private int skipContainer(int open) {
		byte[] b = this.b;
		int end = this.end;
		int depth = 0;
		for (int i = open; i < end; i++) {
			byte kind = STRUCTURE[b[i] & 0xff];
			if (kind == 0) {
				continue;
			}
			if (kind == 1) {
				// the hot loop of skipping: strings are passed over, not checked
				i = skipStringBody(i + 1);
			}
			else if (kind == 2) {
				depth++;
			}
			else if (--depth == 0) {
				return i + 1;
			}
		}
		this.pos = this.end;
		throw error("an unterminated object or array");
	}

	/** From just after an opening quote, the index of the closing one (or the end). */
	private int skipStringBody(int from) {
		byte[] b = this.b;
		int end = this.end;
		int last = end - 8;
		int i = from;
		while (i <= last) {
			long found = quoteOrBackslash((long) LONGS.get(b, i));
			if (found == 0) {
				i += 8;
				continue;
			}
			i += Long.numberOfTrailingZeros(found) >>> 3;
			if (b[i] == '"') {
				return i;
			}
			// a backslash: the byte after it is escaped, whatever it is
			i += 2;
		}
		// the last few bytes, one at a time: a word must not be read past the end
		while (i < end) {
			byte c = b[i];
			if (c == '"') {
				return i;
			}
			i += (c == '\\') ? 2 : 1;
		}
		return end;
	}

	/**
	 * 0x80 in the first of the eight bytes that is a quote or a backslash, if any (and
	 * perhaps in some after it, as a borrow out of a byte that matches may flag the next
	 * one: only the first flagged byte is sure to match). Bytes of 0x80 and above, such
	 * as those of UTF-8 characters, are never flagged.
	 */
	private static long quoteOrBackslash(long w) {
		long q = w ^ QUOTES;
		long e = w ^ BACKSLASHES;
		return ((q - ONES) & ~q | (e - ONES) & ~e) & HIGHS;
	}

	private int skipLiteral(int start) {
		int i = start;
		while (i < this.end) {
			byte c = this.b[i];
			if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
				break;
			}
			i++;
		}
		if (i == this.end) {
			this.pos = i;
			throw error("a value cut short");
		}
		if (!isLiteral(start, i)) {
			this.pos = start;
			throw error("not a JSON value");
		}
		return i;
	}

	private boolean isLiteral(int from, int to) {
		int n = to - from;
		if (n == 4 && matches(from, "true") || n == 4 && matches(from, "null") || n == 5 && matches(from, "false")) {
			return true;
		}
		int i = from;
		if (i < to && this.b[i] == '-') {
			i++;
		}
		int digits = 0;
		while (i < to && this.b[i] >= '0' && this.b[i] <= '9') {
			i++;
			digits++;
		}
		if (digits == 0) {
			return false;
		}
		if (i < to && this.b[i] == '.') {
			i++;
			int fraction = 0;
			while (i < to && this.b[i] >= '0' && this.b[i] <= '9') {
				i++;
				fraction++;
			}
			if (fraction == 0) {
				return false;
			}
		}
		if (i < to && (this.b[i] == 'e' || this.b[i] == 'E')) {
			i++;
			if (i < to && (this.b[i] == '+' || this.b[i] == '-')) {
				i++;
			}
			int exponent = 0;
			while (i < to && this.b[i] >= '0' && this.b[i] <= '9') {
				i++;
				exponent++;
			}
			if (exponent == 0) {
				return false;
			}
		}
		return i == to;
	}

	private boolean matches(int from, String literal) {
		for (int i = 0; i < literal.length(); i++) {
			if (this.b[from + i] != literal.charAt(i)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Decodes the string between {@code from} (after the opening quote) and {@code to}
	 * (its closing quote).
	 */
	private String decode(int from, int to) {
		byte[] b = this.b;
		int i = from;
		while (i < to && b[i] != '\\') {
			i++;
		}
		if (i == to) {
			return new String(b, from, to - from, StandardCharsets.UTF_8);
		}
		StringBuilder text = new StringBuilder(to - from);
		text.append(new String(b, from, i - from, StandardCharsets.UTF_8));
		int run = i;
		while (i < to) {
			if (b[i] != '\\') {
				i++;
				continue;
			}
			text.append(new String(b, run, i - run, StandardCharsets.UTF_8));
			if (i + 1 >= to) {
				throw error("a broken escape");
			}
			byte e = b[i + 1];
			int escaped = unescape(e);
			switch (e) {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> text.append((char) escaped);
				case 'u' -> {
					if (i + 6 > to) {
						throw error("a broken \\u escape");
					}
					try {
						text.append((char) Integer.parseInt(new String(b, i + 2, 4, StandardCharsets.US_ASCII), 16));
					}
					catch (NumberFormatException ex) {
						throw error("a broken \\u escape");
					}
					i += 4;
				}
				default -> throw error("an unknown escape");
			}
			i += 2;
			run = i;
		}
		text.append(new String(b, run, to - run, StandardCharsets.UTF_8));
		return text.toString();
	}

	/**
	 * The character that a one-letter escape stands for ({@code '\n'} for {@code n}), or
	 * -1 for any other letter ({@code u} included).
	 */
	static int unescape(byte letter) {
		return switch (letter) {
			case '"', '\\', '/' -> letter;
			case 'b' -> '\b';
			case 'f' -> '\f';
			case 'n' -> '\n';
			case 'r' -> '\r';
			case 't' -> '\t';
			default -> -1;
		};
	}

	DecodeException error(String what) {
		if (this.pos >= this.end) {
			return new Incomplete(what + " at the end of the bytes read");
		}
		return new DecodeException(what + " at byte " + this.pos);
	}

	/**
	 * The bytes ended inside the value: more may complete it. Control flow for the frame
	 * reader (thrown whenever a read ends inside an event), so it carries no stack trace.
	 */
	static final class Incomplete extends DecodeException {

		Incomplete(String message) {
			super(message, false);
		}

	}

}
