package dev.listwatch.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.WatchStream;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing a watch from another thread ends a read blocked on it at once and releases the
 * connection, though the server would keep the watch open for minutes.
 */
@ExtendWith(LocalApiServerExtension.class)
class WatchCloseIT {

	@Test
	void closeEndsABlockedReadAtOnce(LocalApiServer server) throws Exception {
		String namespace = server.createNamespace("lw-close");
		ApiServerClient client = ApiServerClientIT.client(server.kubeconfig());
		ListerWatcher<KubernetesObject> configMaps = client.listerWatcher(
				client.resolve("v1", "ConfigMap", null, namespace), KubernetesObject.class,
				ApiServerClient.Decoding.DEFAULTS.withMaxEventBytes(1 << 20));
		String resourceVersion = configMaps.list(ListOptions.none()).resourceVersion();
		WatchStream<KubernetesObject> watch = configMaps
			.watch(ListOptions.none().withResourceVersion(resourceVersion).withTimeout(Duration.ofMinutes(10)));
		CompletableFuture<Boolean> reader = new CompletableFuture<>();
		Thread thread = new Thread(() -> reader.complete(watch.hasNext()));
		thread.start();
		// the namespace is quiet, so the reader parks in read(): wait until it has
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (thread.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(thread.getState()).isEqualTo(Thread.State.WAITING);
		assertThat(reader.isDone()).isFalse();
		long start = System.nanoTime();
		watch.close();
		assertThat(reader.get(5, TimeUnit.SECONDS)).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
	}

}
