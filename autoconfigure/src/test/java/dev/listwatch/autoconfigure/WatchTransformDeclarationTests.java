package dev.listwatch.autoconfigure;

import java.nio.file.Path;
import java.util.List;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectTransform;
import dev.listwatch.WatchTransform;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.WatchDeclaration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
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
		UndeclaredWatchContext.runner(this.dir, Beans.class)
			.run((context) -> UndeclaredWatchContext.assertDeclarationFailure(context)
				.hasMessageContaining("Watch 'configmap' cannot work")
				.hasMessageContaining("a WatchTransform is declared for it")
				.hasMessageContaining("declared: configmaps"));
	}

	@Test
	void aWatchWhoseObjectsATransformReshapesIsNotSharedWithCodeThatDeclaresTheSame() throws Exception {
		Path kubeconfig = ListwatchAutoConfigurationTests.writeKubeconfig(this.dir.resolve("config"),
				"https://127.0.0.1:" + ListwatchAutoConfigurationTests.closedPort());
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class))
			.withBean("reshapedTransform", WatchTransform.class,
					() -> WatchTransform.of("reshaped", ObjectTransform.dropping(List.of("data"))))
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.watches.stripped.api-version=v1",
					"listwatch.watches.stripped.kind=ConfigMap", "listwatch.watches.stripped.drop=data",
					"listwatch.watches.reshaped.api-version=v1", "listwatch.watches.reshaped.kind=Secret",
					"listwatch.watches.plain.api-version=v1", "listwatch.watches.plain.kind=Pod")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				InformerFactory factory = context.getBean(InformerFactory.class);
				assertThat(factory.informer("myConfigMaps", WatchDeclaration.of("v1", "ConfigMap")))
					.as("code's own informer of whole objects, not the one that drops data")
					.isNotSameAs(context.getBean("strippedInformer", Informer.class));
				assertThat(factory.informer("mySecrets", WatchDeclaration.of("v1", "Secret")))
					.as("nor the one a WatchTransform bean reshapes")
					.isNotSameAs(context.getBean("reshapedInformer", Informer.class));
				assertThat(factory.informer("myPods", WatchDeclaration.of("v1", "Pod")))
					.as("a watch without a transform is shared")
					.isSameAs(context.getBean("plainInformer", Informer.class));
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

	}

}
