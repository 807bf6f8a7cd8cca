package dev.listwatch.testsupport;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives tests the {@link LocalApiServer#shared() shared} {@link LocalApiServer} of the
 * JVM as a parameter (of a test method, a lifecycle method or a constructor), starting it
 * before the first test of the class: <pre>{@code
 * &#64;ExtendWith(LocalApiServerExtension.class)
 * class ConfigMapsIT {
 *

&#64;Test
 *     void lists(LocalApiServer server) { ... }
 * }
 * }</pre> Every test class of the JVM gets the same server; the JVM shutdown hook stops
 * it.
 */
public final class LocalApiServerExtension implements BeforeAllCallback, ParameterResolver {

	@Override
	public void beforeAll(ExtensionContext context) {
		LocalApiServer.shared();
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == LocalApiServer.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return LocalApiServer.shared();
	}

}
