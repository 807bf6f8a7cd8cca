package dev.listwatch.client;

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

}
