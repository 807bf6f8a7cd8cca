package dev.listwatch.client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectCompressor;
import dev.listwatch.ObjectList;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Status;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.exc.IgnoredPropertyException;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

/**
 * Decodes watch events and list pages in one pass over their bytes: the envelope and each
 * object's metadata are read by a {@link JsonScanner}, everything else is skipped by a byte scan
 * (not tokenized: a syntax error deep inside a skipped value, such as a missing colon in
 * {@code spec}, surfaces only when the object is bound or parsed), and each object keeps its own
 * bytes (without {@code metadata.managedFields} unless asked to keep them). Objects bound
 * to a Java type other than {@link KubernetesObject} are bound leanly (see {@link TypedBinding}:
 * read-only untyped maps and lists, shared strings, the metadata read here), in one pass where
 * they can be (Jackson reads them from where they start, the metadata read here in place of
 * theirs, and says where they end), else from their own bytes afterwards, and the bytes dropped. A list page
 * is decoded as it streams in, item by item, never held whole.
 * <p>
 * An object the server has that cannot be held, because it does not bind to the Java type or is
 * larger than the size limit, is never dropped: it is handed up with its metadata as an
 * {@link UnbindableObject} (in a {@link WatchEvent#unbindable} event, or in
 * {@link ObjectList#unbindable()}), which says where and why, never with the value (Jackson's
 * messages quote it, and they reach no message, log or status from here).
 * Thread-safe.
 *
 * @param <T> the Java type of the objects
 */
final class ObjectDecoder<T> {

	static final String INITIAL_EVENTS_END = "k8s.io/initial-events-end";

	static final String PARTIAL_OBJECT_METADATA = "PartialObjectMetadata";

	static final String PARTIAL_OBJECT_METADATA_LIST = "PartialObjectMetadataList";

	private static final byte[] TYPE = ascii("type");

	private static final byte[] OBJECT = ascii("object");

	private static final byte[] METADATA = ascii("metadata");

	private static final byte[] ITEMS = ascii("items");

	private static final byte[] KIND = ascii("kind");

	private static final byte[] API_VERSION = ascii("apiVersion");

	private static final byte[] NAME = ascii("name");

	private static final byte[] NAMESPACE = ascii("namespace");

	private static final byte[] UID = ascii("uid");

	private static final byte[] RESOURCE_VERSION = ascii("resourceVersion");

	private static final byte[] CONTINUE = ascii("continue");

	private static final byte[] REMAINING_ITEM_COUNT = ascii("remainingItemCount");

	private static final byte[] LABELS = ascii("labels");

	private static final byte[] ANNOTATIONS = ascii("annotations");

	private static final byte[] MANAGED_FIELDS = ascii("managedFields");

	private static final byte[] INITIAL_EVENTS_END_BYTES = ascii(INITIAL_EVENTS_END);

	private static final JsonFactory FACTORY = JsonFactory.builder().build();

	private static final int POOL_LIMIT = 4096;

	/** The buffer of a list's bytes to begin with: some dozens of typical items per read. */
	private static final int LIST_BUFFER = 256 * 1024;

	/** A list's member or item separator: the object or array ended. */
	private static final Integer LIST_END = 0;

	/** A list's member: {@code "items":[}. */
	private static final Integer ITEMS_START = 1;

	/** A list's member read (or skipped) whole; or an item follows. */
	private static final Integer READ = 2;

	private final Class<T> type;

	/** Binds the objects of a type other than {@link KubernetesObject}; {@code null} for that. */
	private final @Nullable TypedBinding<T> binding;

	private final boolean keepManagedFields;

	/**
	 * Whether a typed watch's event objects are bound in one pass (see {@link #bindInOnePass}):
	 * until the type turns out to bind its metadata itself. Racy and safe: a stale value only
	 * costs one more try.
	 */
	private boolean onePass = true;

	/**
	 * Whether objects are {@code PartialObjectMetadata} (a metadata-only list-watch): lists must be
	 * {@code PartialObjectMetadataList}s and event objects {@code PartialObjectMetadata}.
	 */
	private final boolean metadataOnly;

	/** Shares the strings that repeat across objects (namespaces, label keys and values, kinds). */
	private final Map<String, String> pool = new ConcurrentHashMap<>();

	/** Shares the label sets that repeat across objects (the Pods of one ReplicaSet). */
	private final Map<Map<String, String>, Map<String, String>> labelPool = new ConcurrentHashMap<>();

	/** Compresses the JSON of {@link KubernetesObject}s, or {@code null} to hold it as it is. */
	private final ObjectCompressor compressor;

