package dev.listwatch.controller;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.listwatch.KubernetesObject;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.ApiWriter;
import io.micrometer.observation.ObservationRegistry;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A controller on a declared watch of the real kube-apiserver: a key whose reconcile
 * fails is tried again after its backoff until it succeeds, without any further change of
 * the object; a key changed a hundred times while its reconcile is slow is reconciled a
 * few times, never twice at once, and last against its last state.
 */
@ExtendWith(LocalApiServerExtension.class)
class ControllerIT {

	private static LocalApiServer server;

	@BeforeAll
	static void start(LocalApiServer localApiServer) {
		server = localApiServer;
	}

	@Test
	void aKeyThatFailsFiveTimesSucceedsOnTheSixthAfterItsBackoffWithoutAnotherChange() {
		String namespace = server.createNamespace("lw-controller-retry");
		server.writer()
			.create("/api/v1/namespaces/" + namespace + "/configmaps",
					ApiWriter.configMap(namespace, "flaky", "v", "0"));
		List<Integer> failuresSeen = new CopyOnWriteArrayList<>();
		List<Long> attempts = new CopyOnWriteArrayList<>();
		CountDownLatch succeeded = new CountDownLatch(1);
		withController(namespace, 2, (request) -> {
			failuresSeen.add(request.failures());
			attempts.add(System.nanoTime());
			if (request.failures() < 5) {
				throw new IllegalStateException("the database is down");
			}
			assertThat(request.object()).hasValueSatisfying((cm) -> assertThat(cm.name()).isEqualTo("flaky"));
			succeeded.countDown();
			return Result.done();
		}, (controller) -> {
			try {
				assertThat(succeeded.await(30, TimeUnit.SECONDS)).isTrue();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			assertThat(failuresSeen).containsExactly(0, 1, 2, 3, 4, 5);
			// 4 + 8 + 16 + 32 + 64 ms of backoff between the six attempts
			assertThat(attempts.get(5) - attempts.get(0)).isGreaterThanOrEqualTo(Duration.ofMillis(124).toNanos());
			// the failure is forgotten once the reconcile has returned
			await().atMost(Duration.ofSeconds(10)).until(() -> controller.status().failing().isEmpty());
			assertThat(controller.status().failures()).isEqualTo(5);
		});
	}

	@Test
	void aKeyChangedAHundredTimesWhileItsReconcileIsSlowIsReconciledAFewTimesNeverTwiceAtOnce() {
		String namespace = server.createNamespace("lw-controller-hot");
		String path = "/api/v1/namespaces/" + namespace + "/configmaps";
		ApiWriter writer = server.writer();
		writer.create(path, ApiWriter.configMap(namespace, "hot", "v", "0"));
		CountDownLatch firstStarted = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger running = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		List<String> values = new CopyOnWriteArrayList<>();
		withController(namespace, 4, (request) -> {
			if (running.incrementAndGet() > 1) {
				overlaps.incrementAndGet();
			}
			try {
				values.add(request.object().orElseThrow().at("/data/v").asString());
				firstStarted.countDown();
				release.await(30, TimeUnit.SECONDS);
				return Result.done();
			}
			finally {
				running.decrementAndGet();
			}
		}, (controller) -> {
			try {
				assertThat(firstStarted.await(30, TimeUnit.SECONDS)).isTrue();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			for (int i = 1; i <= 100; i++) {
				writer.patch(path + "/hot", "{\"data\":{\"v\":\"" + i + "\"}}");
			}
			release.countDown();
			await().atMost(Duration.ofSeconds(30)).until(() -> values.contains("100"));
			await().atMost(Duration.ofSeconds(10)).until(() -> controller.status().processing() == 0);
			assertThat(values.get(values.size() - 1)).isEqualTo("100");
			assertThat(values).hasSizeBetween(2, 5);
			assertThat(overlaps).hasValue(0);
		});
	}

	@SuppressWarnings("unchecked")
	private static void withController(String namespace, int workers, Reconciler<KubernetesObject> reconciler,
			Consumer<Controller<KubernetesObject>> test) {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class))
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(),
					"listwatch.watches.configmaps.api-version=v1", "listwatch.watches.configmaps.kind=ConfigMap",
					"listwatch.watches.configmaps.namespace=" + namespace)
			.run((context) -> {
				Informer<KubernetesObject> informer = context.getBean("configmapsInformer", Informer.class);
				Controller<KubernetesObject> controller = new Controller<>("copy", informer, reconciler,
						ControllerOptions.DEFAULTS.withWorkers(workers)
							.withBackoff(Duration.ofMillis(4), Duration.ofSeconds(1)),
						ObservationRegistry.NOOP);
				controller.start();
				try {
					test.accept(controller);
				}
				finally {
					assertThat(controller.stop(Duration.ofSeconds(10))).isTrue();
				}
			});
	}

}
