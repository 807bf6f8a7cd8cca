package dev.listwatch.informer;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link StoreIndex} alone: a key filed under a value at most once, a value gone with its
 * last key, slots filed, unfiled and moved value by value, and reads that skip what the
 * reader skips.
 */
class StoreIndexTests {

	private final StoreIndex index = new StoreIndex();

	@Test
	void filesAKeyUnderAValueOnce() {
		this.index.file("web", "ns/a");
		this.index.file("web", "ns/a");
		assertThat(this.index.count("web")).isOne();
		assertThat(read("web")).containsExactly("ns/a");
		this.index.file("web", "ns/b");
		this.index.file("web", "ns/b");
		assertThat(this.index.count("web")).isEqualTo(2);
		assertThat(read("web")).containsExactlyInAnyOrder("ns/a", "ns/b");
		assertThat(this.index.values()).containsExactly("web");
	}

	@Test
	void aValueGoesWithItsLastKey() {
		this.index.file("web", "ns/a");
		this.index.file("web", "ns/b");
		this.index.file("web", "ns/c");
		this.index.unfile("web", "ns/b");
		assertThat(read("web")).containsExactlyInAnyOrder("ns/a", "ns/c");
		this.index.unfile("web", "ns/c");
		assertThat(this.index.count("web")).isOne();
		assertThat(read("web")).containsExactly("ns/a");
		this.index.unfile("web", "ns/a");
		assertThat(this.index.count("web")).isZero();
		assertThat(read("web")).isEmpty();
		assertThat(this.index.values()).isEmpty();
	}

	@Test
	void unfilingWhatIsNotFiledChangesNothing() {
		this.index.unfile("web", "ns/a");
		this.index.file("web", "ns/a");
		this.index.unfile("web", "ns/b");
		this.index.unfile("db", "ns/a");
		assertThat(read("web")).containsExactly("ns/a");
		this.index.file("web", "ns/b");
		this.index.unfile("web", "ns/c");
		assertThat(read("web")).containsExactlyInAnyOrder("ns/a", "ns/b");
		assertThat(this.index.values()).containsExactly("web");
	}

	@Test
	void slotsAreFiledAndUnfiledValueByValue() {
		this.index.fileSlot(IndexSlots.of(List.of("a", "b", "a")), "ns/x");
		this.index.fileSlot(IndexSlots.of(List.of("b")), "ns/y");
		this.index.fileSlot(null, "ns/z");
		this.index.fileSlot(IndexSlots.failed(), "ns/z");
		assertThat(this.index.values()).containsExactlyInAnyOrder("a", "b");
		assertThat(read("b")).containsExactlyInAnyOrder("ns/x", "ns/y");
		this.index.unfileSlot(IndexSlots.of(List.of("a", "b")), "ns/x");
		this.index.unfileSlot(IndexSlots.failed(), "ns/y");
		assertThat(this.index.values()).containsExactly("b");
		assertThat(read("b")).containsExactly("ns/y");
	}

	@Test
	void refileMovesAKeyOutOfTheValuesItLeftAndIntoThoseItGained() {
		this.index.fileSlot(IndexSlots.of(List.of("a", "b")), "ns/x");
		this.index.file("b", "ns/y");
		this.index.refile(IndexSlots.of(List.of("a", "b")), IndexSlots.of(List.of("b", "c")), "ns/x");
		assertThat(read("a")).isEmpty();
		assertThat(read("b")).containsExactlyInAnyOrder("ns/x", "ns/y");
		assertThat(read("c")).containsExactly("ns/x");
		this.index.refile(IndexSlots.of(List.of("b", "c")), IndexSlots.failed(), "ns/x");
		assertThat(this.index.values()).containsExactly("b");
		assertThat(read("b")).containsExactly("ns/y");
		this.index.refile(null, "d", "ns/x");
		assertThat(read("d")).containsExactly("ns/x");
	}

	@Test
	void readSkipsTheKeysItsReaderSkipsAndReturnsUnmodifiableLists() {
		Map<String, Integer> content = Map.of("ns/a", 1, "ns/b", 2, "ns/c", 3);
		this.index.file("v", "ns/a");
		this.index.file("v", "ns/b");
		this.index.file("v", "ns/c");
		this.index.file("w", "ns/b");
		this.index.file("gone", "ns/missing");
		List<Integer> odd = this.index.read("v", content, 1, StoreIndexTests::withRemainder);
		assertThat(odd).containsExactlyInAnyOrder(1, 3);
		assertThat(this.index.read("w", content, 0, StoreIndexTests::withRemainder)).containsExactly(2);
		assertThat(this.index.read("w", content, 1, StoreIndexTests::withRemainder)).isEmpty();
		assertThat(this.index.read("gone", content, 1, StoreIndexTests::withRemainder)).isEmpty();
		assertThat(this.index.read("none", content, 1, StoreIndexTests::withRemainder)).isEmpty();
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> odd.add(5));
	}

	@Test
	void valuesAreASnapshot() {
		this.index.file("a", "ns/x");
		Set<String> values = this.index.values();
		this.index.file("b", "ns/x");
		this.index.unfile("a", "ns/x");
		assertThat(values).containsExactly("a");
		assertThat(this.index.values()).containsExactly("b");
	}

	private List<String> read(String value) {
		return this.index.read(value, "", "", (content, selection, key) -> key);
	}

	private static Integer withRemainder(Map<String, Integer> content, Integer remainder, String key) {
		Integer number = content.get(key);
		return (number != null && number % 2 == remainder) ? number : null;
	}

}
