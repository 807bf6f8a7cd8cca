package dev.listwatch.autoconfigure.health;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.testsupport.MutableClock;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * One watch, {@code configmaps}, backed by a {@link FakeListerWatcher} and run on a
 * {@link MutableClock}: no API server needed. {@link #PROPERTIES} declare it.
 */
@Configuration(proxyBeanMethods = false)
public class FakeWatchConfiguration {

	/**
	 * Properties that declare the watch, point at a kubeconfig nothing connects to, and
	 * back off briefly.
	 */
	public static final String[] PROPERTIES = { "listwatch.kubeconfig=" + kubeconfig(),
			"listwatch.watches.configmaps.api-version=v1", "listwatch.watches.configmaps.kind=ConfigMap",
			"listwatch.watches.configmaps.namespace=default", "listwatch.defaults.streaming-list=false",
			"listwatch.defaults.initial-backoff=20ms", "listwatch.defaults.max-backoff=100ms" };

	@Bean
	FakeListerWatcher configmapsListerWatcher() {
		return FakeListerWatcher.held();
	}

	/** Lets go of a held list when the context stops, before the informers stop. */
	@Bean
	SmartLifecycle fakeListReleaser(FakeListerWatcher fake) {
		return new SmartLifecycle() {

			private volatile boolean running;

			@Override
			public void start() {
				this.running = true;
			}

			@Override
			public void stop() {
				this.running = false;
				fake.releaseList();
			}

			@Override
			public boolean isRunning() {
				return this.running;
			}

			@Override
			public int getPhase() {
				return Informer.PHASE + 10;
			}

		};
	}

	@Bean
	MutableClock testClock() {
		return new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
	}

	@Bean(destroyMethod = "close")
	InformerFactory listwatchInformerFactory(MutableClock clock, ApplicationEventPublisher publisher) {
		return new InformerFactory(clock, publisher::publishEvent, 1, Duration.ofMinutes(1));
	}

	/**
	 * Writes a kubeconfig naming an address nothing listens on: the cluster loader only
	 * reads it.
	 * @return its path
	 */
	public static Path kubeconfig() {
		try {
			Path file = Files.createTempFile("listwatch-fake-", ".kubeconfig");
			file.toFile().deleteOnExit();
			Files.writeString(file, """
					apiVersion: v1
					kind: Config
					clusters:
					- name: fake
					  cluster:
					    server: https://127.0.0.1:1
					users:
					- name: fake
					  user:
					    token: not-a-secret
					contexts:
					- name: fake
					  context:
					    cluster: fake
					    user: fake
					current-context: fake
					""");
			return file;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
