package dev.listwatch.autoconfigure.endpoint;

import java.time.Duration;

import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.autoconfigure.health.FakeListerWatcher;
import dev.listwatch.autoconfigure.health.FakeWatchConfiguration;
import dev.listwatch.endpoint.ListwatchEndpoint;
import dev.listwatch.informer.Informer;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code listwatch} actuator endpoint over a watch backed by an in-memory fake.
 */
class ListwatchEndpointTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
				ListwatchAutoConfiguration.class, ListwatchEndpointAutoConfiguration.class))
		.withUserConfiguration(FakeWatchConfiguration.class)
		.withPropertyValues(FakeWatchConfiguration.PROPERTIES)
		.withPropertyValues("listwatch.watches.configmaps.label-selector=app=web",
				"management.endpoints.web.exposure.include=listwatch");

	@Test
	void describesEveryWatch() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(ListwatchEndpoint.class);
			FakeListerWatcher fake = context.getBean(FakeListerWatcher.class);
			fake.add("a");
			fake.releaseList();
			assertThat(context.getBean("configmapsInformer", Informer.class).awaitSynced(Duration.ofSeconds(10)))
				.isTrue();
			ListwatchEndpoint endpoint = context.getBean(ListwatchEndpoint.class);
			// the informer's latch opens as the cache is filled, just before the status
			// says synced
			await().atMost(Duration.ofSeconds(10)).until(() -> endpoint.watch("configmaps").synced());
			ListwatchEndpoint.WatchDescriptor watch = endpoint.watches().watches().get("configmaps");
			assertThat(watch.resource())
				.isEqualTo(new ListwatchEndpoint.ResourceDescriptor("v1", "ConfigMap", "configmaps", "default"));
			assertThat(watch.labelSelector()).isEqualTo("app=web");
			assertThat(watch.type()).isEqualTo("dev.listwatch.KubernetesObject");
			assertThat(watch.indexNames()).isNotNull();
			assertThat(watch.synced()).isTrue();
			assertThat(watch.objects()).isEqualTo(1);
			assertThat(watch.events()).containsKeys("ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR");
			assertThat(watch.backlog()).isGreaterThanOrEqualTo(0);
			assertThat(endpoint.watch("configmaps")).isNotNull();
			assertThat(endpoint.watch("nope")).isNull();
			String json = JsonMapper.shared().writeValueAsString(endpoint.watches());
			assertThat(json).contains("\"configmaps\"", "\"labelSelector\":\"app=web\"").doesNotContain("not-a-secret");
		});
	}

	@Test
	void notThereUnlessExposed() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ListwatchEndpoint.class));
	}

	@Test
	void notThereWithoutTheActuator() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("listwatchEndpoint")
				.hasBean("configmapsInformer"));
	}

}
