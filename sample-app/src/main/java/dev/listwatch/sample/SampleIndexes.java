package dev.listwatch.sample;

import java.util.List;

import dev.listwatch.KubernetesObject;
import dev.listwatch.WatchIndex;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A custom index on the {@code configmaps} cache: ConfigMaps by their {@code app} label.
 */
@Configuration(proxyBeanMethods = false)
class SampleIndexes {

	static final String BY_APP = "byApp";

	@Bean
	WatchIndex<KubernetesObject> configmapsByApp() {
		return WatchIndex.of("configmaps", BY_APP, (object, meta) -> {
			String app = meta.labels().get("app");
			return (app != null) ? List.of(app) : List.of();
		});
	}

}
