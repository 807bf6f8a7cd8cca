package dev.listwatch.testsupport.boot;

import java.util.function.Supplier;

import dev.listwatch.autoconfigure.ListwatchConnectionDetails;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Starts the JVM's shared {@link LocalApiServer} and registers it, its
 * {@link ListwatchConnectionDetails} and an {@link ApiWriter} as beans. All instances are
 * equal: the server is the same for every context, so it does not split Spring's context
 * cache.
 */
final class LocalApiServerContextCustomizer implements ContextCustomizer {

	static final String CONNECTION_DETAILS_BEAN = "listwatchConnectionDetails";

	static final String SERVER_BEAN = "localApiServer";

	static final String WRITER_BEAN = "apiWriter";

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
		if (!(context.getBeanFactory() instanceof BeanDefinitionRegistry registry)) {
			throw new IllegalStateException("@LocalApiServerConnection needs an application context whose bean factory"
					+ " is a BeanDefinitionRegistry, not " + context.getBeanFactory().getClass().getName());
		}
		LocalApiServer server = LocalApiServer.shared();
		register(registry, SERVER_BEAN, LocalApiServer.class, () -> server);
		register(registry, CONNECTION_DETAILS_BEAN, ListwatchConnectionDetails.class,
				() -> new LocalApiServerConnectionDetails(server));
		register(registry, WRITER_BEAN, ApiWriter.class, server::writer);
	}

	private static <T> void register(BeanDefinitionRegistry registry, String name, Class<T> type,
			Supplier<T> supplier) {
		RootBeanDefinition definition = new RootBeanDefinition(type, supplier);
		registry.registerBeanDefinition(name, definition);
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other != null && other.getClass() == getClass();
	}

	@Override
	public int hashCode() {
		return getClass().hashCode();
	}

}
