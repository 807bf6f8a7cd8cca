package dev.listwatch.autoconfigure;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.Lister;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.Resource;
import dev.listwatch.WatchStream;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.WatchDeclaration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.aot.AotDetector;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.ResolvableType;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The watches' beans through Spring's ahead-of-time engine: the context is processed, the
 * generated code compiled and run (as {@code -Dspring.aot.enabled=true} does), and the
 * beans, their generic types and the sharing of configured informers are those of a
 * regular run.
 */
@CompileWithForkedClassLoader
class WatchBeansAotTests {

	@TempDir
	static Path dir;

	static Path kubeconfig;

	@BeforeAll
	static void kubeconfig() throws IOException {
		kubeconfig = ListwatchAutoConfigurationTests.writeKubeconfig(dir.resolve("kubeconfig.yaml"),
				"https://127.0.0.1:" + ListwatchAutoConfigurationTests.closedPort());
	}

	@Test
	void generatedCodeRegistersTheWatchesBeansWithTheirGenericTypes() {
		processAndRun(properties(), (context) -> {
			assertThat(context.getBeanNamesForType(ResolvableType.forClassWithGenerics(Informer.class, Thing.class)))
				.containsExactly("typedInformer");
			assertThat(context.getBeanNamesForType(ResolvableType.forClassWithGenerics(Lister.class, Thing.class)))
				.containsExactly("typedLister");
			assertThat(context
				.getBeanNamesForType(ResolvableType.forClassWithGenerics(Informer.class, KubernetesObject.class)))
				.containsExactlyInAnyOrder("plainInformer", "ownInformer");
			assertThat(context.getBean("typedInformer", Informer.class).type()).isEqualTo(Thing.class);
			assertThat(context.getBean("plainLister", Lister.class).list()).isEmpty();
			assertThat(context.getBean("ownListerWatcher")).isInstanceOf(OwnListerWatcher.class);
		});
	}

	@Test
	void codeSharesAConfiguredInformerAsInARegularRun() {
		processAndRun(properties(), (context) -> {
			InformerFactory factory = context.getBean(InformerFactory.class);
			Informer<KubernetesObject> plain = factory.informer("code-plain", new WatchDeclaration<>("v1", "ConfigMap",
					null, List.of("default"), null, null, KubernetesObject.class, false, Duration.ZERO));
			assertThat(plain).isSameAs(context.getBean("plainInformer"));
			// the application's own lister-watcher: not shared, as in a regular run
			Informer<KubernetesObject> own = factory.informer("code-own", new WatchDeclaration<>("v1", "Secret", null,
					List.of(), null, null, KubernetesObject.class, false, Duration.ZERO));
			assertThat(own).isNotSameAs(context.getBean("ownInformer"));
		});
	}

	@Test
	void aWatchDeclaredOnlyAfterProcessingFailsNamingTheFix() {
		TestPropertyValues runtime = properties().and("listwatch.watches.late.api-version=v1",
				"listwatch.watches.late.kind=Secret");
		assertThatExceptionOfType(WatchDeclarationException.class)
			.isThrownBy(() -> processAndRun(properties(), runtime, (context) -> {
			}))
			.withMessageContaining("'late'")
			.withMessageContaining("processed ahead of time")
			.satisfies((ex) -> assertThat(ex.watch()).isEqualTo("late"));
	}

	@Test
	void aWatchRemovedAfterProcessingFailsNamingTheFix() {
		TestPropertyValues runtime = properties().and("listwatch.watches.typed.enabled=false");
		assertThatException().isThrownBy(() -> processAndRun(properties(), runtime, (context) -> {
		}))
			.havingRootCause()
			.isInstanceOf(WatchDeclarationException.class)
			.withMessageContaining("'typed'")
			.withMessageContaining("not declared (or not enabled) in this run");
	}

	@Test
	void typesOfTheWatchesGetBindingHints() {
		TestGenerationContext generation = process(properties()).generation();
		assertThat(RuntimeHintsPredicates.reflection().onType(Thing.class)).accepts(generation.getRuntimeHints());
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Thing.class, "colour"))
			.accepts(generation.getRuntimeHints());
		// the library's own, from aot.factories
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(KubernetesObject.class, "jsonValue"))
			.accepts(generation.getRuntimeHints());
	}

	private static TestPropertyValues properties() {
		return TestPropertyValues.of("listwatch.kubeconfig=" + kubeconfig, "listwatch.defaults.auto-startup=false",
				"listwatch.watches.plain.api-version=v1", "listwatch.watches.plain.kind=ConfigMap",
				"listwatch.watches.plain.namespace=default", "listwatch.watches.typed.api-version=v1",
				"listwatch.watches.typed.kind=ConfigMap", "listwatch.watches.typed.label-selector=app=web",
				"listwatch.watches.typed.type=" + Thing.class.getName(), "listwatch.watches.own.api-version=v1",
				"listwatch.watches.own.kind=Secret");
	}

	private record Processed(TestGenerationContext generation, ClassName initializer) {
	}

	private static Processed process(TestPropertyValues properties) {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			properties.applyTo(context);
			context.register(Config.class);
			TestGenerationContext generation = new TestGenerationContext(Config.class);
			ClassName initializer = new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
			generation.writeGeneratedContent();
			return new Processed(generation, initializer);
		}
	}

	private static void processAndRun(TestPropertyValues properties, Consumer<GenericApplicationContext> assertions) {
		processAndRun(properties, properties, assertions);
	}

	@SuppressWarnings("unchecked")
	private static void processAndRun(TestPropertyValues build, TestPropertyValues runtime,
			Consumer<GenericApplicationContext> assertions) {
		Processed processed = process(build);
		TestCompiler.forSystem().with(processed.generation()).compile((compiled) -> {
			String previous = System.getProperty(AotDetector.AOT_ENABLED);
			System.setProperty(AotDetector.AOT_ENABLED, "true");
			try (GenericApplicationContext context = new GenericApplicationContext()) {
				runtime.applyTo(context);
				compiled.getInstance(ApplicationContextInitializer.class, processed.initializer().reflectionName())
					.initialize(context);
				context.refresh();
				assertions.accept(context);
			}
			finally {
				if (previous == null) {
					System.clearProperty(AotDetector.AOT_ENABLED);
				}
				else {
					System.setProperty(AotDetector.AOT_ENABLED, previous);
				}
			}
		});
	}

	/**
	 * A watch's Java type.
	 *
	 * @param metadata the object's metadata
	 * @param colour a field of its data
	 */
	public record Thing(Map<String, Object> metadata, String colour) {
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
			ListwatchAutoConfiguration.class })
	static class Config {

		@Bean
		ListerWatcher<KubernetesObject> ownListerWatcher() {
			return new OwnListerWatcher();
		}

	}

	static final class OwnListerWatcher implements ListerWatcher<KubernetesObject> {

		@Override
		public ObjectList<KubernetesObject> list(ListOptions options) {
			throw new UnsupportedOperationException("not started in these tests");
		}

		@Override
		public WatchStream<KubernetesObject> watch(ListOptions options) {
			throw new UnsupportedOperationException("not started in these tests");
		}

		@Override
		public Resource resource() {
			return new Resource("", "v1", "secrets", "Secret", true, null);
		}

	}

}
