package dev.listwatch.autoconfigure;

import java.nio.file.Path;
import java.util.List;

import dev.listwatch.KubernetesObject;
import dev.listwatch.WatchIndex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link WatchIndex} bean must name a declared watch: a typo fails startup instead of
 * leaving the index silently missing.
 */
class WatchIndexDeclarationTests {

	@TempDir
	Path dir;

	@Test
	void anIndexForAnUndeclaredWatchFailsStartupWithAnAnalysis() throws Exception {
		UndeclaredWatchContext.runner(this.dir, Beans.class).run((context) -> {
			UndeclaredWatchContext.assertDeclarationFailure(context)
				.hasMessageContaining("Watch 'configmap' cannot work")
				.hasMessageContaining("WatchIndex named 'byApp'")
				.hasMessageContaining("declared: configmaps");
			FailureAnalysis analysis = new ListwatchFailureAnalyzers.WatchDeclaration()
				.analyze(context.getStartupFailure());
			assertThat(analysis.getAction()).contains("Name one of the declared watches");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Beans {

		@Bean
		WatchIndex<KubernetesObject> byApp() {
			return WatchIndex.of("configmap", "byApp",
					(object, meta) -> List.of(meta.labels().getOrDefault("app", "")));
		}

	}

}
