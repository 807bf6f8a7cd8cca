package dev.listwatch.client;

import java.io.InputStream;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectCompressor;
import dev.listwatch.ObjectMeta;
import dev.listwatch.UnbindableObject;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;

/**
 * Makes the Java object of one scanned object ({@link ObjectScan}): a
 * {@link KubernetesObject} that keeps the object's own bytes (without
 * {@code metadata.managedFields} unless asked to keep them; compressed when an
 * {@link ObjectCompressor} is given), or an object of another Java type bound leanly (see
 * {@link TypedBinding}: read-only untyped maps and lists, shared strings, the metadata as
 * scanned), in one pass where it can be ({@link #bindInOnePass}: a record that binds
 * without Jackson is read from where it starts, the scanned metadata in place of its own
 * (see {@link DirectBinding}), else Jackson reads it so and says where it ends), else
 * from its own bytes afterwards ({@link #bind}). An object that does not bind is never
 * handed up with its value: {@link NotBindable} carries what failed and where, in the
 * words of {@link DecodeMessages}. Thread-safe.
 *
 * @param <T> the Java type of the objects
 */
final class ObjectBinder<T> {

	private static final byte[] METADATA = ObjectScan.ascii("metadata");

	private final Class<T> type;

	/**
	 * Binds the objects of a type other than {@link KubernetesObject}; {@code null} for
	 * that.
	 */
	private final @Nullable TypedBinding<T> binding;

	private final boolean keepManagedFields;

	/**
	 * Whether a typed watch's event objects are bound in one pass (see
	 * {@link #bindInOnePass}): until the type turns out to bind its metadata itself. Racy
	 * and safe: a stale value only costs one more try.
	 */
	private boolean onePass = true;

	/**
	 * Whether objects are {@code PartialObjectMetadata} (a metadata-only list-watch):
	 * lists must be {@code PartialObjectMetadataList}s and event objects
	 * {@code PartialObjectMetadata}.
	 */
	private final boolean metadataOnly;

	/** Shares the strings that repeat across objects (apiVersions and kinds here). */
	private final Interner interner;

	/**
	 * Compresses the JSON of {@link KubernetesObject}s, or {@code null} to hold it as it
	 * is.
	 */
	private final @Nullable ObjectCompressor compressor;

	ObjectBinder(Class<T> type, ObjectMapper mapper, boolean keepManagedFields, boolean metadataOnly,
			@Nullable ObjectCompressor compressor, Interner interner) {
		this.compressor = compressor;
		this.type = type;
		this.keepManagedFields = keepManagedFields;
		this.metadataOnly = metadataOnly;
		this.interner = interner;
		this.binding = (type == KubernetesObject.class || type == Object.class) ? null
				: new TypedBinding<>(mapper, type);
	}

	Class<T> type() {
		return this.type;
	}

	boolean metadataOnly() {
		return this.metadataOnly;
	}

	/** Whether {@link KubernetesObject}s hold their JSON compressed. */
	boolean compressesObjects() {
		return this.compressor != null && (this.type == KubernetesObject.class || this.type == Object.class);
	}

	/**
	 * Binds a typed watch's object in one pass over its bytes (a list item, or the object
	 * of an ADDED, MODIFIED or DELETED event whose {@code type} came first, as the API
	 * server writes it): the object's envelope and metadata are read up to the end of its
	 * {@code metadata} (which the API server writes before {@code spec}), and Jackson
	 * binds the object from its start with {@code {}} in place of the metadata (which the
	 * binding takes as read here, see {@link TypedBinding}) and tells where it ends, so
	 * that the rest of the object is neither skipped first nor copied. Anything else (no
	 * binding, another event type, the metadata after the rest or missing, a type that
	 * binds its {@code metadata} itself, an object that does not bind or is not whole in
	 * the bytes) is left to the usual two passes, which decide how it ends.
	 * @param buf the bytes
	 * @param off where the event (or item) starts: the scan's positions are relative to
	 * it
	 * @param start where the object starts (its '{')
	 * @param limit where the bytes read end
	 * @return the object bound and its scan (its end set), or {@code null}
	 */
	@Nullable OnePass<T> bindInOnePass(byte[] buf, int off, int start, int limit) {
		TypedBinding<T> binding = this.binding;
		if (binding == null || !this.onePass || this.metadataOnly) {
			return null;
		}
		ObjectScan scan = new ObjectScan(this.interner);
		scan.start = start - off;
		int metadataStart = -1;
		int metadataEnd = -1;
		try {
			JsonScanner json = new JsonScanner(buf, start, limit - start);
			json.beginObject();
			// the envelope's apiVersion and kind are not read: only untyped and
			// metadata-only objects, which never come here, keep or check them
			for (int key = json.nextKey(true); key >= 0; key = json.nextKey(false)) {
				if (json.keyIs(key, METADATA) && json.peek() == '{') {
					metadataStart = json.position();
					scan.readMetadata(json);
					metadataEnd = json.position();
					break;
				}
				else {
					json.skipValue();
				}
			}
		}
		catch (DecodeException ex) {
			// including Incomplete: the usual passes say what is wrong
			return null;
		}
		if (metadataStart < 0) {
			return null;
		}
		ObjectMeta meta = scan.meta();
		DirectBinding<T> direct = binding.direct();
		if (direct != null && direct.hasMetadata()) {
			int[] end = new int[1];
			T bound = direct.bind(buf, start, limit, meta, metadataStart, metadataEnd, end);
			if (bound != null) {
				scan.end = end[0] - off;
				scan.metadataRead = true;
				scan.readMeta = meta;
				return new OnePass<>(scan, bound);
			}
			if (end[0] == DirectBinding.INCOMPLETE) {
				// the usual passes say so
				return null;
			}
		}
		long[] consumed = new long[1];
		T value;
		try {
			value = binding.bind(new WithoutMetadata(buf, start, metadataStart, metadataEnd, limit), meta, consumed);
		}
		catch (JacksonException ex) {
			// does not bind, or is not whole here: the usual passes report it as they
			// always have
			return null;
		}
		if (value == null) {
			// the type binds its metadata itself: from now on, the usual passes only
			this.onePass = false;
			return null;
		}
		long objectEnd = start + consumed[0] + (metadataEnd - metadataStart) - 2;
		if (consumed[0] <= metadataStart - start + 2 || objectEnd > limit || buf[(int) objectEnd - 1] != '}') {
			return null;
		}
		scan.end = (int) objectEnd - off;
		scan.metadataRead = true;
		scan.readMeta = meta;
		return new OnePass<>(scan, value);
	}

