package dev.listwatch.testsupport.boot;

import java.util.List;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.test.context.ContextCustomizerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which test classes get the {@link LocalApiServerContextCustomizer}, and that it keeps
 * Spring's context cache whole. Starts no server.
 */
class LocalApiServerContextCustomizerFactoryTests {

	private final LocalApiServerContextCustomizerFactory factory = new LocalApiServerContextCustomizerFactory();

	@Test
	void isRegisteredInSpringFactories() {
		assertThat(SpringFactoriesLoader.loadFactories(ContextCustomizerFactory.class, getClass().getClassLoader()))
			.hasAtLeastOneElementOfType(LocalApiServerContextCustomizerFactory.class);
	}

	@Test
	void customizesAnAnnotatedClassItsSubclassesAndItsNestedClasses() {
		assertThat(this.factory.createContextCustomizer(Annotated.class, List.of()))
			.isInstanceOf(LocalApiServerContextCustomizer.class);
		assertThat(this.factory.createContextCustomizer(Subclass.class, List.of()))
			.isInstanceOf(LocalApiServerContextCustomizer.class);
		assertThat(this.factory.createContextCustomizer(Annotated.Inner.class, List.of()))
			.isInstanceOf(LocalApiServerContextCustomizer.class);
	}

	@Test
	void leavesOtherClassesAlone() {
		assertThat(this.factory.createContextCustomizer(NotAnnotated.class, List.of())).isNull();
	}

	@Test
	void customizersAreEqualSoAnnotatedClassesShareAContext() {
		assertThat(this.factory.createContextCustomizer(Annotated.class, List.of()))
			.isEqualTo(this.factory.createContextCustomizer(Subclass.class, List.of()))
			.hasSameHashCodeAs(this.factory.createContextCustomizer(Annotated.Inner.class, List.of()))
			.isNotEqualTo(new Object());
	}

	@LocalApiServerConnection
	static class Annotated {

		@Nested
		class Inner {

		}

	}

	static class Subclass extends Annotated {

	}

	static class NotAnnotated {

	}

}
