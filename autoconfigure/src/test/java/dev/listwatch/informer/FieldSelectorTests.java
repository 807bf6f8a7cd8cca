package dev.listwatch.informer;

import java.util.List;
import java.util.stream.Stream;

import dev.listwatch.informer.FieldSelector.Operator;
import dev.listwatch.informer.FieldSelector.Term;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class FieldSelectorTests {

	@Test
	void parsesTerms() {
		assertThat(FieldSelector.validate("metadata.name=x,metadata.namespace!=y,status.phase==Running"))
			.containsExactly(new Term("metadata.name", Operator.EQUALS, "x"),
					new Term("metadata.namespace", Operator.NOT_EQUALS, "y"),
					new Term("status.phase", Operator.DOUBLE_EQUALS, "Running"));
	}

	@Test
	void emptySelectorsAndTerms() {
		assertThat(FieldSelector.validate(null)).isEmpty();
		assertThat(FieldSelector.validate(" ")).isEmpty();
		assertThat(FieldSelector.validate("a=b,,c=d,")).extracting(Term::field).containsExactly("a", "c");
		assertThat(FieldSelector.validate("metadata.name="))
			.containsExactly(new Term("metadata.name", Operator.EQUALS, ""));
	}

	@Test
	void unescapesValues() {
		assertThat(FieldSelector.validate("a=x\\,y\\=z\\\\,b!=w"))
			.isEqualTo(List.of(new Term("a", Operator.EQUALS, "x,y=z\\"), new Term("b", Operator.NOT_EQUALS, "w")));
	}

	static Stream<Arguments> malformed() {
		return Stream.of(arguments("metadata.name", 13, "'=', '==' or '!='"),
				arguments("a=b,c", 5, "'=', '==' or '!=' in term 'c'"), arguments("=x", 0, "a field name"),
				arguments("a=b=c", 3, "'\\=' (an unescaped '='"), arguments("a=b\\", 3, "an escaped character"),
				arguments("a=b\\x", 3, "one of"));
	}

	@ParameterizedTest(name = "[{index}] \"{0}\"")
	@MethodSource("malformed")
	void rejectsMalformed(String text, int position, String expected) {
		assertThatIllegalArgumentException().isThrownBy(() -> FieldSelector.validate(text))
			.withMessageStartingWith(
					"Invalid field selector \"" + text + "\": at position " + position + " expected " + expected);
	}

}
