package dev.listwatch.autoconfigure;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DeclaredWatches.Bound}: the declarations bound once per environment for every
 * per-watch bean.
 */
class DeclaredWatchesBoundTests {

	@Test
	void boundOnceForAnEnvironmentAndAgainWhenItsPropertySourcesChange() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.addFirst(new MapPropertySource("first", Map.of("listwatch.watches.cms.api-version", "v1",
					"listwatch.watches.cms.kind", "ConfigMap", "listwatch.defaults.page-size", "42")));
		DeclaredWatches.Bound bound = DeclaredWatches.Bound.of(environment);
		assertThat(bound.enabled()).containsOnlyKeys("cms");
		assertThat(bound.defaults().getPageSize()).isEqualTo(42L);
		assertThat(DeclaredWatches.Bound.of(environment)).as("the same sources: not bound again").isSameAs(bound);

		environment.getPropertySources()
			.addFirst(new MapPropertySource("second", Map.of("listwatch.watches.pods.api-version", "v1",
					"listwatch.watches.pods.resource", "pods", "listwatch.watches.cms.enabled", "false")));
		DeclaredWatches.Bound again = DeclaredWatches.Bound.of(environment);
		assertThat(again).isNotSameAs(bound);
		assertThat(again.enabled()).containsOnlyKeys("pods");

		StandardEnvironment other = new StandardEnvironment();
		assertThat(DeclaredWatches.Bound.of(other).enabled()).as("another environment, its own declarations").isEmpty();
	}

}
