package dev.listwatch.client;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import dev.listwatch.ObjectList;
import dev.listwatch.ObjectMeta;
import dev.listwatch.UnbindableObject;
import org.jspecify.annotations.Nullable;

/**
 * Decodes one page of a list as its bytes stream in: a small state machine whose parts
 * are {@link JsonFrameReader.FrameDecoder}s driven by one {@link JsonFrameReader}
 * ({@link #decode}). The list's {@code metadata} (before or after {@code items}), its
 * {@code kind} and its items are read one part at a time, each item with its own bytes,
 * through a buffer that holds about one item, so that a page of any size is never held
 * whole. Each part reads from where the last ended and may be tried again from there with
 * more bytes (so it sets fields only as it goes and sets them again on a new try), and
 * says what it read as a {@link Step}. Items are bound by the decoder's
 * {@link ObjectBinder}; one that does not bind, or is larger than the size limit, is
 * handed up as an {@link UnbindableObject}, never dropped. One instance per list, on one
 * thread.
 *
 * @param <T> the Java type of the objects
 */
final class ListDecoding<T> {

	static final String PARTIAL_OBJECT_METADATA_LIST = "PartialObjectMetadataList";

	private static final byte[] METADATA = ObjectScan.ascii("metadata");

	private static final byte[] ITEMS = ObjectScan.ascii("items");

	private static final byte[] KIND = ObjectScan.ascii("kind");

	private static final byte[] RESOURCE_VERSION = ObjectScan.ascii("resourceVersion");

	private static final byte[] CONTINUE = ObjectScan.ascii("continue");

	private static final byte[] REMAINING_ITEM_COUNT = ObjectScan.ascii("remainingItemCount");

	/** What one part of a list read. */
	enum Step {

		/** A list's member or item separator: the object or array ended. */
		END,

		/** A list's member: {@code "items":[}. */
		ITEMS_START,

		/** A list's member read (or skipped) whole; or an item follows. */
		READ

	}

	private final ObjectBinder<T> binder;

	private final Interner interner;

	private final int maxItemBytes;

	private boolean firstMember;

	private boolean firstItem;

	private @Nullable String resourceVersion;

	private @Nullable String continueToken;

	private @Nullable Long remaining;

	private @Nullable String kind;

	private @Nullable List<ObjectList.Item<T>> items;

	private final List<UnbindableObject> unbindable = new ArrayList<>();

	private ListDecoding(ObjectBinder<T> binder, Interner interner, int maxItemBytes) {
		this.binder = binder;
		this.interner = interner;
		this.maxItemBytes = maxItemBytes;
	}

