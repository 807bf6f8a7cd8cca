package dev.listwatch.informer;

import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class LabelSelectorTests {

	@ParameterizedTest(name = "[{index}] \"{0}\" -> {1}")
	@CsvSource(delimiter = '|', quoteCharacter = '\'', textBlock = """
			''                                      | ''
			'   '                                   | ''
			x=a                                     | x=a
			x==a                                    | x==a
			x!=a                                    | x!=a
			'  x  =  a  '                           | x=a
			x=                                      | x=
			'x=,y=b'                                | x=,y=b
			x                                       | x
			!x                                      | !x
			' ! x '                                 | !x
			'x in (b,a)'                            | x in (a,b)
			'x notin (a)'                           | x notin (a)
			'x in ()'                               | x in ()
			'x in (foo,,baz),y,z notin ()'          | x in (,baz,foo),y,z notin ()
			'x in (,a)'                             | x in (,a)
			'x in (a,)'                             | x in (,a)
			'x in(a)'                               | x in (a)
			'x>1'                                   | x>1
			'x<10'                                  | x<10
			'b=1,a=2'                               | a=2,b=1
			'example.com/app=web'                   | example.com/app=web
			'a.b-c_d=e.f-g_h'                       | a.b-c_d=e.f-g_h
			'in=notin'                              | in=notin
			'x in (in,notin)'                       | x in (in,notin)
			'x=a,x!=b'                              | x=a,x!=b
			'x\tin\t(a)'                            | x in (a)
			""")
	void parsesValidSelectors(String text, String canonical) {
		LabelSelector selector = LabelSelector.parse(unescapeTab(text));
		assertThat(selector.toString()).isEqualTo((canonical != null) ? canonical : "");
		assertThat(LabelSelector.parse(selector.toString())).isEqualTo(selector);
	}

	private static String unescapeTab(String text) {
		return (text != null) ? text.replace("\\t", "\t") : null;
	}

	static Stream<Arguments> invalidSelectors() {
		return Stream.of(arguments("x=a b", 4, "',' or end of string"), arguments("x in (a", 7, "',' or ')'"),
				arguments("x in a", 5, "'('"), arguments("x in (a b)", 8, "',' or ')'"), arguments("x notin", 7, "'('"),
				arguments(",x", 0, "'!' or a label key"), arguments("x,", 2, "'!' or a label key after ','"),
				arguments("x,,y", 2, "'!' or a label key after ','"),
				arguments("x=a,", 4, "'!' or a label key after ','"), arguments("!x=a", 2, "',' or end of string"),
				arguments("!", 1, "a label key"), arguments("x=(a)", 2, "a label value"),
				arguments("x (a)", 2, "one of '=', '==', '!=', 'in', 'notin', '>', '<'"),
				arguments("x=a=b", 3, "',' or end of string"), arguments("=a", 0, "'!' or a label key"),
				arguments("x>a", 2, "an integer"), arguments("x>", 1, "an integer"),
				arguments("x<-1", 2, "a valid label value"), arguments("-x=a", 0, "a valid label key"),
				arguments("x-=a", 0, "a valid label key"),
				arguments("/x=a", 0, "a valid label key (prefix part must be non-empty"),
				arguments("Example.com/x=a", 0, "a valid label key (prefix part must be a lowercase"),
				arguments("a/b/c=d", 0, "a valid label key (a qualified name"),
				arguments("x=-a", 2, "a valid label value"), arguments("x in (a,b_)", 8, "a valid label value"),
				arguments("x=a;b", 2, "a valid label value"),
				arguments("x".repeat(64) + "=a", 0, "a valid label key (name part must be no more than 63"),
				arguments("x=" + "a".repeat(64), 2, "a valid label value (must be no more than 63"));
	}

	@ParameterizedTest(name = "[{index}] \"{0}\" at {1}")
	@MethodSource("invalidSelectors")
	void rejectsInvalidSelectors(String text, int position, String expected) {
		assertThatIllegalArgumentException().isThrownBy(() -> LabelSelector.parse(text))
			.withMessageStartingWith(
					"Invalid label selector \"" + text + "\": at position " + position + " expected " + expected);
	}

	@Test
	void errorMessageSaysWhatWasFound() {
		assertThatIllegalArgumentException().isThrownBy(() -> LabelSelector.parse("x in (a"))
			.withMessage(
					"Invalid label selector \"x in (a\": at position 7 expected ',' or ')' but found end of string");
		assertThatIllegalArgumentException().isThrownBy(() -> LabelSelector.parse("x=a b"))
			.withMessage("Invalid label selector \"x=a b\": at position 4 expected ',' or end of string but found 'b'");
	}

	@ParameterizedTest(name = "[{index}] \"{0}\" on {1} -> {2}")
	@CsvSource(delimiter = '|', quoteCharacter = '\'', textBlock = """
			''                      | ''              | true
			''                      | app=web         | true
			app=web                 | app=web         | true
			app==web                | app=web         | true
			app=web                 | app=db          | false
			app=web                 | ''              | false
			app!=web                | ''              | true
			app!=web                | app=db          | true
			app!=web                | app=web         | false
			'app='                  | app=            | true
			'app='                  | ''              | false
			app                     | app=            | true
			app                     | other=x         | false
			!app                    | other=x         | true
			!app                    | app=x           | false
			'app in (web,db)'       | app=db          | true
			'app in (web,db)'       | app=x           | false
			'app in (web,db)'       | ''              | false
			'app in ()'             | app=            | true
			'app notin (web)'       | ''              | true
			'app notin (web)'       | app=db          | true
			'app notin (web)'       | app=web         | false
			'n>5'                   | n=6             | true
			'n>5'                   | n=5             | false
			'n>5'                   | n=x             | false
			'n>5'                   | ''              | false
			'n<5'                   | n=4             | true
			'n<5'                   | n=-7            | true
			'app=web,tier!=db'      | app=web;tier=fe | true
			'app=web,tier!=db'      | app=web;tier=db | false
			'app=web,!canary'       | app=web;canary= | false
			""")
	void matches(String text, String labels, boolean expected) {
		assertThat(LabelSelector.parse(text).matches(labels(labels))).isEqualTo(expected);
	}

	@Test
	void everythingMatchesAnyLabelsAndNull() {
		assertThat(LabelSelector.everything().matches(null)).isTrue();
		assertThat(LabelSelector.everything().isEverything()).isTrue();
		assertThat(LabelSelector.parse(null)).isSameAs(LabelSelector.everything());
		assertThat(LabelSelector.parse("a").matches(null)).isFalse();
	}

	@ParameterizedTest
	@ValueSource(strings = { "app=web", "x in (a,b)" })
	void cachesParsedSelectors(String text) {
		LabelSelector first = LabelSelector.parse(text);
		assertThat(LabelSelector.parse(text)).isSameAs(first);
		assertThat(LabelSelector.cachedSelectors()).contains(text);
	}

	@Test
	void cacheIsBounded() {
		for (int i = 0; i < 1000; i++) {
			LabelSelector.parse("k" + i + "=v");
		}
		assertThat(LabelSelector.cachedSelectors().size()).isLessThanOrEqualTo(256);
	}

	static Map<String, String> labels(String text) {
		Map<String, String> labels = new java.util.HashMap<>();
		if (text == null || text.isEmpty()) {
			return labels;
		}
		for (String pair : text.split(";")) {
			int eq = pair.indexOf('=');
			labels.put(pair.substring(0, eq), pair.substring(eq + 1));
		}
		return labels;
	}

}
