package dev.listwatch.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.listwatch.Items;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.ObjectTransform;
import dev.listwatch.Resource;
import dev.listwatch.WatchStream;
import dev.listwatch.WatchTransform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code listwatch.watches.<name>.keep} and {@code drop}: for KubernetesObject watches
 * only, with paths that can work, each refusal naming the property.
 */
class WatchTransformDeclarationTests {

	@TempDir
	Path dir;

	@Test
	void aTransformBeanForAnUndeclaredWatchFailsStartup() throws Exception {
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
					.hasMessageContaining("a WatchTransform is declared for it")
					.hasMessageContaining("declared: configmaps");
			});
	}

	@Test
	void neitherSetIsNoTransform() {
		assertThat(DeclaredWatches.pathTransform("pods", new ListwatchProperties.Watch(), KubernetesObject.class))
			.isNull();
	}

	@Test
	void keepOrDropOfAnotherTypeFailsNamingTheProperty() {
		ListwatchProperties.Watch watch = new ListwatchProperties.Watch();
		watch.setDrop(List.of("status"));
		assertThatExceptionOfType(WatchDeclarationException.class)
			.isThrownBy(() -> DeclaredWatches.pathTransform("pods", watch, String.class))
			.withMessageContaining("listwatch.watches.pods.drop")
			.withMessageContaining("java.lang.String");
	}

	@Test
	void aPathThatCannotWorkFailsNamingTheProperty() {
		ListwatchProperties.Watch watch = new ListwatchProperties.Watch();
		watch.setDrop(List.of("metadata"));
		assertThatExceptionOfType(WatchDeclarationException.class)
			.isThrownBy(() -> DeclaredWatches.pathTransform("pods", watch, KubernetesObject.class))
			.withMessageContaining("drop")
			.withMessageContaining("always kept");
	}

	@Configuration(proxyBeanMethods = false)
	static class Beans {

		@Bean
		WatchTransform<KubernetesObject> withoutData() {
			return WatchTransform.of("configmap", ObjectTransform.dropping(List.of("data")));
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
