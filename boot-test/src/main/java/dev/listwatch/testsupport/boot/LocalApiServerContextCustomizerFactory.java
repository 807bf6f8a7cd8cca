package dev.listwatch.testsupport.boot;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Gives a test class annotated {@link LocalApiServerConnection @LocalApiServerConnection}
 * (on itself, a superclass or an enclosing class) the
 * {@link LocalApiServerContextCustomizer}. Registered in
 * {@code META-INF/spring.factories}.
 */
class LocalApiServerContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		return TestContextAnnotationUtils.hasAnnotation(testClass, LocalApiServerConnection.class)
				? new LocalApiServerContextCustomizer() : null;
	}

}
