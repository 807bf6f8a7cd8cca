package dev.listwatch.autoconfigure;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import dev.listwatch.Items;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.Resource;
import dev.listwatch.WatchStream;
import org.assertj.core.api.AbstractThrowableAssert;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The context of the tests in which a bean names a watch that is not declared (a
 * {@code WatchIndex}, a {@code WatchTransform} for {@code configmap}): the
 * auto-configuration, one declared watch {@code configmaps} served by an empty
 * lister-watcher, a kubeconfig whose server is never reached, and the test's beans.
 */
final class UndeclaredWatchContext {

	private UndeclaredWatchContext() {
	}

	/**
	 * The runner of that context.
	 * @param dir where to write the kubeconfig
	 * @param beans the test's configuration, with the bean that names the undeclared
	 * watch
	 * @return the runner
	 * @throws IOException when no closed port can be found
	 */
	static ApplicationContextRunner runner(Path dir, Class<?> beans) throws IOException {
		Path kubeconfig = ListwatchAutoConfigurationTests.writeKubeconfig(dir.resolve("config"),
				"https://127.0.0.1:" + ListwatchAutoConfigurationTests.closedPort());
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ListwatchAutoConfiguration.class))
			.withUserConfiguration(EmptyConfigMaps.class, beans)
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.watches.configmaps.api-version=v1",
					"listwatch.watches.configmaps.kind=ConfigMap");
	}

	/**
	 * Asserts that the context failed to start with a {@link WatchDeclarationException}
	 * among the causes.
	 * @param context the context
	 * @return the assertion on that exception
	 */
	static AbstractThrowableAssert<?, ? extends Throwable> assertDeclarationFailure(
			AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		Throwable failure = context.getStartupFailure();
		while (failure != null && !(failure instanceof WatchDeclarationException)) {
			failure = failure.getCause();
		}
		return assertThat(failure).isInstanceOf(WatchDeclarationException.class);
	}

	/** The declared watch {@code configmaps}, whose lister-watcher lists nothing. */
	@Configuration(proxyBeanMethods = false)
	static class EmptyConfigMaps {

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
