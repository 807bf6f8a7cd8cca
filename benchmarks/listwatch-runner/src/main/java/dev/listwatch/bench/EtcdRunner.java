package dev.listwatch.bench;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.Resource;
import dev.listwatch.WatchStream;
import dev.listwatch.etcd.EtcdClient;
import dev.listwatch.etcd.EtcdConnection;
import tools.jackson.databind.json.JsonMapper;

/**
 * listwatch's {@code Informer} over etcd: the same informer as {@link ListwatchRunner}'s,
 * over {@link EtcdClient}'s lister-watcher of the key prefix {@code /<resource>/} (keys
 * {@code /pods/<namespace>/<name>}, values the Pods' JSON) instead of the API server's.
 * {@code Target.server} is etcd's client URL.
 * <p>
 * {@code -Dbench.etcd.listRevision=<r>}: every list reads at revision {@code r}
 * ({@code resourceVersionMatch=Exact}), so that the watch starts at {@code r + 1} and
 * etcd replays the history written since, as fast as the watch reads it: the watch's rate
 * without the writer's.
 * <p>
 * {@code main} reaches etcd through its JSON gateway; {@link Grpc#main} through its
 * native gRPC API (grpc-netty-shaded is on this runner's class path).
 */
public final class EtcdRunner implements Subject<KubernetesObject> {

	private final EtcdClient.Protocol protocol;

	EtcdRunner(EtcdClient.Protocol protocol) {
		this.protocol = protocol;
	}

	public static void main(String[] args) throws Exception {
		BenchMain.run(new EtcdRunner(EtcdClient.Protocol.GATEWAY), args);
	}

	/** The runner over etcd's gRPC API. */
	public static final class Grpc {

		private Grpc() {
		}

		public static void main(String[] args) throws Exception {
			BenchMain.run(new EtcdRunner(EtcdClient.Protocol.GRPC), args);
		}

	}

	@Override
	public String name() {
		return (this.protocol == EtcdClient.Protocol.GRPC) ? "listwatch-etcd-grpc" : "listwatch-etcd";
	}

	@Override
	public Running start(Target target, Consumer<KubernetesObject> onUpsert) throws Exception {
		EtcdClient client = EtcdClient.create(
				new EtcdConnection(List.of(URI.create(target.server())), null, null, null, Duration.ofSeconds(10)),
				JsonMapper.builder().build(), this.protocol);
		ListerWatcher<KubernetesObject> listerWatcher = client.listerWatcher("/" + target.resource() + "/",
				KubernetesObject.class, false, 16 << 20);
		String revision = System.getProperty("bench.etcd.listRevision");
		if (revision != null) {
			listerWatcher = new AtRevision(listerWatcher, revision);
		}
		return ListwatchRunner.informer(target, listerWatcher, onUpsert, client::close);
	}

	@Override
	public String resourceVersion(KubernetesObject object) {
		return object.resourceVersion();
	}

	@Override
	public String name(KubernetesObject object) {
		return object.name();
	}

	@Override
	public String label(KubernetesObject object, String key) {
		return object.labels().get(key);
	}

	/**
	 * Lists at one revision (the pages after the first carry it in their continue token).
	 */
	private record AtRevision(ListerWatcher<KubernetesObject> delegate,
			String revision) implements ListerWatcher<KubernetesObject> {

		@Override
		public ObjectList<KubernetesObject> list(ListOptions options) {
			boolean first = options.continueToken() == null || options.continueToken().isEmpty();
			return this.delegate.list(first
					? options.withResourceVersion(this.revision).withResourceVersionMatch(ListOptions.EXACT) : options);
		}

		@Override
		public WatchStream<KubernetesObject> watch(ListOptions options) {
			return this.delegate.watch(options);
		}

		@Override
		public Resource resource() {
			return this.delegate.resource();
		}

	}

}
