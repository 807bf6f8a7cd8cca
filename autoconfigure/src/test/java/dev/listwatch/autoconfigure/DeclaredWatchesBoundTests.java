package dev.listwatch.autoconfigure;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

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

	@Test
	void theWatchesAreBoundFromEverySourceThatHoldsListwatchPropertiesWithPlaceholdersFromAnySource() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
					new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
							Map.of("LISTWATCH_WATCHES_CMS_APIVERSION", "v1", "LISTWATCH_WATCHES_CMS_NAMESPACE",
									"${team}-apps")));
		environment.getPropertySources()
			.addFirst(new MapPropertySource("application", Map.of("listwatch.watches.cms.kind", "ConfigMap",
					"listwatch.watches.cms.namespace", "shop", "listwatch.defaults.page-size", "42")));
		environment.getPropertySources().addLast(new MapPropertySource("elsewhere", Map.of("team", "billing")));
		DeclaredWatches.Bound bound = DeclaredWatches.Bound.of(environment);
		assertThat(bound.enabled()).containsOnlyKeys("cms");
		ListwatchProperties.Watch cms = bound.enabled().get("cms");
		assertThat(cms.getApiVersion()).as("from the environment variable").isEqualTo("v1");
		assertThat(cms.getKind()).isEqualTo("ConfigMap");
		assertThat(cms.getNamespace()).as("the first source wins, as Binder.get's binder has it").isEqualTo("shop");
		assertThat(bound.defaults().getPageSize()).isEqualTo(42L);
		environment.getPropertySources().remove("application");
		assertThat(DeclaredWatches.Bound.of(environment).enabled().get("cms").getNamespace())
			.as("a placeholder resolved from a source without listwatch properties")
			.isEqualTo("billing-apps");
		assertThat(DeclaredWatches.binder(environment).bind("team", String.class).isBound())
			.as("sources without listwatch properties are not bound from")
			.isFalse();
	}

}