	ObjectDecoder(Class<T> type, ObjectMapper mapper, boolean keepManagedFields) {
		this(type, mapper, keepManagedFields, false);
	}

	ObjectDecoder(Class<T> type, ObjectMapper mapper, boolean keepManagedFields, boolean metadataOnly) {
		this(type, mapper, keepManagedFields, metadataOnly, null);
	}

	ObjectDecoder(Class<T> type, ObjectMapper mapper, boolean keepManagedFields, boolean metadataOnly,
			ObjectCompressor compressor) {
		this.compressor = compressor;
		this.type = type;
		this.keepManagedFields = keepManagedFields;
		this.metadataOnly = metadataOnly;
		this.binding = (type == KubernetesObject.class || type == Object.class) ? null
				: new TypedBinding<>(mapper, type);
	}

	boolean metadataOnly() {
		return this.metadataOnly;
	}

	/** Whether {@link KubernetesObject}s hold their JSON compressed. */
	boolean compressesObjects() {
		return this.compressor != null && (this.type == KubernetesObject.class || this.type == Object.class);
	}

	Class<T> type() {
		return this.type;
	}

	/**
	 * Decodes one watch event.
	 * @param buf the bytes
	 * @param off where the event starts
	 * @param len its length
	 * @return the event
	 * @throws DecodeException when the bytes are not a watch event
	 */
	WatchEvent<T> decodeEvent(byte[] buf, int off, int len) {
		int[] end = new int[1];
		WatchEvent<T> event = decodeEvent(buf, off, off + len, end);
		try {
			new JsonScanner(buf, end[0], off + len - end[0]).expectEnd();
		}
		catch (DecodeException ex) {
			throw new DecodeException("a watch event is not valid JSON: " + ex.getMessage(), ex);
		}
		return event;
	}

	/**
	 * Decodes the watch event that starts at {@code off}, reading no further than {@code limit}.
	 * @param buf the bytes
	 * @param off where the event starts
	 * @param limit where the bytes read so far end
	 * @param end receives where the event ends
	 * @return the event
	 * @throws JsonScanner.Incomplete when the event goes on past {@code limit}
	 * @throws DecodeException when the bytes are not a watch event, or an ERROR event's object is
	 * not a {@code Status}
	 */
	WatchEvent<T> decodeEvent(byte[] buf, int off, int limit, int[] end) {
		JsonScanner json = new JsonScanner(buf, off, limit - off);
		String type = null;
		Scan object = null;
		// the object when bound in one pass (see bindInOnePass)
		T value = null;
		OnePass<T> bound;
		try {
			json.beginObject();
			for (int key = json.nextKey(true); key >= 0; key = json.nextKey(false)) {
				if (json.keyIs(key, TYPE)) {
					type = json.stringOrSkip();
				}
				else if (json.keyIs(key, OBJECT) && json.peek() == '{' && object == null
						&& ("MODIFIED".equals(type) || "ADDED".equals(type) || "DELETED".equals(type))
						&& (bound = bindInOnePass(buf, off, json.position(), limit)) != null) {
					object = bound.scan;
					value = bound.value;
					json = new JsonScanner(buf, off + object.end, limit - off - object.end);
				}
				else if (json.keyIs(key, OBJECT) && json.peek() == '{') {
					value = null;
					object = new Scan(this.pool, this.labelPool);
					// only a bookmark's annotations matter; the type usually comes first
					object.readAnnotations = (type == null) || "BOOKMARK".equals(type);
					object.start = json.position() - off;
					scanObject(json, object);
					object.end = json.position() - off;
				}
				else {
					json.skipValue();
				}
			}
			end[0] = json.position();
		}
		catch (JsonScanner.Incomplete ex) {
			throw ex;
		}
		catch (DecodeException ex) {
			throw new DecodeException("a watch event is not valid JSON: " + ex.getMessage(), ex);
		}
		if (type == null) {
			throw new DecodeException("a watch event without a \"type\"");
		}
		if (object == null) {
			String named = truncate(type);
			throw new DecodeException(
					(startsWithVowel(named) ? "an " : "a ") + named + " watch event without an \"object\"");
		}
		WatchEvent.Type eventType = eventType(type);
		return switch (eventType) {
			case ERROR -> {
				Status status = decodeStatus(buf, off + object.start, object.end - object.start);
				if (status == null) {
					// an ERROR event stands for its Status: without one it says nothing that can be acted on
					throw new DecodeException("an ERROR watch event whose object is not a Status");
				}
				yield new WatchEvent<>(eventType, null, null, status, false);
			}
			case BOOKMARK -> new WatchEvent<>(eventType, null, object.meta(), null, object.initialEventsEnd);
			default -> {
				if (this.metadataOnly && !PARTIAL_OBJECT_METADATA.equals(object.kind)) {
					throw notMetadataOnly((startsWithVowel(type) ? "an " : "a ") + type + " watch event's object", object.kind,
							PARTIAL_OBJECT_METADATA);
				}
				ObjectMeta meta = object.meta();
				if (value != null) {
					yield new WatchEvent<>(eventType, value, meta, null, false);
				}
				try {
					yield new WatchEvent<>(eventType, bind(object, meta, buf, off), meta, null, false);
				}
				catch (NotBindable ex) {
					// the event is sound but its object does not fit the Java type: say so and go on
					yield WatchEvent.unbindable(eventType, ex.unbindable);
				}
			}
		};
	}