	/**
	 * Decodes one page of a list as its bytes stream in (see the class). An item larger
	 * than {@code maxItemBytes} is handed up as an {@link UnbindableObject}, its metadata
	 * read from its first bytes and the rest skipped as it arrives; when its metadata
	 * cannot be read, the list fails. Reads the stream to its end.
	 * @param <T> the Java type of the objects
	 * @param in the body
	 * @param maxItemBytes the size limit of one item (and of any other member of the
	 * list)
	 * @param initialCapacity the buffer to begin with
	 * @param binder binds the items
	 * @param interner shares what repeats across the items
	 * @return the page
	 * @throws IOException when reading fails, or the stream ends inside the list
	 * ({@link java.io.EOFException})
	 * @throws JsonFrameReader.MalformedFrameException when an item is too large and its
	 * metadata cannot be read, or another member of the list is too large
	 * @throws DecodeException when the bytes are not a list, or a metadata-only
	 * list-watch got another kind of list
	 */
	static <T> ObjectList<T> decode(InputStream in, int maxItemBytes, int initialCapacity, ObjectBinder<T> binder,
			Interner interner) throws IOException {
		JsonFrameReader reader = new JsonFrameReader(in, maxItemBytes, initialCapacity);
		ListDecoding<T> list = new ListDecoding<>(binder, interner, maxItemBytes);
		try {
			reader.read(list::open, null, "a list");
			for (boolean first = true;; first = false) {
				list.firstMember = first;
				Step member = reader.read(list::member, null, "a list");
				if (member == Step.END) {
					break;
				}
				if (member == Step.ITEMS_START) {
					list.items = new ArrayList<>();
					for (boolean firstItem = true;; firstItem = false) {
						list.firstItem = firstItem;
						if (reader.read(list::separator, null, "a list") == Step.END) {
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
		if (binder.metadataOnly() && !PARTIAL_OBJECT_METADATA_LIST.equals(list.kind)) {
			throw DecodeMessages.notMetadataOnly("the list", list.kind, PARTIAL_OBJECT_METADATA_LIST);
		}
		return list(list.items, list.resourceVersion, list.continueToken, list.remaining, list.unbindable);
	}

	/** The list's opening brace. */
	private Step open(byte[] buf, int start, int limit, int[] end) {
		JsonScanner json = new JsonScanner(buf, start, limit - start);
		json.beginObject();
		end[0] = json.position();
		return Step.READ;
	}

	/**
	 * The next member of the list: its metadata read, its kind read, {@code "items":[}
	 * (the items follow), or any other member skipped; {@link Step#END} after the list's
	 * '}'.
	 */
	private Step member(byte[] buf, int start, int limit, int[] end) {
		JsonScanner json = new JsonScanner(buf, start, limit - start);
		int key = json.nextKey(this.firstMember);
		Step result = Step.READ;
		if (key < 0) {
			result = Step.END;
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
			result = Step.ITEMS_START;
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

	/**
	 * Up to the next item's '{' (after a ','), or {@link Step#END} after the items' ']'.
	 */
	private Step separator(byte[] buf, int start, int limit, int[] end) {
		JsonScanner json = new JsonScanner(buf, start, limit - start);
		int c = json.peek();
		if (c == ']') {
			json.expect(']');
			end[0] = json.position();
			return Step.END;
		}
		if (!this.firstItem) {
			json.expect(',');
			c = json.peek();
		}
		if (c != '{') {
			throw json.error("expected an object in \"items\"");
		}
		end[0] = json.position();
		return Step.READ;
	}

	/**
	 * One item, from its '{': bound, or what could not be bound; {@code null} when too
	 * large.
	 */
	private @Nullable Decoded<T> item(byte[] buf, int start, int limit, int[] end) {
		ObjectBinder.OnePass<T> bound = this.binder.bindInOnePass(buf, start, start, limit);
		if (bound != null) {
			end[0] = start + bound.scan().end;
			// over the limit: not held, as below
			return (bound.scan().end > this.maxItemBytes) ? null
					: new Decoded<>(new ObjectList.Item<>(bound.scan().meta(), bound.value()), null);
		}
		JsonScanner json = new JsonScanner(buf, start, limit - start);
		ObjectScan item = new ObjectScan(this.interner);
		item.readObject(json);
		item.end = json.position() - start;
		end[0] = json.position();
		if (item.end > this.maxItemBytes) {
			// not worth binding: the reader hands it to oversizedItem
			return null;
		}
		ObjectMeta meta = item.meta();
		try {
			return new Decoded<>(new ObjectList.Item<>(meta, this.binder.bind(item, meta, buf, start)), null);
		}
		catch (ObjectBinder.NotBindable ex) {
			// one object that does not fit the Java type must neither stop the whole list
			// nor go missing from it (it would look deleted): it is handed up as such
			return new Decoded<>(null, ex.unbindable);
		}
	}

	/** An item over the limit, from its first bytes: its metadata, if they hold it. */
	private @Nullable Decoded<T> oversizedItem(byte[] buf, int start, int limit) {
		JsonScanner json = new JsonScanner(buf, start, limit - start);
		ObjectScan item = new ObjectScan(this.interner);
		try {
			item.readObject(json);
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
		return new Decoded<>(null, this.binder.tooLarge(meta, this.maxItemBytes));
	}

	/**
	 * The list read; its items are there (checked), its resourceVersion as the server
	 * sent it.
	 */
	// the API server's lists always have a resourceVersion; one without (a hand-made
	// fixture) keeps it null, as it always did, rather than failing the decode
	@SuppressWarnings("NullAway")
	private static <T> ObjectList<T> list(@Nullable List<ObjectList.Item<T>> items, @Nullable String resourceVersion,
			@Nullable String continueToken, @Nullable Long remaining, List<UnbindableObject> unbindable) {
		return new ObjectList<>(items, resourceVersion, continueToken, remaining, unbindable);
	}

	/**
	 * One item of a list decoded: the object bound, or what keeps it from being held.
	 *
	 * @param item the item, or {@code null}
	 * @param unbindable what could not be held, or {@code null}
	 */
	private record Decoded<T>(ObjectList.@Nullable Item<T> item, @Nullable UnbindableObject unbindable) {

		void addTo(ListDecoding<T> list) {
			if (this.unbindable != null) {
				list.unbindable.add(this.unbindable);
			}
			else if (list.items != null && this.item != null) {
				list.items.add(this.item);
			}
		}

	}

}
