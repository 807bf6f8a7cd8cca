package dev.listwatch.informer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IndexSlots}: a slot from the values an index function returned, read back value
 * by value, and what an object is filed under with one user index and with several.
 */
class IndexSlotsTests {

	@Test
	void noValueIsNoSlot() {
		assertThat(IndexSlots.of(null)).isNull();
		assertThat(IndexSlots.of(List.of())).isNull();
		assertThat(values(null)).isEmpty();
		assertThat(IndexSlots.contains(null, "a")).isFalse();
		assertThat(IndexSlots.isFailed(null)).isFalse();
	}

	@Test
	void oneValueIsTheStringItself() {
		String value = new String("web");
		assertThat(IndexSlots.of(List.of(value))).isSameAs(value);
		assertThat(IndexSlots.of(List.of(value, "web", value))).isSameAs(value);
		assertThat(values(value)).containsExactly("web");
		assertThat(IndexSlots.contains(value, "web")).isTrue();
		assertThat(IndexSlots.contains(value, "db")).isFalse();
	}

	@Test
	void severalValuesAreDistinctInTheirOrder() {
		Object slot = IndexSlots.of(List.of("b", "a", "b", "c", "a"));
		assertThat(values(slot)).containsExactly("b", "a", "c");
		assertThat(IndexSlots.contains(slot, "c")).isTrue();
		assertThat(IndexSlots.contains(slot, "d")).isFalse();
		assertThat(values(IndexSlots.of(new LinkedHashSet<>(List.of("x", "y"))))).containsExactly("x", "y");
	}

	@Test
	void aNullValueIsAFailureThatHoldsNoValue() {
		Object slot = IndexSlots.of(Arrays.asList("a", null, "b"));
		assertThat(IndexSlots.isFailed(slot)).isTrue();
		assertThat(slot).isSameAs(IndexSlots.failed());
		assertThat(values(slot)).isEmpty();
		assertThat(IndexSlots.contains(slot, "a")).isFalse();
		assertThat(IndexSlots.isFailed(IndexSlots.of(List.of("a")))).isFalse();
	}

	@Test
	void withOneUserIndexWhatIsFiledIsItsSlot() {
		Object slot = IndexSlots.of(List.of("a", "b"));
		Object filed = IndexSlots.with(null, 1, 1, slot);
		assertThat(filed).isSameAs(slot);
		// a String[] is an Object[]: the number of user indexes tells the slot from the
		// slots
		assertThat(IndexSlots.slot(filed, 1, 1)).isSameAs(slot);
		assertThat(IndexSlots.with(null, 1, 1, null)).isNull();
		assertThat(IndexSlots.hasFailure(IndexSlots.with(null, 1, 1, IndexSlots.failed()), 1)).isTrue();
		assertThat(IndexSlots.hasFailure(filed, 1)).isFalse();
	}

	@Test
	void withSeveralUserIndexesSlotsAreKeptOnlyWhenOneHoldsSomething() {
		assertThat(IndexSlots.with(IndexSlots.with(null, 1, 2, null), 2, 2, null)).isNull();
		assertThat(IndexSlots.slot(null, 2, 2)).isNull();
		assertThat(IndexSlots.hasFailure(null, 2)).isFalse();
		Object several = IndexSlots.of(List.of("a", "b"));
		Object filed = null;
		filed = IndexSlots.with(filed, 1, 3, null);
		filed = IndexSlots.with(filed, 2, 3, several);
		filed = IndexSlots.with(filed, 3, 3, "c");
		assertThat(IndexSlots.slot(filed, 1, 3)).isNull();
		assertThat(IndexSlots.slot(filed, 2, 3)).isSameAs(several);
		assertThat(IndexSlots.slot(filed, 3, 3)).isEqualTo("c");
		assertThat(IndexSlots.hasFailure(filed, 3)).isFalse();
		assertThat(IndexSlots.hasFailure(IndexSlots.with(filed, 1, 3, IndexSlots.failed()), 3)).isTrue();
	}

	private static List<String> values(Object slot) {
		List<String> values = new ArrayList<>();
		for (int i = 0; i < IndexSlots.size(slot); i++) {
			values.add(IndexSlots.value(slot, i));
		}
		return values;
	}

}