	/**
	 * Binds a typed watch's object in one pass over its bytes (a list item, or the object of an
	 * ADDED, MODIFIED or DELETED event whose {@code type} came first, as the API server writes it): the
	 * object's envelope and metadata are read up to the end of its {@code metadata} (which the API
	 * server writes before {@code spec}), and Jackson binds the object from its start with
	 * {@code {}} in place of the metadata (which the binding takes as read here, see
	 * {@link TypedBinding}) and tells where it ends, so that the rest of the object is neither
	 * skipped first nor copied. Anything else (no binding, another event type, the metadata after
	 * the rest or missing, a type that binds its {@code metadata} itself, an object that does not
	 * bind or is not whole in the bytes) is left to the usual two passes, which decide how it ends.
	 * @param buf the bytes
	 * @param off where the event (or item) starts: the scan's positions are relative to it
	 * @param start where the object starts (its '{')
	 * @param limit where the bytes read end
	 * @return the object bound and its scan (its end set), or {@code null}
	 */
	private @Nullable OnePass<T> bindInOnePass(byte[] buf, int off, int start, int limit) {
		TypedBinding<T> binding = this.binding;
		if (binding == null || !this.onePass || this.metadataOnly) {
			return null;
		}
		Scan scan = new Scan(this.pool, this.labelPool);
		scan.start = start - off;
		int metadataStart = -1;
		int metadataEnd = -1;
		try {
			JsonScanner json = new JsonScanner(buf, start, limit - start);
			json.beginObject();
			// the envelope's apiVersion and kind are not read: only untyped and metadata-only objects,
			// which never come here, keep or check them
			for (int key = json.nextKey(true); key >= 0; key = json.nextKey(false)) {
				if (json.keyIs(key, METADATA) && json.peek() == '{') {
					metadataStart = json.position();
					scanMetadata(json, scan);
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
		long[] consumed = new long[1];
		T value;
		try {
			value = binding.bind(new WithoutMetadata(buf, start, metadataStart, metadataEnd, limit), meta, consumed);
		}
		catch (JacksonException ex) {
			// does not bind, or is not whole here: the usual passes report it as they always have
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

	/** An object bound in one pass, and what was read of it. */
	private record OnePass<T>(Scan scan, T value) {
	}

	/**
	 * An object's bytes up to {@code limit}, with {@code {}} in place of its metadata's value: what
	 * {@link #bindInOnePass} gives Jackson.
	 */
	private static final class WithoutMetadata extends InputStream {

		private static final byte[] EMPTY_OBJECT = { '{', '}' };

		private final byte[] buf;

		private final int metadataEnd;

		private final int limit;

		/** Where the next byte comes from: in buf, or in EMPTY_OBJECT while {@link #inEmpty} is not negative. */
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

	/**
	 * What to hand up for a watch event larger than the size limit, from its first bytes: an
	 * ADDED, MODIFIED or DELETED event whose object cannot be held, when the event's {@code type}
	 * and the object's metadata come before the limit (the API server writes {@code type} first
	 * and {@code metadata} before {@code spec}). The metadata counts as read when it closed before
	 * the limit, or when the limit cut it inside {@code managedFields}, which the API server writes
	 * last, with the name and resourceVersion read before it.
	 * @param buf the bytes
	 * @param off where the event starts
	 * @param limit where its first bytes end (the event goes on)
	 * @param maxBytes the size limit, for the reason
	 * @return the event, or {@code null} when its first bytes do not tell its type and metadata,
	 * or it is a BOOKMARK or an ERROR
	 */
	WatchEvent<T> decodeOversizedEvent(byte[] buf, int off, int limit, int maxBytes) {
		JsonScanner json = new JsonScanner(buf, off, limit - off);
		String type = null;
		Scan object = null;
		try {
			json.beginObject();
			for (int key = json.nextKey(true); key >= 0; key = json.nextKey(false)) {
				if (json.keyIs(key, TYPE)) {
					type = json.stringOrSkip();
				}
				else if (json.keyIs(key, OBJECT) && json.peek() == '{' && object == null) {
					object = new Scan(this.pool, this.labelPool);
					scanObject(json, object);
				}
				else {
					json.skipValue();
				}
			}
		}
		catch (JsonScanner.Incomplete ex) {
			// as expected: the event goes on past its first bytes
		}
		catch (DecodeException ex) {
			return null;
		}
		if (type == null || object == null || !object.metadataKnown()) {
			return null;
		}
		WatchEvent.Type eventType = switch (type) {
			case "ADDED" -> WatchEvent.Type.ADDED;
			case "MODIFIED" -> WatchEvent.Type.MODIFIED;
			case "DELETED" -> WatchEvent.Type.DELETED;
			default -> null;
		};
		return (eventType != null) ? WatchEvent.unbindable(eventType, tooLarge(object.meta(), maxBytes)) : null;
	}

	private UnbindableObject tooLarge(ObjectMeta meta, int maxBytes) {
		return new UnbindableObject(meta, "", this.type.getName(),
				"larger than max-event-size (" + maxBytes + " bytes)");
	}

	/**
	 * Decodes one page of a list held in memory, without a size limit on its items.
	 * @param buf the bytes
	 * @param off where the list starts
	 * @param len its length
	 * @return the page
	 * @throws DecodeException when the bytes are not a list (or end inside it)
	 */
	ObjectList<T> decodeList(byte[] buf, int off, int len) {
		try {
			return decodeList(new ByteArrayInputStream(buf, off, len), Integer.MAX_VALUE - 8, len + 1);
		}
		catch (IOException ex) {
			// nothing to read but the bytes: the list ended inside
			throw new DecodeException("a list is not valid JSON: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Decodes one page of a list as its bytes stream in: the list's {@code metadata} (before or after
	 * {@code items}) and its items one at a time, each with its own bytes, through a buffer that
	 * holds about one item (never more than {@code maxItemBytes} and one read), so that a page of
	 * any size is never held whole. An item larger than {@code maxItemBytes} is handed up as an
	 * {@link UnbindableObject}, its metadata read from its first bytes and the rest skipped as it
	 * arrives (see {@link #decodeOversizedEvent}); when its metadata cannot be read, the list fails.
	 * Reads the stream to its end.
	 * @param in the body
	 * @param maxItemBytes the size limit of one item (and of any other member of the list)
	 * @return the page
	 * @throws IOException when reading fails, or the stream ends inside the list
	 * ({@link java.io.EOFException})
	 * @throws JsonFrameReader.MalformedFrameException when an item is too large and its metadata
	 * cannot be read, or another member of the list is too large
	 * @throws DecodeException when the bytes are not a list
	 */
	ObjectList<T> decodeList(InputStream in, int maxItemBytes) throws IOException {
		return decodeList(in, maxItemBytes, (int) Math.min(LIST_BUFFER, (long) maxItemBytes + 1));
	}

	private ObjectList<T> decodeList(InputStream in, int maxItemBytes, int initialCapacity) throws IOException {
		JsonFrameReader reader = new JsonFrameReader(in, maxItemBytes, initialCapacity);
		ListDecoding list = new ListDecoding(maxItemBytes);
		try {
			reader.read(list::open, null, "a list");
			for (boolean first = true;; first = false) {
				list.firstMember = first;
				Integer member = reader.read(list::member, null, "a list");
				if (member == LIST_END) {
					break;
				}
				if (member == ITEMS_START) {
					list.items = new ArrayList<>();
					for (boolean firstItem = true;; firstItem = false) {
						list.firstItem = firstItem;
						if (reader.read(list::separator, null, "a list") == LIST_END) {
							break;
						}
						reader.read(list::item, list::oversizedItem, "a list item").addTo(list);
					}
				}
			}
			if (!reader.atEnd()) {
				throw new DecodeException("expected the end after the list");
			}
		}
		catch (DecodeException ex) {
			throw new DecodeException("a list is not valid JSON: " + ex.getMessage(), ex);
		}
		if (list.items == null) {
			throw new DecodeException("expected a list with \"items\" but got "
					+ ((list.kind != null) ? "a " + list.kind : "an object without them"));
		}
		if (this.metadataOnly && !PARTIAL_OBJECT_METADATA_LIST.equals(list.kind)) {
			throw notMetadataOnly("the list", list.kind, PARTIAL_OBJECT_METADATA_LIST);
		}
		return new ObjectList<>(list.items, list.resourceVersion, list.continueToken, list.remaining, list.unbindable);
	}

	/**
	 * Decodes a {@code Status} object, leniently.
	 * @param buf the bytes
	 * @param off where it starts
	 * @param len its length
	 * @return the status, or {@code null} when the bytes are not a JSON object
	 */
	static Status decodeStatus(byte[] buf, int off, int len) {
		try (JsonParser p = FACTORY.createParser(ObjectReadContext.empty(), buf, off, len)) {
			if (p.nextToken() != JsonToken.START_OBJECT) {
				return null;
			}
			int code = 0;
			String reason = null;
			String message = null;
			while (p.nextToken() == JsonToken.PROPERTY_NAME) {
				String field = p.currentName();
				JsonToken value = p.nextToken();
				if ("code".equals(field) && value == JsonToken.VALUE_NUMBER_INT) {
					code = p.getIntValue();
				}
				else if ("reason".equals(field) && value == JsonToken.VALUE_STRING) {
					reason = p.getString();
				}
				else if ("message".equals(field) && value == JsonToken.VALUE_STRING) {
					message = p.getString();
				}
				else {
					p.skipChildren();
				}
			}
			return new Status(code, reason, message);
		}
		catch (JacksonException ex) {
			return null;
		}
	}

	/**
	 * Binds an object to the Java type.
	 * @throws NotBindable when it does not bind: what failed and where, without the value
	 */
	private T bind(Scan scan, ObjectMeta meta, byte[] buf, int off) {
		byte[] json = scan.bytes(buf, off, this.keepManagedFields);
		TypedBinding<T> binding = this.binding;
		if (binding == null) {
			if (compressesObjects()) {
				// compressed here, on the watch's reading thread
				return this.type.cast(this.compressor.object(meta, intern(scan.apiVersion, this.pool),
						intern(scan.kind, this.pool), json));
			}
			KubernetesObject object = KubernetesObject.of(meta, intern(scan.apiVersion, this.pool),
					intern(scan.kind, this.pool), json);
			return this.type.cast(object);
		}
		try {
			// straight from the bytes, no KubernetesObject in between (see TypedBinding)
			return binding.bind(json, meta);
		}
		catch (JacksonException ex) {
			// never the exception itself, nor its message: Jackson's messages quote the value
			throw new NotBindable(unbindable(meta, ex));
		}
	}

	/**
	 * What could not be bound, from Jackson's exception, never with the value it found there.
	 * @param meta the object's metadata
	 * @param ex why binding failed
	 * @return the path of the value that failed, the target type and a reason without the value
	 */
	UnbindableObject unbindable(ObjectMeta meta, JacksonException ex) {
		return new UnbindableObject(meta, pointer(ex), this.type.getName(), reason(ex, this.type));
	}

	/**
	 * The JSON pointer (RFC 6901) of the value that failed, from the exception's path: property
	 * names and array indexes, for example {@code /spec/items/3/name}.
	 * @param ex the exception
	 * @return the pointer, {@code ""} when the exception has no path
	 */
	static String pointer(JacksonException ex) {
		StringBuilder pointer = new StringBuilder();
		for (JacksonException.Reference reference : ex.getPath()) {
			String name = reference.getPropertyName();
			if (name != null) {
				pointer.append('/').append(name.replace("~", "~0").replace("/", "~1"));
			}
			else if (reference.getIndex() >= 0) {
				pointer.append('/').append(reference.getIndex());
			}
		}
		return pointer.toString();
	}

	/**
	 * Why a value did not bind, without the value: Jackson's own messages quote it (for example
	 * {@code Cannot deserialize value of type X from String "..."}).
	 * @param ex the exception
	 * @param type the type the object was bound to
	 * @return the reason
	 */
	static String reason(JacksonException ex, Class<?> type) {
		if (ex instanceof InvalidFormatException invalid) {
			return "not a valid value of " + simpleName(invalid.getTargetType(), type);
		}
		if (ex instanceof UnrecognizedPropertyException) {
			return "unknown property";
		}
		if (ex instanceof IgnoredPropertyException) {
			return "a property the type ignores";
		}
		if (ex instanceof MismatchedInputException mismatched) {
			return "a value of the wrong shape for " + simpleName(mismatched.getTargetType(), type);
		}
		return ex.getClass().getSimpleName();
	}

	private static String simpleName(Class<?> target, Class<?> fallback) {
		return ((target != null) ? target : fallback).getSimpleName();
	}

	/** Reads an object's envelope and metadata, skipping the rest; ends after its '}'. */
	private static void scanObject(JsonScanner json, Scan scan) {
		json.beginObject();
		for (int key = json.nextKey(true); key >= 0; key = json.nextKey(false)) {
			if (json.keyIs(key, API_VERSION)) {
				scan.apiVersion = json.stringOrSkip();
			}
			else if (json.keyIs(key, KIND)) {
				scan.kind = json.stringOrSkip();
			}
			else if (json.keyIs(key, METADATA) && json.peek() == '{') {
				scanMetadata(json, scan);
			}
			else {
				json.skipValue();
			}
		}
	}

	private static void scanMetadata(JsonScanner json, Scan scan) {
		json.beginObject();
		for (int key = json.nextKey(true); key >= 0; key = json.nextKey(false)) {
			if (json.keyIs(key, NAME)) {
				scan.name = json.stringOrSkip();
			}
			else if (json.keyIs(key, NAMESPACE)) {
				scan.namespace = json.stringOrSkip();
			}
			else if (json.keyIs(key, UID)) {
				scan.uid = json.stringOrSkip();
			}
			else if (json.keyIs(key, RESOURCE_VERSION)) {
				scan.resourceVersion = json.stringOrSkip();
			}
			else if (json.keyIs(key, LABELS) && json.peek() == '{') {
				// kept as the cached object's labels: small, as most objects have a few
				Map<String, String> labels = new HashMap<>(8);
				json.beginObject();
				for (int k = json.nextKey(true); k >= 0; k = json.nextKey(false)) {
					String label = json.key(k);
					String value = json.stringOrSkip();
					if (value != null) {
						labels.put(intern(label, scan.pool), intern(value, scan.pool));
					}
				}
				scan.labels = labels;
			}
			else if (json.keyIs(key, ANNOTATIONS) && scan.readAnnotations && json.peek() == '{') {
				json.beginObject();
				for (int k = json.nextKey(true); k >= 0; k = json.nextKey(false)) {
					if (json.keyIs(k, INITIAL_EVENTS_END_BYTES)) {
						scan.initialEventsEnd = "true".equals(json.stringOrSkip());
					}
					else {
						json.skipValue();
					}
				}
			}
			else if (json.keyIs(key, MANAGED_FIELDS)) {
				scan.managedStart = key - 1;
				scan.inManagedFields = true;
				json.skipValue();
				scan.inManagedFields = false;
				scan.managedEnd = json.position();
			}
			else {
				json.skipValue();
			}
		}
		scan.metadataRead = true;
	}

	/**
	 * A metadata-only list-watch got something else: the server (or something between) did not
	 * honour the {@code Accept} header.
	 */
	private static DecodeException notMetadataOnly(String what, String kind, String expected) {
		return new DecodeException(what + " is " + ((kind != null) ? "a " + truncate(kind) : "an object without a kind")
				+ ", not a " + expected + " as a metadata-only list-watch asks: the server does not serve this "
				+ "resource's metadata alone");
	}

	private static WatchEvent.Type eventType(String type) {
		return switch (type) {
			case "ADDED" -> WatchEvent.Type.ADDED;
			case "MODIFIED" -> WatchEvent.Type.MODIFIED;
			case "DELETED" -> WatchEvent.Type.DELETED;
			case "BOOKMARK" -> WatchEvent.Type.BOOKMARK;
			case "ERROR" -> WatchEvent.Type.ERROR;
			default -> throw new DecodeException("an unknown watch event type \"" + truncate(type) + "\"");
		};
	}

	private static boolean startsWithVowel(String text) {
		return !text.isEmpty() && "AEIOUaeiou".indexOf(text.charAt(0)) >= 0;
	}

	private static String truncate(String text) {
		return (text.length() > 40) ? text.substring(0, 40) + "..." : text;
	}

	private static byte[] ascii(String text) {
		return text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
	}

	static String intern(String value, Map<String, String> pool) {
		if (value == null) {
			return null;
		}
		String shared = pool.get(value);
		if (shared != null) {
			return shared;
		}
		if (pool.size() < POOL_LIMIT) {
			pool.putIfAbsent(value, value);
		}
		return value;
	}

	/**
	 * The state of one list being decoded, and its parts as {@link JsonFrameReader.FrameDecoder}s:
	 * each reads one part from where the last ended, and may be tried again from there with more
	 * bytes (so it sets fields only as it goes and sets them again on a new try).
	 */
	private final class ListDecoding {

		final int maxItemBytes;

		boolean firstMember;

		boolean firstItem;

		String resourceVersion;

		String continueToken;

		Long remaining;

		String kind;

		List<ObjectList.Item<T>> items;

		final List<UnbindableObject> unbindable = new ArrayList<>();

		ListDecoding(int maxItemBytes) {
			this.maxItemBytes = maxItemBytes;
		}

		/** The list's opening brace. */
		Integer open(byte[] buf, int start, int limit, int[] end) {
			JsonScanner json = new JsonScanner(buf, start, limit - start);
			json.beginObject();
			end[0] = json.position();
			return READ;
		}

		/**
		 * The next member of the list: its metadata read, its kind read, {@code "items":[} (the
		 * items follow), or any other member skipped; {@link #LIST_END} after the list's '}'.
		 */
		Integer member(byte[] buf, int start, int limit, int[] end) {
			JsonScanner json = new JsonScanner(buf, start, limit - start);
			int key = json.nextKey(this.firstMember);
			Integer result = READ;
			if (key < 0) {
				result = LIST_END;
			}
			else if (json.keyIs(key, METADATA) && json.peek() == '{') {
				json.beginObject();
				for (int k = json.nextKey(true); k >= 0; k = json.nextKey(false)) {
					if (json.keyIs(k, RESOURCE_VERSION)) {
						this.resourceVersion = json.stringOrSkip();
					}
					else if (json.keyIs(k, CONTINUE)) {
						this.continueToken = json.stringOrSkip();
					}
					else if (json.keyIs(k, REMAINING_ITEM_COUNT)) {
						this.remaining = json.longOrSkip();
					}
					else {
						json.skipValue();
					}
				}
			}
			else if (json.keyIs(key, ITEMS) && json.peek() == '[') {
				json.expect('[');
				result = ITEMS_START;
			}
			else if (json.keyIs(key, ITEMS) && json.peek() == 'n') {
				json.skipValue();
				this.items = new ArrayList<>();
			}
			else if (json.keyIs(key, KIND)) {
				this.kind = json.stringOrSkip();
			}
			else {
				json.skipValue();
			}
			end[0] = json.position();
			return result;
		}

		/** Up to the next item's '{' (after a ','), or {@link #LIST_END} after the items' ']'. */
		Integer separator(byte[] buf, int start, int limit, int[] end) {
			JsonScanner json = new JsonScanner(buf, start, limit - start);
			int c = json.peek();
			if (c == ']') {
				json.expect(']');
				end[0] = json.position();
				return LIST_END;
			}
			if (!this.firstItem) {
				json.expect(',');
				c = json.peek();
			}
			if (c != '{') {
				throw json.error("expected an object in \"items\"");
			}
			end[0] = json.position();
			return READ;
		}

		/** One item, from its '{': bound, or what could not be bound; {@code null} when too large. */
		Decoded<T> item(byte[] buf, int start, int limit, int[] end) {
			OnePass<T> bound = bindInOnePass(buf, start, start, limit);
			if (bound != null) {
				end[0] = start + bound.scan.end;
				// over the limit: not held, as below
				return (bound.scan.end > this.maxItemBytes) ? null
						: new Decoded<>(new ObjectList.Item<>(bound.scan.meta(), bound.value), null);
			}
			JsonScanner json = new JsonScanner(buf, start, limit - start);
			Scan item = new Scan(ObjectDecoder.this.pool, ObjectDecoder.this.labelPool);
			scanObject(json, item);
			item.end = json.position() - start;
			end[0] = json.position();
			if (item.end > this.maxItemBytes) {
				// not worth binding: the reader hands it to oversizedItem
				return null;
			}
			ObjectMeta meta = item.meta();
			try {
				return new Decoded<>(new ObjectList.Item<>(meta, bind(item, meta, buf, start)), null);
			}
			catch (NotBindable ex) {
				// one object that does not fit the Java type must neither stop the whole list nor go
				// missing from it (it would look deleted): it is handed up as such
				return new Decoded<>(null, ex.unbindable);
			}
		}

		/** An item over the limit, from its first bytes: its metadata, if they hold it. */
		Decoded<T> oversizedItem(byte[] buf, int start, int limit) {
			JsonScanner json = new JsonScanner(buf, start, limit - start);
			Scan item = new Scan(ObjectDecoder.this.pool, ObjectDecoder.this.labelPool);
			try {
				scanObject(json, item);
			}
			catch (JsonScanner.Incomplete ex) {
				// as expected: the item goes on past its first bytes
			}
			catch (DecodeException ex) {
				return null;
			}
			if (!item.metadataKnown()) {
				return null;
			}
			ObjectMeta meta = item.meta();
			return new Decoded<>(null, tooLarge(meta, this.maxItemBytes));
		}

	}

	/**
	 * One item of a list: the object bound, or what could not be held.
	 *
	 * @param object the object, or {@code null}
	 * @param meta its metadata
	 * @param unbindable what could not be held, or {@code null}
	 */
	/** A list item decoded: the item, or what keeps it from being held. */
	private record Decoded<T>(ObjectList.Item<T> item, UnbindableObject unbindable) {

		void addTo(ObjectDecoder<T>.ListDecoding list) {
			if (this.unbindable != null) {
				list.unbindable.add(this.unbindable);
			}
			else {
				list.items.add(this.item);
			}
		}

	}

	/**
	 * An object does not bind to the Java type. Control flow inside the decoder, always caught: it
	 * has no cause (Jackson's exception, whose message quotes the value) and no stack trace.
	 */
	static final class NotBindable extends DecodeException {

		final transient UnbindableObject unbindable;

		NotBindable(UnbindableObject unbindable) {
			// the catch sites read the object, never a message
			super(null, false);
			this.unbindable = unbindable;
		}

	}

	/** What one pass over an object found. */
	private static final class Scan {

		/** Shares the strings that repeat across objects (see {@link ObjectDecoder#intern}). */
		final Map<String, String> pool;

		int start;

		int end;

		int managedStart = -1;

		int managedEnd = -1;

		String apiVersion;

		String kind;

		String namespace;

		String name;

		String uid;

		String resourceVersion;

		Map<String, String> labels;

		boolean initialEventsEnd;

		boolean readAnnotations;

		/** Whether the object's metadata was read up to its closing brace. */
		boolean metadataRead;

		/** Whether the scan is inside {@code metadata.managedFields}. */
		boolean inManagedFields;

		/** Shares the label sets that repeat across objects. */
		final Map<Map<String, String>, Map<String, String>> labelPool;

		Scan(Map<String, String> pool, Map<Map<String, String>, Map<String, String>> labelPool) {
			this.pool = pool;
			this.labelPool = labelPool;
		}

		/**
		 * Whether the metadata is known, from a scan that may have stopped early: read whole, or
		 * cut inside managedFields (written last by the API server) with name and resourceVersion
		 * read before it.
		 */
		boolean metadataKnown() {
			return this.metadataRead
					|| (this.inManagedFields && this.name != null && this.resourceVersion != null);
		}

		/** The metadata once made (see {@link #meta()}). */
		ObjectMeta readMeta;

		ObjectMeta meta() {
			if (this.readMeta != null) {
				return this.readMeta;
			}
			Map<String, String> labels;
			if (this.labels == null || this.labels.isEmpty()) {
				labels = Map.of();
			}
			else {
				// one immutable map for each set of labels that repeats (the Pods of one ReplicaSet)
				labels = this.labelPool.get(this.labels);
				if (labels == null) {
					labels = Map.copyOf(this.labels);
					if (this.labelPool.size() < POOL_LIMIT) {
						Map<String, String> shared = this.labelPool.putIfAbsent(labels, labels);
						labels = (shared != null) ? shared : labels;
					}
				}
			}
			return new ObjectMeta(intern(this.namespace, this.pool), this.name, this.uid, this.resourceVersion, labels);
		}

		/** The object's bytes, with managedFields cut out unless they are to be kept. */
		byte[] bytes(byte[] buf, int off, boolean keepManagedFields) {
			int from = off + this.start;
			int to = off + this.end;
			if (keepManagedFields || this.managedStart < 0) {
				return java.util.Arrays.copyOfRange(buf, from, to);
			}
			int cutFrom = this.managedStart;
			int cutTo = this.managedEnd;
			int i = cutFrom - 1;
			while (i > from && isSpace(buf[i])) {
				i--;
			}
			if (buf[i] == ',') {
				cutFrom = i;
			}
			else {
				int j = cutTo;
				while (j < to && isSpace(buf[j])) {
					j++;
				}
				if (j < to && buf[j] == ',') {
					cutTo = j + 1;
				}
			}
			byte[] out = new byte[(cutFrom - from) + (to - cutTo)];
			System.arraycopy(buf, from, out, 0, cutFrom - from);
			System.arraycopy(buf, cutTo, out, cutFrom - from, to - cutTo);
			return out;
		}

		private static boolean isSpace(byte b) {
			return b == ' ' || b == '\n' || b == '\r' || b == '\t';
		}

	}

}
