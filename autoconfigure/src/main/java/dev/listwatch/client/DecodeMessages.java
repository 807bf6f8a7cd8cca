package dev.listwatch.client;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.exc.IgnoredPropertyException;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

/**
 * The words of what went wrong in decoding, never with a value from the object: where a
 * value failed to bind and why, phrased from Jackson's exception (whose own messages
 * quote the value), and what a metadata-only list-watch got instead of metadata. Names
 * read from the bytes (an event type, a kind) are cut to 40 characters. Stateless.
 */
final class DecodeMessages {

	private DecodeMessages() {
	}

	/**
	 * The JSON pointer (RFC 6901) of the value that failed, from the exception's path:
	 * property names and array indexes, for example {@code /spec/items/3/name}.
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
	 * Why a value did not bind, without the value: Jackson's own messages quote it (for
	 * example {@code Cannot deserialize value of type X from String "..."}).
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

	/**
	 * A metadata-only list-watch got something else: the server (or something between)
	 * did not honour the {@code Accept} header.
	 * @param what what was read, for example {@code the list}
	 * @param kind the kind it has, or {@code null}
	 * @param expected the kind a metadata-only list-watch asks for
	 * @return the exception to throw
	 */
	static DecodeException notMetadataOnly(String what, @Nullable String kind, String expected) {
		return new DecodeException(what + " is " + ((kind != null) ? "a " + truncate(kind) : "an object without a kind")
				+ ", not a " + expected + " as a metadata-only list-watch asks: the server does not serve this "
				+ "resource's metadata alone");
	}

	/** {@code "an "} before a word that starts with a vowel, else {@code "a "}. */
	static String article(String text) {
		return startsWithVowel(text) ? "an " : "a ";
	}

	private static boolean startsWithVowel(String text) {
		return !text.isEmpty() && "AEIOUaeiou".indexOf(text.charAt(0)) >= 0;
	}

	/**
	 * A name read from the bytes, cut to 40 characters (and {@code ...}) for a message.
	 */
	static String truncate(String text) {
		return (text.length() > 40) ? text.substring(0, 40) + "..." : text;
	}

}
