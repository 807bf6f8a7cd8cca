package dev.listwatch.client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectCompressor;
import dev.listwatch.ObjectList;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Status;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;
import tools.jackson.databind.ObjectMapper;
import org.jspecify.annotations.Nullable;

/**
 * Decodes watch events and list pages in one pass over their bytes: the envelope and each
 * object's metadata are read by a {@link JsonScanner} (see {@link ObjectScan}),
 * everything else is skipped by a byte scan (not tokenized: a syntax error deep inside a
 * skipped value, such as a missing colon in {@code spec}, surfaces only when the object
 * is bound or parsed), and each object keeps its own bytes (without
 * {@code metadata.managedFields} unless asked to keep them). Objects bound to a Java type
 * other than {@link KubernetesObject} are bound leanly (see {@link TypedBinding}:
 * read-only untyped maps and lists, shared strings, the metadata read here), in one pass
 * where they can be (Jackson reads them from where they start, the metadata read here in
 * place of theirs, and says where they end), else from their own bytes afterwards, and
 * the bytes dropped (see {@link ObjectBinder}). A list page is decoded as it streams in,
 * item by item, never held whole (see {@link ListDecoding}).
 * <p>
 * An object the server has that cannot be held, because it does not bind to the Java type
 * or is larger than the size limit, is never dropped: it is handed up with its metadata
 * as an {@link UnbindableObject} (in a {@link WatchEvent#unbindable} event, or in
 * {@link ObjectList#unbindable()}), which says where and why, never with the value
 * (Jackson's messages quote it, and they reach no message, log or status from here; see
 * {@link DecodeMessages}).
 * <p>
 * This class reads the watch event's envelope ({@code type} and {@code object}) and is
 * the entry point of the decoding: the parts it hands to are {@link ObjectScan} (an
 * object's envelope and metadata), {@link ObjectBinder} (the Java object),
 * {@link ListDecoding} (a list page, streamed), {@link StatusDecoder} (an ERROR event's
 * {@code Status}) and {@link Interner} (what repeats across objects, shared by all of
 * them). Thread-safe.
 *
 * @param <T> the Java type of the objects
 */
final class ObjectDecoder<T> {

	static final String PARTIAL_OBJECT_METADATA = "PartialObjectMetadata";

	private static final byte[] TYPE = ObjectScan.ascii("type");

	private static final byte[] OBJECT = ObjectScan.ascii("object");

	/**
	 * The buffer of a list's bytes to begin with: some dozens of typical items per read.
	 */
	private static final int LIST_BUFFER = 256 * 1024;

	/** Binds the objects to the Java type. */
	private final ObjectBinder<T> binder;

	/** Shares the strings and label sets that repeat across objects. */
	private final Interner interner = new Interner();

	ObjectDecoder(Class<T> type, ObjectMapper mapper, boolean keepManagedFields) {
		this(type, mapper, keepManagedFields, false);
	}

	ObjectDecoder(Class<T> type, ObjectMapper mapper, boolean keepManagedFields, boolean metadataOnly) {
		this(type, mapper, keepManagedFields, metadataOnly, null);
	}

	ObjectDecoder(Class<T> type, ObjectMapper mapper, boolean keepManagedFields, boolean metadataOnly,
			@Nullable ObjectCompressor compressor) {
		this.binder = new ObjectBinder<>(type, mapper, keepManagedFields, metadataOnly, compressor, this.interner);
	}

	boolean metadataOnly() {
		return this.binder.metadataOnly();
	}

	/** Whether {@link KubernetesObject}s hold their JSON compressed. */
	boolean compressesObjects() {
		return this.binder.compressesObjects();
	}

