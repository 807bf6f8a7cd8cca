package dev.listwatch.informer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * A parsed Kubernetes label selector, with the syntax and semantics of apimachinery's
 * {@code labels.Parse}:
 *
 * <pre>
 * selector    ::= "" | requirement ( "," requirement )*
 * requirement ::= [ "!" ] KEY
 *               | KEY ( "=" | "==" | "!=" ) VALUE
 *               | KEY ( "in" | "notin" ) "(" VALUE ( "," VALUE )* ")"
 *               | KEY ( "&gt;" | "&lt;" ) INTEGER
 * </pre>
 *
 * Whitespace around tokens is ignored; a comma means AND. {@code KEY} is a qualified name
 * ({@code [dns-subdomain/]name}, the name part at most 63 characters of alphanumerics,
 * {@code -}, {@code _} and {@code .}, starting and ending alphanumeric); {@code VALUE} is
 * empty or such a name. {@code in} requires the label to exist with one of the values;
 * {@code notin} and {@code !=} also match when the label is absent; {@code >} and
 * {@code <} require the label to exist and to hold an integer. In a value list, an empty
 * element (as in {@code (a,,b)} or {@code ()}) stands for the empty value.
 * <p>
 * Instances are immutable and thread-safe. {@link #parse(String)} keeps a small cache of
 * parsed selectors so that listing by a selector string is cheap.
 */
final class LabelSelector {

	private static final LabelSelector EVERYTHING = new LabelSelector(List.of());

	private static final int CACHE_LIMIT = 256;

	private static final Map<String, LabelSelector> CACHE = new ConcurrentHashMap<>();

	private final List<Requirement> requirements;

	private LabelSelector(List<Requirement> requirements) {
		this.requirements = requirements;
	}

	/**
	 * The selector that matches every label set.
	 * @return the empty selector
	 */
	static LabelSelector everything() {
		return EVERYTHING;
	}

	/**
	 * Parses a selector; a {@code null}, empty or blank string yields
	 * {@link #everything()}. Results are cached (a few hundred distinct selectors).
	 * @param selector the selector text
	 * @return the selector
	 * @throws IllegalArgumentException if the text is not a valid selector; the message
	 * quotes the selector, names the 0-based position of the fault and what was expected
	 * there
	 */
	static LabelSelector parse(@Nullable String selector) {
		if (selector == null || selector.isBlank()) {
			return EVERYTHING;
		}
		LabelSelector cached = CACHE.get(selector);
		if (cached != null) {
			return cached;
		}
		LabelSelector parsed = new Parser(selector).parse();
		if (CACHE.size() >= CACHE_LIMIT) {
			CACHE.clear();
		}
		CACHE.put(selector, parsed);
		return parsed;
	}

	/**
	 * Whether a label set satisfies every requirement of this selector.
	 * @param labels the labels, {@code null} meaning none
	 * @return {@code true} if they match
	 */
	public boolean matches(Map<String, String> labels) {
		Map<String, String> set = (labels != null) ? labels : Map.of();
		for (Requirement requirement : this.requirements) {
			if (!requirement.matches(set)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Whether this selector matches everything.
	 * @return {@code true} for the empty selector
	 */
	public boolean isEverything() {
		return this.requirements.isEmpty();
	}

	/**
	 * The requirements, sorted by key.
	 * @return the requirements, unmodifiable
	 */
	public List<Requirement> requirements() {
		return this.requirements;
	}

	/**
	 * The canonical text: requirements sorted by key, values sorted, no whitespace beyond
	 * what {@code in}/{@code notin} need. Parsing it yields an equal selector.
	 */
	@Override
	public String toString() {
		StringBuilder text = new StringBuilder();
		for (Requirement requirement : this.requirements) {
			if (!text.isEmpty()) {
				text.append(',');
			}
			text.append(requirement);
		}
		return text.toString();
	}

	@Override
	public boolean equals(Object other) {
		return other instanceof LabelSelector that && this.requirements.equals(that.requirements);
	}

	@Override
	public int hashCode() {
		return this.requirements.hashCode();
	}

	/**
	 * The operators of a requirement ({@code selection.Operator}).
	 */
	public enum Operator {

		EQUALS("="), DOUBLE_EQUALS("=="), NOT_EQUALS("!="), IN(" in "), NOT_IN(" notin "), EXISTS(""),
		DOES_NOT_EXIST("!"), GREATER_THAN(">"), LESS_THAN("<");

		private final String symbol;

		Operator(String symbol) {
			this.symbol = symbol;
		}

	}

	/**
	 * One requirement of a selector: a key, an operator and its values (sorted).
	 *
	 * @param key the label key
	 * @param operator the operator
	 * @param values the values, sorted; empty for {@code EXISTS} and
	 * {@code DOES_NOT_EXIST}
	 */
	public record Requirement(String key, Operator operator, List<String> values) {

		public Requirement {
			values = List.copyOf(values);
		}

		/**
		 * Whether a label set satisfies this requirement.
		 * @param labels the labels
		 * @return {@code true} if they do
		 */
		public boolean matches(Map<String, String> labels) {
			String value = labels.get(this.key);
			switch (this.operator) {
				case EQUALS:
				case DOUBLE_EQUALS:
					return value != null && value.equals(this.values.get(0));
				case NOT_EQUALS:
					return value == null || !value.equals(this.values.get(0));
				case IN:
					return value != null && this.values.contains(value);
				case NOT_IN:
					return value == null || !this.values.contains(value);
				case EXISTS:
					return value != null;
				case DOES_NOT_EXIST:
					return value == null;
				case GREATER_THAN:
				case LESS_THAN:
					if (value == null) {
						return false;
					}
					long actual;
					try {
						actual = Long.parseLong(value);
					}
					catch (NumberFormatException ex) {
						return false;
					}
					long bound = Long.parseLong(this.values.get(0));
					return (this.operator == Operator.GREATER_THAN) ? actual > bound : actual < bound;
				default:
					throw new IllegalStateException("Unknown operator " + this.operator);
			}
		}

		@Override
		public String toString() {
			return switch (this.operator) {
				case DOES_NOT_EXIST -> "!" + this.key;
				case EXISTS -> this.key;
				case IN, NOT_IN -> this.key + this.operator.symbol + "(" + String.join(",", this.values) + ")";
				default -> this.key + this.operator.symbol + this.values.get(0);
			};
		}

	}

	// ---------------------------------------------------------------- parsing

	private static final Pattern QUALIFIED_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");

	private static final Pattern DNS1123_SUBDOMAIN = Pattern
		.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

	/**
	 * Checks a label key as apimachinery's {@code IsQualifiedName} does.
	 * @param key the key
	 * @return {@code null} if valid, else why not
	 */
	static @Nullable String checkLabelKey(String key) {
		String[] parts = key.split("/", -1);
		String name;
		if (parts.length == 1) {
			name = parts[0];
		}
		else if (parts.length == 2) {
			String prefix = parts[0];
			name = parts[1];
			if (prefix.isEmpty()) {
				return "prefix part must be non-empty";
			}
			if (prefix.length() > 253) {
				return "prefix part must be no more than 253 characters";
			}
			if (!DNS1123_SUBDOMAIN.matcher(prefix).matches()) {
				return "prefix part must be a lowercase RFC 1123 subdomain: lowercase alphanumerics, '-' and '.'";
			}
		}
		else {
			return "a qualified name must be an optional DNS subdomain prefix and '/' followed by a name";
		}
		if (name.isEmpty()) {
			return "name part must be non-empty";
		}
		if (name.length() > 63) {
			return "name part must be no more than 63 characters";
		}
		if (!QUALIFIED_NAME.matcher(name).matches()) {
			return "name part must consist of alphanumeric characters, '-', '_' or '.', "
					+ "and must start and end with an alphanumeric character";
		}
		return null;
	}

	/**
	 * Checks a label value as apimachinery's {@code IsValidLabelValue} does.
	 * @param value the value
	 * @return {@code null} if valid, else why not
	 */
	static @Nullable String checkLabelValue(String value) {
		if (value.length() > 63) {
			return "must be no more than 63 characters";
		}
		if (!value.isEmpty() && !QUALIFIED_NAME.matcher(value).matches()) {
			return "a valid label value must be empty or consist of alphanumeric characters, '-', '_' or '.', "
					+ "and must start and end with an alphanumeric character";
		}
		return null;
	}

	private enum TokenType {

		IDENTIFIER, END, COMMA, OPEN_PAR, CLOSED_PAR, NOT, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN,
		IN, NOT_IN

	}

	private record Token(TokenType type, String text, int position) {

		/** In a value position, {@code in} and {@code notin} are plain identifiers. */
		TokenType asValue() {
			return (this.type == TokenType.IN || this.type == TokenType.NOT_IN) ? TokenType.IDENTIFIER : this.type;
		}

		String describe() {
			return (this.type == TokenType.END) ? "end of string" : "'" + this.text + "'";
		}

	}

	private static final class Parser {

		private final String selector;

		private final List<Token> tokens = new ArrayList<>();

		private int index;

		Parser(String selector) {
			this.selector = selector;
		}

		LabelSelector parse() {
			lex();
			List<Requirement> requirements = new ArrayList<>();
			while (true) {
				Token token = peek();
				TokenType type = token.asValue();
				if (type == TokenType.END) {
					break;
				}
				if (type != TokenType.IDENTIFIER && type != TokenType.NOT) {
					throw error(token, "'!' or a label key");
				}
				requirements.add(parseRequirement());
				Token next = next();
				if (next.type == TokenType.END) {
					break;
				}
				if (next.type != TokenType.COMMA) {
					throw error(next, "',' or end of string");
				}
				Token afterComma = peek();
				if (afterComma.asValue() != TokenType.IDENTIFIER && afterComma.type != TokenType.NOT) {
					throw error(afterComma, "'!' or a label key after ','");
				}
			}
			if (requirements.isEmpty()) {
				return EVERYTHING;
			}
			requirements.sort(Comparator.comparing(Requirement::key));
			return new LabelSelector(Collections.unmodifiableList(requirements));
		}

		private Requirement parseRequirement() {
			Token token = next();
			boolean negated = false;
			if (token.type == TokenType.NOT) {
				negated = true;
				token = next();
			}
			if (token.asValue() != TokenType.IDENTIFIER) {
				throw error(token, "a label key");
			}
			String key = token.text;
			String invalid = checkLabelKey(key);
			if (invalid != null) {
				throw error(token, "a valid label key (" + invalid + ")");
			}
			TokenType following = peek().type;
			if (negated) {
				return new Requirement(key, Operator.DOES_NOT_EXIST, List.of());
			}
			if (following == TokenType.END || following == TokenType.COMMA) {
				return new Requirement(key, Operator.EXISTS, List.of());
			}
			Token operatorToken = next();
			Operator operator = switch (operatorToken.type) {
				case EQUALS -> Operator.EQUALS;
				case DOUBLE_EQUALS -> Operator.DOUBLE_EQUALS;
				case NOT_EQUALS -> Operator.NOT_EQUALS;
				case IN -> Operator.IN;
				case NOT_IN -> Operator.NOT_IN;
				case GREATER_THAN -> Operator.GREATER_THAN;
				case LESS_THAN -> Operator.LESS_THAN;
				default -> throw error(operatorToken, "one of '=', '==', '!=', 'in', 'notin', '>', '<'");
			};
			List<String> values;
			List<Token> valueTokens = new ArrayList<>();
			if (operator == Operator.IN || operator == Operator.NOT_IN) {
				values = parseValueSet(valueTokens);
			}
			else {
				values = List.of(parseExactValue(valueTokens));
			}
			for (int i = 0; i < values.size(); i++) {
				String value = values.get(i);
				Token where = valueTokens.isEmpty() ? operatorToken
						: valueTokens.get(Math.min(i, valueTokens.size() - 1));
				if (operator == Operator.GREATER_THAN || operator == Operator.LESS_THAN) {
					try {
						Long.parseLong(value);
					}
					catch (NumberFormatException ex) {
						throw error(where, "an integer for '" + operatorToken.text + "'");
					}
				}
				String invalidValue = checkLabelValue(value);
				if (invalidValue != null) {
					throw error(where, "a valid label value (" + invalidValue + ")");
				}
			}
			return new Requirement(key, operator, values);
		}

		private String parseExactValue(List<Token> valueTokens) {
			TokenType type = peek().type;
			if (type == TokenType.END || type == TokenType.COMMA) {
				return "";
			}
			Token token = next();
			if (token.asValue() != TokenType.IDENTIFIER) {
				throw error(token, "a label value");
			}
			valueTokens.add(token);
			return token.text;
		}

		private List<String> parseValueSet(List<Token> valueTokens) {
			Token open = next();
			if (open.type != TokenType.OPEN_PAR) {
				throw error(open, "'('");
			}
			TreeSet<String> values = new TreeSet<>();
			boolean expectValue = true;
			while (true) {
				Token token = next();
				TokenType type = token.asValue();
				if (type == TokenType.CLOSED_PAR) {
					if (expectValue) {
						values.add(""); // "()" or ",)"
					}
					break;
				}
				if (type == TokenType.COMMA) {
					if (expectValue) {
						values.add(""); // "(," or ",,"
					}
					expectValue = true;
					continue;
				}
				if (type == TokenType.IDENTIFIER && expectValue) {
					values.add(token.text);
					valueTokens.add(token);
					expectValue = false;
					continue;
				}
				throw error(token, expectValue ? "a label value, ',' or ')'" : "',' or ')'");
			}
			return new ArrayList<>(values);
		}

		private Token peek() {
			return this.tokens.get(this.index);
		}

		private Token next() {
			Token token = this.tokens.get(this.index);
			if (token.type != TokenType.END) {
				this.index++;
			}
			return token;
		}

		private IllegalArgumentException error(Token token, String expected) {
			return new IllegalArgumentException("Invalid label selector \"" + this.selector + "\": at position "
					+ token.position + " expected " + expected + " but found " + token.describe());
		}

		private void lex() {
			String s = this.selector;
			int pos = 0;
			int length = s.length();
			while (true) {
				while (pos < length && isWhitespace(s.charAt(pos))) {
					pos++;
				}
				if (pos >= length) {
					this.tokens.add(new Token(TokenType.END, "", length));
					return;
				}
				char ch = s.charAt(pos);
				int start = pos;
				if (isSpecial(ch)) {
					char after = (pos + 1 < length) ? s.charAt(pos + 1) : 0;
					TokenType type;
					int width = 1;
					if (ch == '!' && after == '=') {
						type = TokenType.NOT_EQUALS;
						width = 2;
					}
					else if (ch == '=' && after == '=') {
						type = TokenType.DOUBLE_EQUALS;
						width = 2;
					}
					else {
						type = switch (ch) {
							case '!' -> TokenType.NOT;
							case '=' -> TokenType.EQUALS;
							case '(' -> TokenType.OPEN_PAR;
							case ')' -> TokenType.CLOSED_PAR;
							case ',' -> TokenType.COMMA;
							case '>' -> TokenType.GREATER_THAN;
							default -> TokenType.LESS_THAN;
						};
					}
					pos += width;
					this.tokens.add(new Token(type, s.substring(start, pos), start));
				}
				else {
					while (pos < length && !isSpecial(s.charAt(pos)) && !isWhitespace(s.charAt(pos))) {
						pos++;
					}
					String word = s.substring(start, pos);
					TokenType type = switch (word) {
						case "in" -> TokenType.IN;
						case "notin" -> TokenType.NOT_IN;
						default -> TokenType.IDENTIFIER;
					};
					this.tokens.add(new Token(type, word, start));
				}
			}
		}

		private static boolean isWhitespace(char ch) {
			return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
		}

		private static boolean isSpecial(char ch) {
			return ch == '=' || ch == '!' || ch == '(' || ch == ')' || ch == ',' || ch == '>' || ch == '<';
		}

	}

	/** For tests: the selectors currently cached. */
	static Set<String> cachedSelectors() {
		return Set.copyOf(CACHE.keySet());
	}

}
