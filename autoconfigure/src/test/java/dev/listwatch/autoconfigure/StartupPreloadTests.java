package dev.listwatch.autoconfigure;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link StartupPreload}: loads the listed classes without initializing them, skips what
 * does not load, and its list names classes that exist.
 */
class StartupPreloadTests {

	/** Set by {@link Probe}'s static initializer. */
	static final AtomicBoolean initialized = new AtomicBoolean();

	@Test
	void loadsTheClassesWithoutInitializingThemAndSkipsNamesThatDoNotLoad() {
		Set<String> requested = ConcurrentHashMap.newKeySet();
		ClassLoader recording = new ClassLoader(getClass().getClassLoader()) {

			@Override
			protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
				requested.add(name);
				return super.loadClass(name, resolve);
			}

		};
		String probe = StartupPreloadTests.class.getName() + "$Probe";
		int loaded = StartupPreload.load(List.of("no.such.Clazz", probe, "java.lang.String"), recording);
		assertThat(loaded).isEqualTo(2);
		assertThat(requested).contains("no.such.Clazz", probe, "java.lang.String");
		assertThat(initialized).as("loaded, not initialized: no static initializer ran").isFalse();
	}

	@Test
	void readsOneNamePerLineLeavingOutCommentsAndBlankLines() {
		ClassLoader loader = new ClassLoader(getClass().getClassLoader()) {

			@Override
			public InputStream getResourceAsStream(String name) {
				return StartupPreload.CLASSES.equals(name) ? new ByteArrayInputStream(
						"# generated\n\na.B\n  c.D  \n#e.F\n".getBytes(StandardCharsets.UTF_8)) : null;
			}

		};
		assertThat(StartupPreload.names(loader)).containsExactly("a.B", "c.D");
		ClassLoader without = new ClassLoader(getClass().getClassLoader()) {

			@Override
			public InputStream getResourceAsStream(String name) {
				return null;
			}

		};
		assertThat(StartupPreload.names(without)).isEmpty();
	}

	@Test
	void theListNamesListwatchClassesThatExistWithTheInformersAndTheClients() {
		ClassLoader loader = getClass().getClassLoader();
		List<String> names = StartupPreload.names(loader);
		assertThat(names).contains("dev.listwatch.informer.Informer", "dev.listwatch.informer.Reflector",
				"dev.listwatch.client.Transport", "dev.listwatch.client.ListDecoding",
				"org.springframework.web.client.DefaultRestClient");
		// a listwatch class renamed or removed since the list was generated: run
		// scripts/startup-classes.py again
		List<String> ours = names.stream().filter((name) -> name.startsWith("dev.listwatch.")).toList();
		assertThat(StartupPreload.load(ours, loader)).isEqualTo(ours.size());
	}

	static final class Probe {

		static {
			initialized.set(true);
		}

	}

}
