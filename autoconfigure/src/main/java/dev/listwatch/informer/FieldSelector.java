package dev.listwatch.informer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Validates a Kubernetes field selector ({@code metadata.name=x,metadata.namespace!=y})
 * before it is sent, with the syntax of apimachinery's {@code fields.ParseSelector}:
 * terms separated by commas (AND), each {@code field=value}, {@code field==value} or
 * {@code field!=value}; in a value, {@code \,}, {@code \=} and {@code \\} escape a comma,
 * an equals sign and a backslash. Empty terms are ignored.
 * <p>
 * Validation only: which fields a resource supports is the API server's business, and the
 * server applies the selector; the cache never filters by fields.
 */
final class FieldSelector {

	private FieldSelector() {
	}

	/**
	 * The operators of a field selector term.
	 */
	public enum Operator {

		EQUALS("="), DOUBLE_EQUALS("=="), NOT_EQUALS("!=");

		private final String symbol;

		Operator(String symbol) {
			this.symbol = symbol;
		}

		/**
		 * The operator as written.
		 * @return {@code =}, {@code ==} or {@code !=}
		 */
		public String symbol() {
			return this.symbol;
		}

	}

	/**
	 * One term of a field selector.
	 *
	 * @param field the field path, for example {@code metadata.name}
	 * @param operator the operator
	 * @param value the value, unescaped
	 */
	public record Term(String field, Operator operator, String value) {
	}

	/**
	 * Validates a field selector and returns its terms.
	 * @param selector the selector; {@code null} or blank for none
	 * @return the terms in the order written, unmodifiable; empty for none
	 * @throws IllegalArgumentException if the selector is malformed; the message quotes
	 * the selector, names the 0-based position of the fault and what was expected
	 */
	static List<Term> validate(String selector) {
		if (selector == null || selector.isBlank()) {
			return List.of();
		}
		List<Term> terms = new ArrayList<>();
		int length = selector.length();
		int start = 0;
		while (start <= length) {
			int end = termEnd(selector, start);
			if (end > start) {
				terms.add(parseTerm(selector, start, end));
			}
			start = end + 1;
		}
		return Collections.unmodifiableList(terms);
	}

	/**
	 * The index of the unescaped comma that ends the term starting at {@code start}, or
	 * the length.
	 */
	private static int termEnd(String selector, int start) {
		int i = start;
		while (i < selector.length()) {
			char ch = selector.charAt(i);
			if (ch == '\\') {
				i += 2;
				continue;
			}
			if (ch == ',') {
				return i;
			}
			i++;
		}
		return selector.length();
	}

	private static Term parseTerm(String selector, int start, int end) {
		for (int i = start; i < end; i++) {
			char ch = selector.charAt(i);
			if (ch == '\\') {
				i++;
				continue;
			}
			Operator operator = null;
			if (ch == '!' && i + 1 < end && selector.charAt(i + 1) == '=') {
				operator = Operator.NOT_EQUALS;
			}
			else if (ch == '=' && i + 1 < end && selector.charAt(i + 1) == '=') {
				operator = Operator.DOUBLE_EQUALS;
			}
			else if (ch == '=') {
				operator = Operator.EQUALS;
			}
			if (operator != null) {
				String field = selector.substring(start, i).trim();
				if (field.isEmpty()) {
					throw error(selector, start, "a field name before '" + operator.symbol + "'");
				}
				int valueStart = i + operator.symbol.length();
				return new Term(field, operator, unescape(selector, valueStart, end));
			}
		}
		throw error(selector, end, "'=', '==' or '!=' in term '" + selector.substring(start, end) + "'");
	}

	private static String unescape(String selector, int start, int end) {
		StringBuilder value = new StringBuilder(end - start);
		for (int i = start; i < end; i++) {
			char ch = selector.charAt(i);
			if (ch == '\\') {
				if (i + 1 >= end) {
					throw error(selector, i, "an escaped character after '\\'");
				}
				char escaped = selector.charAt(i + 1);
				if (escaped != '\\' && escaped != ',' && escaped != '=') {
					throw error(selector, i, "one of '\\\\', '\\,' or '\\=' (invalid escape sequence)");
				}
				value.append(escaped);
				i++;
			}
			else if (ch == '=') {
				throw error(selector, i, "'\\=' (an unescaped '=' in a value)");
			}
			else {
				value.append(ch);
			}
		}
		return value.toString();
	}

	private static IllegalArgumentException error(String selector, int position, String expected) {
		return new IllegalArgumentException(
				"Invalid field selector \"" + selector + "\": at position " + position + " expected " + expected);
	}

}
