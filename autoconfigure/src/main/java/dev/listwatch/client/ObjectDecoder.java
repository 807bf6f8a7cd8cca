package dev.listwatch.client;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectList;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Status;
import dev.listwatch.WatchEvent;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.ObjectMapper;

/**
 * Decodes watch events and list pages in one pass over their bytes: the envelope and each
 * object's metadata are read token by token, everything else is skipped, and each object keeps
 * its own bytes (without {@code metadata.managedFields} unless asked to keep them). Objects bound
 * to a Java type other than {@link KubernetesObject} are then bound from those bytes.
 * Thread-safe.
 *
 * @param <T> the Java type of the objects
 */
final class ObjectDecoder<T> {

	static final String INITIAL_EVENTS_END = "k8s.io/initial-events-end";

	/** The reason of the status of an event whose object does not bind to the watch's Java type. */
	static final String UNBINDABLE = WatchEvent.UNBINDABLE;

	private static final org.apache.commons.logging.Log logger = org.apache.commons.logging.LogFactory
		.getLog(ObjectDecoder.class);

	private static final JsonFactory FACTORY = JsonFactory.builder().build();

	private static final int POOL_LIMIT = 4096;

	private final Class<T> type;

	private final ObjectMapper mapper;

	private final boolean keepManagedFields;

	/** Shares the strings that repeat across objects (namespaces, label keys and values, kinds). */
	private final Map<String, String> pool = new ConcurrentHashMap<>();

	ObjectDecoder(Class<T> type, ObjectMapper mapper, boolean keepManagedFields) {
		this.type = type;
		this.mapper = mapper;
		this.keepManagedFields = keepManagedFields;
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
		try (JsonParser p = FACTORY.createParser(ObjectReadContext.empty(), buf, off, len)) {
			expect(p.nextToken(), JsonToken.START_OBJECT, "a watch event");
			String type = null;
			Scan object = null;
			while (p.nextToken() == JsonToken.PROPERTY_NAME) {
				String field = p.currentName();
				JsonToken value = p.nextToken();
				if ("type".equals(field) && value == JsonToken.VALUE_STRING) {
					type = p.getString();
				}
				else if ("object".equals(field) && value == JsonToken.START_OBJECT) {
					object = new Scan();
					object.start = (int) p.currentTokenLocation().getByteOffset();
					scanObject(p, object);
					object.end = (int) p.currentLocation().getByteOffset();
				}
				else {
					p.skipChildren();
				}
			}
			if (type == null) {
				throw new DecodeException("a watch event without a \"type\"");
			}
			if (object == null) {
				throw new DecodeException("a " + type + " watch event without an \"object\"");
			}
			WatchEvent.Type eventType = eventType(type);
			return switch (eventType) {
				case ERROR -> new WatchEvent<>(eventType, null, null, decodeStatus(buf, off + object.start,
						object.end - object.start), false);
				case BOOKMARK -> new WatchEvent<>(eventType, null, object.meta(this.pool), null, object.initialEventsEnd);
				default -> {
					ObjectMeta meta = object.meta(this.pool);
					try {
						yield new WatchEvent<>(eventType, bind(object, meta, buf, off), meta, null, false);
					}
					catch (DecodeException ex) {
						// the event is sound but its object does not fit the Java type: say so and go on
						yield new WatchEvent<>(eventType, null, meta, new Status(0, UNBINDABLE, ex.getMessage()), false);
					}
				}
			};
		}
		catch (JacksonException ex) {
			throw new DecodeException("a watch event is not valid JSON: " + ex.getOriginalMessage(), ex);
		}
	}

	/**
	 * Decodes one page of a list.
	 * @param buf the bytes
	 * @param off where the list starts
	 * @param len its length
	 * @return the page
	 * @throws DecodeException when the bytes are not a list
	 */
	ObjectList<T> decodeList(byte[] buf, int off, int len) {
		try (JsonParser p = FACTORY.createParser(ObjectReadContext.empty(), buf, off, len)) {
			expect(p.nextToken(), JsonToken.START_OBJECT, "a list");
			String resourceVersion = null;
			String continueToken = null;
			Long remaining = null;
			List<T> items = null;
			List<ObjectMeta> metas = null;
			String kind = null;
			while (p.nextToken() == JsonToken.PROPERTY_NAME) {
				String field = p.currentName();
				JsonToken value = p.nextToken();
				if ("metadata".equals(field) && value == JsonToken.START_OBJECT) {
					while (p.nextToken() == JsonToken.PROPERTY_NAME) {
						String name = p.currentName();
						JsonToken v = p.nextToken();
						if ("resourceVersion".equals(name) && v == JsonToken.VALUE_STRING) {
							resourceVersion = p.getString();
						}
						else if ("continue".equals(name) && v == JsonToken.VALUE_STRING) {
							continueToken = p.getString();
						}
						else if ("remainingItemCount".equals(name) && v == JsonToken.VALUE_NUMBER_INT) {
							remaining = p.getLongValue();
						}
						else {
							p.skipChildren();
						}
					}
				}
				else if ("items".equals(field) && value == JsonToken.START_ARRAY) {
					items = new ArrayList<>();
					metas = new ArrayList<>();
					JsonToken t;
					while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
						Scan item = new Scan();
						item.start = (int) p.currentTokenLocation().getByteOffset();
						scanObject(p, item);
						item.end = (int) p.currentLocation().getByteOffset();
						ObjectMeta meta = item.meta(this.pool);
						try {
							items.add(bind(item, meta, buf, off));
							metas.add(meta);
						}
						catch (DecodeException ex) {
							// one object that does not fit the Java type must not stop the whole list
							logger.error("Skipped " + meta.key() + " of a list: " + ex.getMessage());
						}
					}
					expect(t, JsonToken.END_ARRAY, "the end of \"items\"");
				}
				else if ("items".equals(field) && value == JsonToken.VALUE_NULL) {
					items = new ArrayList<>();
					metas = new ArrayList<>();
				}
				else if ("kind".equals(field) && value == JsonToken.VALUE_STRING) {
					kind = p.getString();
				}
				else {
					p.skipChildren();
				}
			}
			if (items == null) {
				throw new DecodeException("expected a list with \"items\" but got "
						+ ((kind != null) ? "a " + kind : "an object without them"));
			}
			return new ObjectList<>(items, metas, resourceVersion, continueToken, remaining);
		}
		catch (JacksonException ex) {
			throw new DecodeException("a list is not valid JSON: " + ex.getOriginalMessage(), ex);
		}
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