	/**
	 * Binds an object to the Java type.
	 * @param scan the object, scanned
	 * @param meta its metadata
	 * @param buf the bytes
	 * @param off where the scan's positions start
	 * @return the object
	 * @throws NotBindable when it does not bind: what failed and where, without the value
	 */
	T bind(ObjectScan scan, ObjectMeta meta, byte[] buf, int off) {
		byte[] json = scan.bytes(buf, off, this.keepManagedFields);
		TypedBinding<T> binding = this.binding;
		if (binding == null) {
			ObjectCompressor compressor = this.compressor;
			if (compressor != null && compressesObjects()) {
				// compressed here, on the watch's reading thread
				return this.type.cast(compressor.object(meta, this.interner.intern(scan.apiVersion),
						this.interner.intern(scan.kind), json));
			}
			KubernetesObject object = KubernetesObject.of(meta, this.interner.intern(scan.apiVersion),
					this.interner.intern(scan.kind), json);
			return this.type.cast(object);
		}
		try {
			// straight from the bytes, no KubernetesObject in between (see TypedBinding)
			return binding.bind(json, meta);
		}
		catch (JacksonException ex) {
			// never the exception itself, nor its message: Jackson's messages quote the
			// value
			throw new NotBindable(unbindable(meta, ex));
		}
	}

	/**
	 * What could not be bound, from Jackson's exception, never with the value it found
	 * there.
	 * @param meta the object's metadata
	 * @param ex why binding failed
	 * @return the path of the value that failed, the target type and a reason without the
	 * value
	 */
	UnbindableObject unbindable(ObjectMeta meta, JacksonException ex) {
		return new UnbindableObject(meta, DecodeMessages.pointer(ex), this.type.getName(),
				DecodeMessages.reason(ex, this.type));
	}

	/**
	 * What could not be held because it is larger than the size limit.
	 * @param meta the object's metadata
	 * @param maxBytes the size limit, for the reason
	 * @return the object, with an empty path
	 */
	UnbindableObject tooLarge(ObjectMeta meta, int maxBytes) {
		return new UnbindableObject(meta, "", this.type.getName(),
				"larger than max-event-size (" + maxBytes + " bytes)");
	}

	/** An object bound in one pass, and what was read of it. */
	record OnePass<T>(ObjectScan scan, T value) {
	}

	/**
	 * An object does not bind to the Java type. Control flow inside the decoder, always
	 * caught: it has no cause (Jackson's exception, whose message quotes the value) and
	 * no stack trace.
	 */
	static final class NotBindable extends DecodeException {

		final transient UnbindableObject unbindable;

		NotBindable(UnbindableObject unbindable) {
			// the catch sites read the object, never a message
			super(null, false);
			this.unbindable = unbindable;
		}

	}

	/**
	 * An object's bytes up to {@code limit}, with {@code {}} in place of its metadata's
	 * value: what {@link #bindInOnePass} gives Jackson.
	 */
	private static final class WithoutMetadata extends InputStream {

		private static final byte[] EMPTY_OBJECT = { '{', '}' };

		private final byte[] buf;

		private final int metadataEnd;

		private final int limit;

		/**
		 * Where the next byte comes from: in buf, or in EMPTY_OBJECT while
		 * {@link #inEmpty} is not negative.
		 */
		private int pos;

		/** Where the bytes in buf end for now: metadataStart, then limit. */
		private int to;

		private int inEmpty = -1;

		WithoutMetadata(byte[] buf, int start, int metadataStart, int metadataEnd, int limit) {
			this.buf = buf;
			this.pos = start;
			this.to = metadataStart;
			this.metadataEnd = metadataEnd;
			this.limit = limit;
		}

		@Override
		public int read() {
			byte[] one = new byte[1];
			return (read(one, 0, 1) < 0) ? -1 : (one[0] & 0xff);
		}

		@Override
		public int read(byte[] b, int off, int len) {
			if (len == 0) {
				return 0;
			}
			if (this.inEmpty >= 0) {
				int n = Math.min(len, EMPTY_OBJECT.length - this.inEmpty);
				System.arraycopy(EMPTY_OBJECT, this.inEmpty, b, off, n);
				this.inEmpty += n;
				if (this.inEmpty == EMPTY_OBJECT.length) {
					this.inEmpty = -1;
					this.pos = this.metadataEnd;
					this.to = this.limit;
				}
				return n;
			}
			if (this.pos >= this.to) {
				if (this.to == this.limit) {
					return -1;
				}
				// the metadata's value comes next
				this.inEmpty = 0;
				return read(b, off, len);
			}
			int n = Math.min(len, this.to - this.pos);
			System.arraycopy(this.buf, this.pos, b, off, n);
			this.pos += n;
			return n;
		}

	}

}
