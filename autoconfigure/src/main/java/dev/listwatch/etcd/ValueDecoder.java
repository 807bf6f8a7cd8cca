package dev.listwatch.etcd;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectList;
import dev.listwatch.ObjectMeta;
import dev.listwatch.UnbindableObject;
import dev.listwatch.client.ObjectBytes;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns one etcd key and value into what a watch holds: the key names the object, the
 * value is its JSON.
 * <p>
 * <b>Key.</b> The part of the key after the prefix is {@code <name>} (an object without a
 * namespace, as a cluster-scoped one) or {@code <namespace>/<name>}: the first {@code /}
 * splits namespace from name, and the name may hold more {@code /}s. The cache key is
 * therefore the key without the prefix. A key with nothing after the prefix, or with an
 * empty namespace or name, is an object that cannot be held.
 * <p>
 * <b>Metadata.</b> The key's {@code mod_revision} is the resourceVersion.
 * {@code metadata.uid} and {@code metadata.labels} are read from the JSON when it has
 * them (so label selectors and indexes on labels work on the cache). The key is the
 * identity: a value whose {@code metadata.name} or {@code metadata.namespace} is present
 * and differs from the key's cannot be held (it is reported, never cached under either
 * name); a value without them is fine. {@code metadata.resourceVersion} in the JSON is
 * ignored, as the API server ignores what it stored there.
 * <p>
 * <b>Value.</b> For {@link KubernetesObject} it must be a JSON object; its bytes are kept
 * as stored (without {@code metadata.managedFields} unless asked to keep them). For any
 * other type, it is bound with the mapper. A value that is not JSON, is larger than the
 * size limit, or does not bind is an {@link UnbindableObject}: where and why, never the
 * value (Jackson's own messages, which quote it, go nowhere). Thread-safe.
 *
 * @param <T> the Java type of the objects
 */
final class ValueDecoder<T> {

	private final String prefix;

	private final Class<T> type;

	private final ObjectMapper mapper;

	private final boolean keepManagedFields;

	private final int maxBytes;

	/**
	 * Reads values of {@link KubernetesObject} (or {@code Object}) in one byte scan;
	 * {@code null} for other types, which are bound by the mapper.
	 */
	private final @Nullable ObjectBytes objects;

	ValueDecoder(String prefix, Class<T> type, ObjectMapper mapper, boolean keepManagedFields, int maxBytes) {
		this.prefix = prefix;
		this.type = type;
		this.mapper = mapper;
		this.keepManagedFields = keepManagedFields;
		this.maxBytes = maxBytes;
		this.objects = (type == KubernetesObject.class || type == Object.class) ? new ObjectBytes() : null;
	}

	private Decoded<T> fromScan(ObjectMeta keyMeta, ObjectBytes.Read read) {
		ObjectMeta found = read.meta();
		if (found.name() != null && !found.name().equals(keyMeta.name())) {
			return unbindable(keyMeta, "/metadata/name", "metadata.name is not the name the key gives");
		}
		if (found.namespace() != null && !Objects.equals(emptyToNull(found.namespace()), keyMeta.namespace())) {
			return unbindable(keyMeta, "/metadata/namespace", "metadata.namespace is not the namespace the key gives");
		}
		Map<String, String> labels = found.labels();
		ObjectMeta meta = new ObjectMeta(keyMeta.namespace(), keyMeta.name(), found.uid(), keyMeta.resourceVersion(),
				(labels != null && !labels.isEmpty()) ? labels : null);
		return new Decoded<>(new ObjectList.Item<>(meta,
				this.type.cast(KubernetesObject.of(meta, read.apiVersion(), read.kind(), read.json()))), null);
	}

	/**
	 * An object, or why it cannot be held: exactly one is set.
	 *
	 * @param <T> the Java type of the objects
	 * @param item the object with its metadata, or {@code null}
	 * @param unbindable what could not be held, or {@code null}
	 */
	record Decoded<T>(ObjectList.@Nullable Item<T> item, @Nullable UnbindableObject unbindable) {

	}

	/**
	 * The metadata a key alone gives (a DELETE event, a value that cannot be read).
	 * @param key the etcd key, under the prefix
	 * @param modRevision the key's {@code mod_revision}
	 * @return namespace, name and resourceVersion; no uid, no labels
	 */
	ObjectMeta meta(String key, long modRevision) {
		String rest = key.startsWith(this.prefix) ? key.substring(this.prefix.length()) : key;
		int slash = rest.indexOf('/');
		String namespace = (slash < 0) ? null : rest.substring(0, slash);
		String name = (slash < 0) ? rest : rest.substring(slash + 1);
		return new ObjectMeta(namespace, name, null, Long.toString(modRevision), null);
	}

	Decoded<T> decode(String key, byte[] value, long modRevision) {
		ObjectMeta keyMeta = meta(key, modRevision);
		if ("".equals(keyMeta.name()) || "".equals(keyMeta.namespace())) {
			return unbindable(keyMeta, "",
					"the key has " + ("".equals(keyMeta.name()) ? "no name" : "an empty namespace")
							+ " after the prefix " + this.prefix);
		}
		if (value.length > this.maxBytes) {
			return unbindable(keyMeta, "", "larger than max-event-size (" + this.maxBytes + " bytes)");
		}
		ObjectBytes objects = this.objects;
		if (objects != null) {
			// the API server path's one-pass scan: envelope and metadata read, the rest
			// skipped by a byte scan; a value it cannot read is read again strictly
			// below,
			// to say why
			ObjectBytes.Read read = objects.read(value, this.keepManagedFields);
			if (read != null) {
				return fromScan(keyMeta, read);
			}
		}
		Scan scan = new Scan();
		try (JsonParser parser = this.mapper.createParser(value)) {
			scan.object = parser.nextToken() == JsonToken.START_OBJECT;
			if (scan.object) {
				scanObject(parser, scan);
			}
			else {
				parser.skipChildren();
			}
			if (parser.nextToken() != null) {
				return unbindable(keyMeta, "", "not valid JSON: more after the value");
			}
		}
		catch (JacksonException ex) {
			TokenStreamLocation location = ex.getLocation();
			return unbindable(keyMeta, "", "not valid JSON" + ((location != null)
					? " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")" : ""));
		}
		if (scan.name != null && !scan.name.equals(keyMeta.name())) {
			return unbindable(keyMeta, "/metadata/name", "metadata.name is not the name the key gives");
		}
		if (scan.namespace != null && !Objects.equals(emptyToNull(scan.namespace), keyMeta.namespace())) {
			return unbindable(keyMeta, "/metadata/namespace", "metadata.namespace is not the namespace the key gives");
		}
		ObjectMeta meta = new ObjectMeta(keyMeta.namespace(), keyMeta.name(), scan.uid, keyMeta.resourceVersion(),
				(scan.labels != null) ? Map.copyOf(scan.labels) : null);
		if (this.type == KubernetesObject.class || this.type == Object.class) {
			if (!scan.object) {
				return unbindable(meta, "", "not a JSON object");
			}
			byte[] json = (scan.managedFields && !this.keepManagedFields) ? withoutManagedFields(value, scan) : value;
			return new Decoded<>(new ObjectList.Item<>(meta,
					this.type.cast(KubernetesObject.of(meta, scan.apiVersion, scan.kind, json))), null);
		}
		try {
			T object = this.mapper.readValue(value, this.type);
			if (object == null) {
				return unbindable(meta, "", "null");
			}
			return new Decoded<>(new ObjectList.Item<>(meta, object), null);
		}
		catch (JacksonException ex) {
			return unbindable(meta, pointer(ex), reason(ex));
		}
	}

	private Decoded<T> unbindable(ObjectMeta meta, String path, String reason) {
		return new Decoded<>(null, new UnbindableObject(meta, path, this.type.getName(), reason));
	}

	private static void scanObject(JsonParser parser, Scan scan) {
		while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
			String field = parser.currentName();
			JsonToken value = parser.nextToken();
			if ("apiVersion".equals(field) && value == JsonToken.VALUE_STRING) {
				scan.apiVersion = parser.getString();
			}
			else if ("kind".equals(field) && value == JsonToken.VALUE_STRING) {
				scan.kind = parser.getString();
			}
			else if ("metadata".equals(field) && value == JsonToken.START_OBJECT) {
				scanMetadata(parser, scan);
			}
			else {
				parser.skipChildren();
			}
		}
	}

	private static void scanMetadata(JsonParser parser, Scan scan) {
		while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
			String field = parser.currentName();
			long nameStart = "managedFields".equals(field) ? parser.currentTokenLocation().getByteOffset() : -1;
			JsonToken value = parser.nextToken();
			if ("name".equals(field) && value == JsonToken.VALUE_STRING) {
				scan.name = parser.getString();
			}
			else if ("namespace".equals(field) && value == JsonToken.VALUE_STRING) {
				scan.namespace = parser.getString();
			}
			else if ("uid".equals(field) && value == JsonToken.VALUE_STRING) {
				scan.uid = parser.getString();
			}
			else if ("labels".equals(field) && value == JsonToken.START_OBJECT) {
				scan.labels = new HashMap<>();
				while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
					String label = parser.currentName();
					if (parser.nextToken() == JsonToken.VALUE_STRING) {
						scan.labels.put(label, parser.getString());
					}
					else {
						parser.skipChildren();
					}
				}
			}
			else if ("managedFields".equals(field)) {
				// where it is, so that it can be cut out of the bytes without a tree
				parser.skipChildren();
				long end = parser.currentLocation().getByteOffset();
				// a second one (a duplicate key) is cut through the tree
				scan.managedFieldsSpan = (scan.managedFields || nameStart < 0 || end < 0) ? null
						: new long[] { nameStart, end };
				scan.managedFields = true;
			}
			else {
				parser.skipChildren();
			}
		}
	}

	private byte[] withoutManagedFields(byte[] value, Scan scan) {
		long[] span = scan.managedFieldsSpan;
		if (span != null && span[0] < span[1] && span[1] <= value.length && value[(int) span[0]] == '"') {
			return cut(value, (int) span[0], (int) span[1]);
		}
		JsonNode tree = this.mapper.readTree(value);
		((ObjectNode) tree.get("metadata")).remove("managedFields");
		return this.mapper.writeValueAsBytes(tree);
	}

	/**
	 * The JSON without the member from {@code start} (its name's opening quote) to
	 * {@code end} (after its value), and the comma that separated it from its neighbour:
	 * a copy of the bytes, no tree, the rest as stored.
	 */
	static byte[] cut(byte[] json, int start, int end) {
		int from = start;
		int to = end;
		int after = to;
		while (after < json.length && whitespace(json[after])) {
			after++;
		}
		if (after < json.length && json[after] == ',') {
			to = after + 1;
		}
		else {
			int before = from - 1;
			while (before >= 0 && whitespace(json[before])) {
				before--;
			}
			if (before >= 0 && json[before] == ',') {
				from = before;
			}
		}
		byte[] out = new byte[json.length - (to - from)];
		System.arraycopy(json, 0, out, 0, from);
		System.arraycopy(json, to, out, from, json.length - to);
		return out;
	}

	private static boolean whitespace(byte b) {
		return b == ' ' || b == '\n' || b == '\r' || b == '\t';
	}

	/**
	 * The JSON pointer of the value that did not bind, for example
	 * {@code /spec/items/3/name}.
	 */
	private static String pointer(JacksonException ex) {
		StringBuilder pointer = new StringBuilder();
		for (JacksonException.Reference reference : ex.getPath()) {
			if (reference.getPropertyName() != null) {
				pointer.append('/').append(reference.getPropertyName().replace("~", "~0").replace("/", "~1"));
			}
			else if (reference.getIndex() >= 0) {
				pointer.append('/').append(reference.getIndex());
			}
		}
		return pointer.toString();
	}

	/** Why a value did not bind, without the value (Jackson's messages quote it). */
	private String reason(JacksonException ex) {
		if (ex instanceof InvalidFormatException invalid) {
			return "not a valid value of " + simpleName(invalid.getTargetType());
		}
		if (ex instanceof UnrecognizedPropertyException) {
			return "unknown property";
		}
		if (ex instanceof MismatchedInputException mismatched) {
			return "a value of the wrong shape for " + simpleName(mismatched.getTargetType());
		}
		return ex.getClass().getSimpleName();
	}

	private String simpleName(@Nullable Class<?> target) {
		return ((target != null) ? target : this.type).getSimpleName();
	}

	private static @Nullable String emptyToNull(String value) {
		return value.isEmpty() ? null : value;
	}

	/** What the scan of a value found. */
	private static final class Scan {

		boolean object;

		@Nullable String apiVersion;

		@Nullable String kind;

		@Nullable String name;

		@Nullable String namespace;

		@Nullable String uid;

		@Nullable Map<String, String> labels;

		boolean managedFields;

		/** Where managedFields is: its name's first byte and the byte after its value. */
		long @Nullable [] managedFieldsSpan;

	}

}