	private T bind(Scan scan, ObjectMeta meta, byte[] buf, int off) {
		byte[] json = scan.bytes(buf, off, this.keepManagedFields);
		KubernetesObject object = KubernetesObject.of(meta, intern(scan.apiVersion, this.pool),
				intern(scan.kind, this.pool), json);
		if (this.type == KubernetesObject.class || this.type == Object.class) {
			return this.type.cast(object);
		}
		try {
			return object.as(this.type, this.mapper);
		}
		catch (JacksonException ex) {
			throw new DecodeException(object + " does not bind to " + this.type.getName() + ": "
					+ ex.getOriginalMessage(), ex);
		}
	}

	/** Reads an object's envelope and metadata; leaves the parser on its END_OBJECT. */
	private static void scanObject(JsonParser p, Scan scan) {
		while (p.nextToken() == JsonToken.PROPERTY_NAME) {
			String field = p.currentName();
			JsonToken value = p.nextToken();
			switch (field) {
				case "apiVersion" -> scan.apiVersion = string(p, value);
				case "kind" -> scan.kind = string(p, value);
				case "metadata" -> {
					if (value == JsonToken.START_OBJECT) {
						scanMetadata(p, scan);
					}
					else {
						p.skipChildren();
					}
				}
				default -> p.skipChildren();
			}
		}
	}

	private static void scanMetadata(JsonParser p, Scan scan) {
		while (p.nextToken() == JsonToken.PROPERTY_NAME) {
			String field = p.currentName();
			int fieldStart = (int) p.currentTokenLocation().getByteOffset();
			JsonToken value = p.nextToken();
			switch (field) {
				case "name" -> scan.name = string(p, value);
				case "namespace" -> scan.namespace = string(p, value);
				case "uid" -> scan.uid = string(p, value);
				case "resourceVersion" -> scan.resourceVersion = string(p, value);
				case "labels" -> {
					if (value == JsonToken.START_OBJECT) {
						Map<String, String> labels = new HashMap<>();
						while (p.nextToken() == JsonToken.PROPERTY_NAME) {
							String key = p.currentName();
							JsonToken v = p.nextToken();
							if (v == JsonToken.VALUE_STRING) {
								labels.put(key, p.getString());
							}
							else {
								p.skipChildren();
							}
						}
						scan.labels = labels;
					}
					else {
						p.skipChildren();
					}
				}
				case "annotations" -> {
					if (value == JsonToken.START_OBJECT) {
						while (p.nextToken() == JsonToken.PROPERTY_NAME) {
							String key = p.currentName();
							JsonToken v = p.nextToken();
							if (INITIAL_EVENTS_END.equals(key) && v == JsonToken.VALUE_STRING) {
								scan.initialEventsEnd = "true".equals(p.getString());
							}
							else {
								p.skipChildren();
							}
						}
					}
					else {
						p.skipChildren();
					}
				}
				case "managedFields" -> {
					p.skipChildren();
					scan.managedStart = fieldStart;
					scan.managedEnd = (int) p.currentLocation().getByteOffset();
				}
				default -> p.skipChildren();
			}
		}
	}

	private static String string(JsonParser p, JsonToken value) {
		if (value == JsonToken.VALUE_STRING) {
			return p.getString();
		}
		p.skipChildren();
		return null;
	}

	private static void expect(JsonToken actual, JsonToken expected, String what) {
		if (actual != expected) {
			throw new DecodeException("expected " + what + " but found " + ((actual != null) ? actual : "the end"));
		}
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

	private static String truncate(String text) {
		return (text.length() > 40) ? text.substring(0, 40) + "..." : text;
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

	/** What one pass over an object found. */
	private static final class Scan {

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

		ObjectMeta meta(Map<String, String> pool) {
			Map<String, String> shared;
			if (this.labels == null || this.labels.isEmpty()) {
				shared = Map.of();
			}
			else if (this.labels.size() == 1) {
				Map.Entry<String, String> e = this.labels.entrySet().iterator().next();
				shared = Map.of(intern(e.getKey(), pool), intern(e.getValue(), pool));
			}
			else {
				HashMap<String, String> copy = new HashMap<>((int) (this.labels.size() / 0.75f) + 1);
				this.labels.forEach((k, v) -> copy.put(intern(k, pool), intern(v, pool)));
				shared = java.util.Collections.unmodifiableMap(copy);
			}
			return new ObjectMeta(intern(this.namespace, pool), this.name, this.uid, this.resourceVersion, shared);
		}

		/** The object's bytes, with managedFields cut out unless they are to be kept. */
		byte[] bytes(byte[] buf, int off, boolean keepManagedFields) {
			int from = off + this.start;
			int to = off + this.end;
			if (keepManagedFields || this.managedStart < 0) {
				return java.util.Arrays.copyOfRange(buf, from, to);
			}
			int cutFrom = off + this.managedStart;
			int cutTo = off + this.managedEnd;
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