	Class<T> type() {
		return this.binder.type();
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
	 * Decodes the watch event that starts at {@code off}, reading no further than
	 * {@code limit}.
	 * @param buf the bytes
	 * @param off where the event starts
	 * @param limit where the bytes read so far end
	 * @param end receives where the event ends
	 * @return the event
	 * @throws JsonScanner.Incomplete when the event goes on past {@code limit}
	 * @throws DecodeException when the bytes are not a watch event, or an ERROR event's
	 * object is not a {@code Status}
	 */
	WatchEvent<T> decodeEvent(byte[] buf, int off, int limit, int[] end) {
		JsonScanner json = new JsonScanner(buf, off, limit - off);
		String type = null;
		ObjectScan object = null;
		// the object when bound in one pass (see bindInOnePass)
		T value = null;
		ObjectBinder.OnePass<T> bound;
		try {
			json.beginObject();
			for (int key = json.nextKey(true); key >= 0; key = json.nextKey(false)) {
				if (json.keyIs(key, TYPE)) {
					type = json.stringOrSkip();
				}
				else if (json.keyIs(key, OBJECT) && json.peek() == '{' && object == null
						&& ("MODIFIED".equals(type) || "ADDED".equals(type) || "DELETED".equals(type))
						&& (bound = this.binder.bindInOnePass(buf, off, json.position(), limit)) != null) {
					object = bound.scan();
					value = bound.value();
					json = new JsonScanner(buf, off + object.end, limit - off - object.end);
				}
				else if (json.keyIs(key, OBJECT) && json.peek() == '{') {
					value = null;
					object = new ObjectScan(this.interner);
					// only a bookmark's annotations matter; the type usually comes first
					object.readAnnotations = (type == null) || "BOOKMARK".equals(type);
					object.start = json.position() - off;
					object.readObject(json);
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
			String named = DecodeMessages.truncate(type);
			throw new DecodeException(DecodeMessages.article(named) + named + " watch event without an \"object\"");
		}
		WatchEvent.Type eventType = eventType(type);
		return switch (eventType) {
			case ERROR -> {
				Status status = StatusDecoder.decode(buf, off + object.start, object.end - object.start);
				if (status == null) {
					// an ERROR event stands for its Status: without one it says nothing
					// that can be acted on
					throw new DecodeException("an ERROR watch event whose object is not a Status");
				}
				yield new WatchEvent<>(eventType, null, null, status, false);
			}
			case BOOKMARK -> new WatchEvent<>(eventType, null, object.meta(), null, object.initialEventsEnd);
			default -> {
				if (this.binder.metadataOnly() && !PARTIAL_OBJECT_METADATA.equals(object.kind)) {
					throw DecodeMessages.notMetadataOnly(DecodeMessages.article(type) + type + " watch event's object",
							object.kind, PARTIAL_OBJECT_METADATA);
				}
				ObjectMeta meta = object.meta();
				if (value != null) {
					yield new WatchEvent<>(eventType, value, meta, null, false);
				}
				try {
					yield new WatchEvent<>(eventType, this.binder.bind(object, meta, buf, off), meta, null, false);
				}
				catch (ObjectBinder.NotBindable ex) {
					// the event is sound but its object does not fit the Java type: say
					// so and go on
					yield WatchEvent.unbindable(eventType, ex.unbindable);
				}
			}
		};
	}

	/**
	 * What to hand up for a watch event larger than the size limit, from its first bytes:
	 * an ADDED, MODIFIED or DELETED event whose object cannot be held, when the event's
	 * {@code type} and the object's metadata come before the limit (the API server writes
	 * {@code type} first and {@code metadata} before {@code spec}). The metadata counts
	 * as read when it closed before the limit, or when the limit cut it inside
	 * {@code managedFields}, which the API server writes last, with the name and
	 * resourceVersion read before it.
	 * @param buf the bytes
	 * @param off where the event starts
	 * @param limit where its first bytes end (the event goes on)
	 * @param maxBytes the size limit, for the reason
	 * @return the event, or {@code null} when its first bytes do not tell its type and
	 * metadata, or it is a BOOKMARK or an ERROR
	 */
	@Nullable WatchEvent<T> decodeOversizedEvent(byte[] buf, int off, int limit, int maxBytes) {
		JsonScanner json = new JsonScanner(buf, off, limit - off);
		String type = null;
		ObjectScan object = null;
		try {
			json.beginObject();
			for (int key = json.nextKey(true); key >= 0; key = json.nextKey(false)) {
				if (json.keyIs(key, TYPE)) {
					type = json.stringOrSkip();
				}
				else if (json.keyIs(key, OBJECT) && json.peek() == '{' && object == null) {
					object = new ObjectScan(this.interner);
					object.readObject(json);
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
		return (eventType != null) ? WatchEvent.unbindable(eventType, this.binder.tooLarge(object.meta(), maxBytes))
				: null;
	}

	/**
	 * Decodes one object, such as the answer to a write, as a list item is decoded: its
	 * metadata scanned, its bytes kept without {@code managedFields} unless asked to keep
	 * them, bound to the Java type.
	 * @param buf the object's bytes, whole
	 * @return the object
	 * @throws DecodeException when the bytes are not one JSON object
	 * @throws ObjectBinder.NotBindable when it does not bind to the Java type (what
	 * failed and where, without the value)
	 */
	T decodeObject(byte[] buf) {
		ObjectScan object = new ObjectScan(this.interner);
		JsonScanner json = new JsonScanner(buf, 0, buf.length);
		try {
			object.readObject(json);
			object.end = json.position();
			json.expectEnd();
		}
		catch (DecodeException ex) {
			// including Incomplete: the object is whole or it is not JSON
			throw new DecodeException("an object is not valid JSON: " + ex.getMessage(), ex);
		}
		return this.binder.bind(object, object.meta(), buf, 0);
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
			return ListDecoding.decode(new ByteArrayInputStream(buf, off, len), Integer.MAX_VALUE - 8, len + 1,
					this.binder, this.interner);
		}
		catch (IOException ex) {
			// nothing to read but the bytes: the list ended inside
			throw new DecodeException("a list is not valid JSON: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Decodes one page of a list as its bytes stream in: the list's {@code metadata}
	 * (before or after {@code items}) and its items one at a time, each with its own
	 * bytes, through a buffer that holds about one item (never more than
	 * {@code maxItemBytes} and one read), so that a page of any size is never held whole.
	 * An item larger than {@code maxItemBytes} is handed up as an
	 * {@link UnbindableObject}, its metadata read from its first bytes and the rest
	 * skipped as it arrives (see {@link #decodeOversizedEvent}); when its metadata cannot
	 * be read, the list fails. Reads the stream to its end. See {@link ListDecoding}.
	 * @param in the body
	 * @param maxItemBytes the size limit of one item (and of any other member of the
	 * list)
	 * @return the page
	 * @throws IOException when reading fails, or the stream ends inside the list
	 * ({@link java.io.EOFException})
	 * @throws JsonFrameReader.MalformedFrameException when an item is too large and its
	 * metadata cannot be read, or another member of the list is too large
	 * @throws DecodeException when the bytes are not a list, or a metadata-only
	 * list-watch got another kind of list
	 */
	ObjectList<T> decodeList(InputStream in, int maxItemBytes) throws IOException {
		return ListDecoding.decode(in, maxItemBytes, (int) Math.min(LIST_BUFFER, (long) maxItemBytes + 1), this.binder,
				this.interner);
	}

	private static WatchEvent.Type eventType(String type) {
		return switch (type) {
			case "ADDED" -> WatchEvent.Type.ADDED;
			case "MODIFIED" -> WatchEvent.Type.MODIFIED;
			case "DELETED" -> WatchEvent.Type.DELETED;
			case "BOOKMARK" -> WatchEvent.Type.BOOKMARK;
			case "ERROR" -> WatchEvent.Type.ERROR;
			default ->
				throw new DecodeException("an unknown watch event type \"" + DecodeMessages.truncate(type) + "\"");
		};
	}

}
