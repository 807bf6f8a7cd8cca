package dev.listwatch.client;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.listwatch.Status;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;
import org.jspecify.annotations.Nullable;

/**
 * Decodes a Kubernetes {@code Status} (an error response's body, an ERROR watch event's
 * object) leniently, with Jackson's tokenizer: its {@code code}, {@code reason} and
 * {@code message} when they have the right JSON type, anything else skipped. Never throws
 * on bad bytes. Stateless and thread-safe.
 */
final class StatusDecoder {

	private static final JsonFactory FACTORY = JsonFactory.builder().build();

	private StatusDecoder() {
	}

	/**
	 * Decodes a {@code Status} object, leniently.
	 * @param buf the bytes
	 * @param off where it starts
	 * @param len its length
	 * @return the status, or {@code null} when the bytes are not a JSON object
	 */
	static @Nullable Status decode(byte[] buf, int off, int len) {
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
	 * The causes of a {@code Status} ({@code details.causes}), leniently, each as its
	 * {@code field} and {@code reason}, never its {@code message} (which quotes the
	 * invalid value): {@code metadata.labels (FieldValueInvalid)}, or either part alone
	 * when the other is missing. Repeats are dropped.
	 * @param buf the bytes
	 * @param off where the status starts
	 * @param len its length
	 * @return the causes, in order; empty when there are none or the bytes are not a
	 * status
	 */
	static List<String> causes(byte[] buf, int off, int len) {
		Set<String> causes = new LinkedHashSet<>();
		try (JsonParser p = FACTORY.createParser(ObjectReadContext.empty(), buf, off, len)) {
			if (p.nextToken() != JsonToken.START_OBJECT) {
				return List.of();
			}
			while (p.nextToken() == JsonToken.PROPERTY_NAME) {
				String field = p.currentName();
				if (p.nextToken() == JsonToken.START_OBJECT && "details".equals(field)) {
					while (p.nextToken() == JsonToken.PROPERTY_NAME) {
						String detail = p.currentName();
						if (p.nextToken() == JsonToken.START_ARRAY && "causes".equals(detail)) {
							while (p.nextToken() == JsonToken.START_OBJECT) {
								String cause = cause(p);
								if (cause != null) {
									causes.add(cause);
								}
							}
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
		}
		catch (JacksonException ex) {
			// what was read is kept
		}
		return List.copyOf(causes);
	}

	/** Reads one cause, from after its '{' to its '}'. */
	private static @Nullable String cause(JsonParser p) {
		String field = null;
		String reason = null;
		while (p.nextToken() == JsonToken.PROPERTY_NAME) {
			String name = p.currentName();
			JsonToken value = p.nextToken();
			if ("field".equals(name) && value == JsonToken.VALUE_STRING && !p.getString().isEmpty()) {
				field = p.getString();
			}
			else if ("reason".equals(name) && value == JsonToken.VALUE_STRING && !p.getString().isEmpty()) {
				reason = p.getString();
			}
			else {
				p.skipChildren();
			}
		}
		if (field == null) {
			return reason;
		}
		return (reason != null) ? field + " (" + reason + ")" : field;
	}

}
