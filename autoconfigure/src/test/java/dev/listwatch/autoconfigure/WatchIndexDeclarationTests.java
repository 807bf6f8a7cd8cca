package dev.listwatch.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.listwatch.Items;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.Resource;
import dev.listwatch.WatchIndex;
import dev.listwatch.WatchStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
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
		Path kubeconfig = this.dir.resolve("config");
		Files.writeString(kubeconfig, """
				apiVersion: v1
				kind: Config
				clusters: [{name: c, cluster: {server: "http://127.0.0.1:9"}}]
				users: [{name: u, user: {}}]
				contexts: [{name: x, context: {cluster: c, user: u}}]
				current-context: x
				""");
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ListwatchAutoConfiguration.class))
			.withUserConfiguration(Beans.class)
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.watches.configmaps.api-version=v1",
					"listwatch.watches.configmaps.kind=ConfigMap")
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable failure = context.getStartupFailure();
				while (failure != null && !(failure instanceof WatchDeclarationException)) {
					failure = failure.getCause();
				}
				assertThat(failure).isInstanceOf(WatchDeclarationException.class)
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

		@Bean
		ListerWatcher<KubernetesObject> configmapsListerWatcher() {
			return new ListerWatcher<>() {

				@Override
				public ObjectList<KubernetesObject> list(ListOptions options) {
					return new ObjectList<>(Items.zip(List.of(), List.of()), "1", null, null);
				}

				@Override
				public WatchStream<KubernetesObject> watch(ListOptions options) {
					throw new UnsupportedOperationException();
				}

				@Override
				public Resource resource() {
					return new Resource("", "v1", "configmaps", "ConfigMap", true, null);
				}

			};
		}

	}

}
