package dev.listwatch.etcd;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStream;
import dev.listwatch.testsupport.LocalEtcd;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * grpc-java is an optional dependency: without it on the class path, an etcd client made
 * with the default protocol speaks the JSON gateway (it lists and watches a real etcd,
 * and no gRPC class is needed on the way), and one that asks for gRPC fails with a
 * message naming the dependency. With it (this test's own class path), the default is
 * gRPC. Runs listwatch in a class loader of this test's class path less grpc-java's and
 * its dependencies' jars.
 */
class WithoutGrpcIT {

	private static final List<String> GRPC_JARS = List.of("/io/grpc/", "/io/perfmark/", "/com/google/guava/");

	@Test
	void theGatewayServesWhenGrpcIsNotOnTheClassPath() throws Exception {
		try (LocalEtcd etcd = new LocalEtcd(LocalEtcd.Options.defaults()).start()) {
			long first = etcd.put("/nogrpc/a", "{\"v\":1}");
			etcd.put("/nogrpc/b", "{\"v\":2}");
			List<URL> urls = new ArrayList<>();
			String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
			for (String entry : classPath.split(File.pathSeparator)) {
				if (GRPC_JARS.stream().noneMatch(entry::contains)) {
					urls.add(url(entry));
				}
			}
			try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new),
					ClassLoader.getPlatformClassLoader())) {
				assertThat(loader.getResource("io/grpc/ManagedChannelProvider.class")).as("gRPC is hidden").isNull();
				@SuppressWarnings("unchecked")
				Function<String, List<String>> probe = (Function<String, List<String>>) loader
					.loadClass(Probe.class.getName())
					.getConstructor()
					.newInstance();
				List<String> outcomes = probe.apply(etcd.endpoint() + " " + first);
				assertThat(outcomes).containsExactly("grpc available: false", "auto: GATEWAY", "listed: a", "listed: b",
						"watched: ADDED b", "grpc: IllegalStateException: etcd over gRPC needs grpc-java "
								+ "and a transport for it on the class path: add io.grpc:grpc-netty-shaded (or grpc-okhttp)");
			}
			// with gRPC on the class path, the default is gRPC
			try (EtcdClient client = EtcdClient.create(connection(etcd.endpoint()), JsonMapper.shared())) {
				assertThat(client.protocol()).isEqualTo(EtcdClient.Protocol.GRPC);
				assertThat(client.listerWatcher("/nogrpc/", KubernetesObject.class, false, 1 << 20)
					.list(ListOptions.none())
					.items()).hasSize(2);
			}
		}
	}

	static EtcdConnection connection(String endpoint) {
		return new EtcdConnection(List.of(URI.create(endpoint)), null, null, null, Duration.ofSeconds(5));
	}

	private static URL url(String entry) {
		try {
			return Path.of(entry).toUri().toURL();
		}
		catch (MalformedURLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** What runs in the class loader without gRPC. */
	public static final class Probe implements Function<String, List<String>> {

		@Override
		public List<String> apply(String endpointAndRevision) {
			String endpoint = endpointAndRevision.split(" ")[0];
			String afterRevision = endpointAndRevision.split(" ")[1];
			List<String> outcomes = new ArrayList<>();
			outcomes.add("grpc available: " + EtcdClient.grpcAvailable());
			try (EtcdClient client = EtcdClient.create(connection(endpoint), JsonMapper.shared())) {
				outcomes.add("auto: " + client.protocol());
				ListerWatcher<KubernetesObject> listerWatcher = client.listerWatcher("/nogrpc/", KubernetesObject.class,
						false, 1 << 20);
				ObjectList<KubernetesObject> list = listerWatcher.list(ListOptions.none());
				list.items().forEach((item) -> outcomes.add("listed: " + item.meta().name()));
				// a watch from the first put's revision: etcd sends the second put
				try (WatchStream<KubernetesObject> watch = listerWatcher
					.watch(ListOptions.none().withResourceVersion(afterRevision))) {
					WatchEvent<KubernetesObject> event = watch.next();
					outcomes.add("watched: " + event.type() + " " + event.meta().name());
				}
			}
			try (EtcdClient client = EtcdClient.create(connection(endpoint), JsonMapper.shared(),
					EtcdClient.Protocol.GRPC)) {
				outcomes.add("grpc: " + client.protocol());
			}
			catch (RuntimeException | LinkageError ex) {
				outcomes.add("grpc: " + ex.getClass().getSimpleName() + ": " + ex.getMessage());
			}
			return outcomes;
		}

	}

}
