package dev.listwatch.client;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class InternerTests {

	private final Interner interner = new Interner();

	@Test
	void sharesEqualStringsAndPassesNullThrough() {
		String first = this.interner.intern(new String("shop"));
		assertThat(this.interner.intern(new String("shop"))).isSameAs(first);
		assertThat(this.interner.intern(null)).isNull();
	}

	@Test
	void sharesEqualLabelSetsAsImmutableMaps() {
		Map<String, String> first = this.interner.labels(new HashMap<>(Map.of("app", "web", "tier", "front")));
		Map<String, String> second = this.interner.labels(new HashMap<>(Map.of("tier", "front", "app", "web")));
		assertThat(second).isSameAs(first).isEqualTo(Map.of("app", "web", "tier", "front"));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> first.put("a", "b"));
		assertThat(this.interner.labels(null)).isEmpty();
		assertThat(this.interner.labels(new HashMap<>())).isEmpty();
	}

	@Test
	void stopsPoolingWhenFullButKeepsSharingWhatItHolds() {
		String early = this.interner.intern(new String("early"));
		Map<String, String> earlyLabels = this.interner.labels(new HashMap<>(Map.of("k", "early")));
		for (int i = 0; i < Interner.POOL_LIMIT; i++) {
			this.interner.intern("s" + i);
			this.interner.labels(new HashMap<>(Map.of("k", "v" + i)));
		}
		String late = new String("late");
		assertThat(this.interner.intern(late)).isSameAs(late);
		assertThat(this.interner.intern(new String("late"))).isNotSameAs(late).isEqualTo("late");
		Map<String, String> lateLabels = this.interner.labels(new HashMap<>(Map.of("k", "late")));
		assertThat(this.interner.labels(new HashMap<>(Map.of("k", "late")))).isNotSameAs(lateLabels)
			.isEqualTo(lateLabels);
		assertThat(this.interner.intern(new String("early"))).isSameAs(early);
		assertThat(this.interner.labels(new HashMap<>(Map.of("k", "early")))).isSameAs(earlyLabels);
	}

}
