package dev.listwatch;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

import org.jspecify.annotations.Nullable;

/**
 * A preset dictionary for DEFLATE, learned from one watch's objects, and the codec of the
 * objects compressed with it: raw DEFLATE (no zlib header or checksum) after the JSON's
 * length as a varint. Compressing is deterministic: the same JSON always gives the same
 * bytes with the same dictionary, so two compressed objects of one dictionary are equal
 * exactly when their bytes are.
 * <p>
 * The native state of {@link Deflater} and {@link Inflater} is never held per object or
 * per dictionary: each call borrows one from a pool shared by the process (bounded; one
 * beyond the bound is {@link Deflater#end() ended} at once) and gives it back reset.
 * Thread-safe.
 */
final class JsonDictionary {

	/**
	 * The most a dictionary holds: DEFLATE's window, beyond which a dictionary is not
	 * read.
	 */
	static final int MAX_SIZE = 32 * 1024;

	/**
	 * The compression level: with a dictionary, level 3 costs no more CPU than level 1
	 * and is about 20% smaller on Pods; the default level 6 is 10% smaller again for 50%
	 * more CPU.
	 */
	static final int LEVEL = 3;

	/** Shorter JSON is held as it is: its compressed form would hardly be smaller. */
	private static final int MIN_LENGTH = 32;

	private static final int POOL = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());

	private static final ArrayBlockingQueue<Deflater> DEFLATERS = new ArrayBlockingQueue<>(POOL);

	private static final ArrayBlockingQueue<Inflater> INFLATERS = new ArrayBlockingQueue<>(POOL);

	private final byte[] bytes;

	/**
	 * Makes a dictionary of the given bytes (taken as they are, not copied), at most
	 * {@link #MAX_SIZE} of them.
	 * @param bytes the dictionary
	 */
	JsonDictionary(byte[] bytes) {
		if (bytes.length == 0 || bytes.length > MAX_SIZE) {
			throw new IllegalArgumentException("a dictionary holds 1 to " + MAX_SIZE + " bytes, not " + bytes.length);
		}
		this.bytes = bytes;
	}

	int size() {
		return this.bytes.length;
	}

	/**
	 * Compresses JSON with this dictionary.
	 * @param json the JSON
	 * @return the compressed form, or {@code null} when it would not be smaller than the
	 * JSON
	 */
	byte @Nullable [] deflate(byte[] json) {
		int length = json.length;
		if (length < MIN_LENGTH) {
			return null;
		}
		byte[] out = new byte[length];
		int pos = writeVarint(out, length);
		Deflater deflater = DEFLATERS.poll();
		if (deflater == null) {
			deflater = new Deflater(LEVEL, true);
		}
		try {
			deflater.setDictionary(this.bytes);
			deflater.setInput(json);
			deflater.finish();
			while (!deflater.finished()) {
				if (pos == out.length) {
					return null; // not smaller
				}
				pos += deflater.deflate(out, pos, out.length - pos);
			}
		}
		finally {
			release(deflater);
		}
		return java.util.Arrays.copyOf(out, pos);
	}

	/**
	 * Inflates what {@link #deflate} made with this dictionary.
	 * @param packed the compressed form
	 * @return the JSON, a new array
	 */
	byte[] inflate(byte[] packed) {
		int length = readVarint(packed);
		int pos = varintSize(length);
		byte[] json = new byte[length];
		Inflater inflater = INFLATERS.poll();
		if (inflater == null) {
			inflater = new Inflater(true);
		}
		try {
			inflater.setDictionary(this.bytes);
			inflater.setInput(packed, pos, packed.length - pos);
			int done = 0;
			while (done < length) {
				int n = inflater.inflate(json, done, length - done);
				if (n == 0 && (inflater.finished() || inflater.needsInput() || inflater.needsDictionary())) {
					throw new IllegalStateException("compressed JSON ends after " + done + " of " + length + " bytes");
				}
				done += n;
			}
		}
		catch (DataFormatException ex) {
			throw new IllegalStateException("compressed JSON is corrupt", ex);
		}
		finally {
			release(inflater);
		}
		return json;
	}

	/**
	 * The length of the JSON a compressed form holds, without inflating it.
	 * @param packed the compressed form
	 * @return the JSON's length in bytes
	 */
	static int jsonLength(byte[] packed) {
		return readVarint(packed);
	}

	private static void release(Deflater deflater) {
		deflater.reset();
		if (!DEFLATERS.offer(deflater)) {
			deflater.end();
		}
	}

	private static void release(Inflater inflater) {
		inflater.reset();
		if (!INFLATERS.offer(inflater)) {
			inflater.end();
		}
	}

	private static int writeVarint(byte[] out, int value) {
		int pos = 0;
		while ((value & ~0x7F) != 0) {
			out[pos++] = (byte) ((value & 0x7F) | 0x80);
			value >>>= 7;
		}
		out[pos++] = (byte) value;
		return pos;
	}

	private static int readVarint(byte[] in) {
		int value = 0;
		for (int pos = 0, shift = 0;; pos++, shift += 7) {
			byte b = in[pos];
			value |= (b & 0x7F) << shift;
			if (b >= 0) {
				return value;
			}
		}
	}

	private static int varintSize(int value) {
		int size = 1;
		while ((value & ~0x7F) != 0) {
			value >>>= 7;
			size++;
		}
		return size;
	}

}
