package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import dev.listwatch.ObjectMeta;
import org.jspecify.annotations.Nullable;

/**
 * What one pass over an object found: its envelope ({@code apiVersion}, {@code kind}),
 * its metadata (name, namespace, uid, resourceVersion, labels; the
 * {@value #INITIAL_EVENTS_END} annotation when asked), where it starts and ends, and
 * where its {@code metadata.managedFields} are, so that its bytes can be copied without
 * them. Read by a {@link JsonScanner}: the envelope and metadata are read, everything
 * else is skipped by a byte scan (not tokenized). Strings and label sets that repeat are
 * shared through the decoder's {@link Interner}. One scan per object, on one thread; not
 * thread-safe.
 */
final class ObjectScan {

	static final String INITIAL_EVENTS_END = "k8s.io/initial-events-end";

	private static final byte[] METADATA = ascii("metadata");

	private static final byte[] KIND = ascii("kind");

	private static final byte[] API_VERSION = ascii("apiVersion");

	private static final byte[] NAME = ascii("name");

	private static final byte[] NAMESPACE = ascii("namespace");

	private static final byte[] UID = ascii("uid");

	private static final byte[] RESOURCE_VERSION = ascii("resourceVersion");

	private static final byte[] LABELS = ascii("labels");

	private static final byte[] ANNOTATIONS = ascii("annotations");

	private static final byte[] MANAGED_FIELDS = ascii("managedFields");

	private static final byte[] INITIAL_EVENTS_END_BYTES = ascii(INITIAL_EVENTS_END);

	/** Shares the strings and label sets that repeat across objects. */
	final Interner interner;

	int start;

	int end;

	int managedStart = -1;

	int managedEnd = -1;

	@Nullable String apiVersion;

	@Nullable String kind;

	@Nullable String namespace;

	@Nullable String name;

	@Nullable String uid;

	@Nullable String resourceVersion;

	@Nullable Map<String, String> labels;

	boolean initialEventsEnd;

	boolean readAnnotations;

	/** Whether the object's metadata was read up to its closing brace. */
	boolean metadataRead;

	/** Whether the scan is inside {@code metadata.managedFields}. */
	boolean inManagedFields;

	/** The metadata once made (see {@link #meta()}). */
	@Nullable ObjectMeta readMeta;

	ObjectScan(Interner interner) {
		this.interner = interner;
	}

	/**
	 * Reads an object's envelope and metadata, skipping the rest; ends after its '}'.
	 * @param json the scanner, at the object's '{'
	 * @throws JsonScanner.Incomplete when the object goes on past the bytes read (what
	 * was read before stays set)
	 * @throws DecodeException when the bytes are not a JSON object
	 */
	void readObject(JsonScanner json) {
		json.beginObject();
		for (int key = json.nextKey(true); key >= 0; key = json.nextKey(false)) {
			if (json.keyIs(key, API_VERSION)) {
				this.apiVersion = json.stringOrSkip();
			}
			else if (json.keyIs(key, KIND)) {
				this.kind = json.stringOrSkip();
			}
			else if (json.keyIs(key, METADATA) && json.peek() == '{') {
				readMetadata(json);
			}
			else {
				json.skipValue();
			}
		}
	}

	/**
	 * Reads an object's {@code metadata}, from its '{' to after its '}', and marks it
	 * read.
	 * @param json the scanner, at the metadata's '{'
	 * @throws JsonScanner.Incomplete when the metadata goes on past the bytes read
	 * @throws DecodeException when the bytes are not a JSON object
	 */
	void readMetadata(JsonScanner json) {
		json.beginObject();
		for (int key = json.nextKey(true); key >= 0; key = json.nextKey(false)) {
			if (json.keyIs(key, NAME)) {
				this.name = json.stringOrSkip();
			}
			else if (json.keyIs(key, NAMESPACE)) {
				this.namespace = json.stringOrSkip();
			}
			else if (json.keyIs(key, UID)) {
				this.uid = json.stringOrSkip();
			}
			else if (json.keyIs(key, RESOURCE_VERSION)) {
				this.resourceVersion = json.stringOrSkip();
			}
			else if (json.keyIs(key, LABELS) && json.peek() == '{') {
				// kept as the cached object's labels: small, as most objects have a few
				Map<String, String> labels = new HashMap<>(8);
				json.beginObject();
				for (int k = json.nextKey(true); k >= 0; k = json.nextKey(false)) {
					String label = json.key(k);
					String value = json.stringOrSkip();
					if (value != null) {
						labels.put(this.interner.intern(label), this.interner.intern(value));
					}
				}
				this.labels = labels;
			}
			else if (json.keyIs(key, ANNOTATIONS) && this.readAnnotations && json.peek() == '{') {
				json.beginObject();
				for (int k = json.nextKey(true); k >= 0; k = json.nextKey(false)) {
					if (json.keyIs(k, INITIAL_EVENTS_END_BYTES)) {
						this.initialEventsEnd = "true".equals(json.stringOrSkip());
					}
					else {
						json.skipValue();
					}
				}
			}
			else if (json.keyIs(key, MANAGED_FIELDS)) {
				this.managedStart = key - 1;
				this.inManagedFields = true;
				json.skipValue();
				this.inManagedFields = false;
				this.managedEnd = json.position();
			}
			else {
				json.skipValue();
			}
		}
		this.metadataRead = true;
	}

	/**
	 * Whether the metadata is known, from a scan that may have stopped early: read whole,
	 * or cut inside managedFields (written last by the API server) with name and
	 * resourceVersion read before it.
	 */
	boolean metadataKnown() {
		return this.metadataRead || (this.inManagedFields && this.name != null && this.resourceVersion != null);
	}

	/** The object's metadata: made from what was read, or as set in {@link #readMeta}. */
	// the API server's objects always have a resourceVersion; one without (a hand-made
	// fixture) keeps it null, as it always did, rather than failing the decode
	@SuppressWarnings("NullAway")
	ObjectMeta meta() {
		if (this.readMeta != null) {
			return this.readMeta;
		}
		return new ObjectMeta(this.interner.intern(this.namespace), this.name, this.uid, this.resourceVersion,
				this.interner.labels(this.labels));
	}

	/** The object's bytes, with managedFields cut out unless they are to be kept. */
	byte[] bytes(byte[] buf, int off, boolean keepManagedFields) {
		int from = off + this.start;
		int to = off + this.end;
		if (keepManagedFields || this.managedStart < 0) {
			return Arrays.copyOfRange(buf, from, to);
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

	static byte[] ascii(String text) {
		return text.getBytes(StandardCharsets.US_ASCII);
	}

}
