package dev.listwatch.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectTransform;
import dev.listwatch.Resource;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.ConnectionOptions;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

/**
 * listwatch's {@link Informer} wired by hand the way the auto-configuration wires it
 * (Boot's {@code RestClient} builder, {@link Cluster#load},
 * {@link ApiServerClient#create}), with a publisher that calls the handler directly
 * instead of an application context.
 * <p>
 * {@code main(benchmark, key=value...)}; also {@code tokenize} and {@code decode} (see
 * {@link Decode}), {@code bigcache} ({@link BigCache}), {@code controller}
 * ({@link ControllerBench}) and {@code shards} ({@link ShardBench}).
 */
public final class ListwatchRunner implements Subject<KubernetesObject> {

	public static void main(String[] args) throws Exception {
		switch (args[0]) {
			case "tokenize", "decode", "decode-typed" -> dev.listwatch.client.Decode.main(args);
			case "bigcache" -> BigCache.run(args);
			case "controller" -> ControllerBench.run(args);
			case "shards" -> ShardBench.run(args);
			case "h2" -> Http2Bench.run(args);
			default -> BenchMain.run(new ListwatchRunner(), args);
		}
	}

	@Override
	public String name() {
		return "listwatch";
	}

	static ConnectionOptions settings(Subject.Target target) throws Exception {
		// an empty home and environment: only what the benchmark says counts
		Path home = Files.createTempDirectory("listwatch-bench-home");
		return ConnectionOptions.builder()
			.kubeconfig(target.kubeconfig())
			.server(target.server())
			.environment(Map.of())
			.homeDirectory(home)
			.build();
	}

	@Override
	public Running start(Target target, Consumer<KubernetesObject> onUpsert) throws Exception {
		Cluster cluster = Cluster.load(settings(target));
		ApiServerClient client = ApiServerClient.create(cluster, RestClient.builder(), JsonMapper.builder().build(),
				Clock.systemUTC());
		String kind = target.resource().equals("pods") ? "Pod" : "ConfigMap";
		// -Dbench.metadataOnly=true (the metadata benchmark): list and watch
		// PartialObjectMetadata only
		ApiServerClient.Decoding decoding = ApiServerClient.Decoding.DEFAULTS
			.withMetadataOnly(Boolean.getBoolean("bench.metadataOnly"));
		// a namespace set (the nssync benchmark): one informer, a lister-watcher per
		// namespace
		List<String> namespaces = target.namespaces().isEmpty() ? Collections.singletonList(target.namespace())
				: target.namespaces();
		List<ListerWatcher<KubernetesObject>> listerWatchers = new ArrayList<>();
		for (String namespace : namespaces) {
			listerWatchers.add(client.listerWatcher(new Resource("", "v1", target.resource(), kind, true, namespace),
					KubernetesObject.class, decoding));
		}
		return informer(target, KubernetesObject.class, listerWatchers, onUpsert, client::close);
	}

	/**
	 * An informer over a lister-watcher, wired as the auto-configuration wires one, whose
	 * publisher calls {@code onUpsert} for every ADDED and MODIFIED event; {@code close}
	 * runs after it stops.
	 */
	static Running informer(Target target, ListerWatcher<KubernetesObject> listerWatcher,
			Consumer<KubernetesObject> onUpsert, Runnable close) {
		return informer(target, KubernetesObject.class, listerWatcher, onUpsert, close);
	}

	/**
	 * {@link #informer(Target, ListerWatcher, Consumer, Runnable)} for objects of any
	 * type.
	 */
	static <T> Running informer(Target target, Class<T> type, ListerWatcher<T> listerWatcher, Consumer<T> onUpsert,
			Runnable close) {
		return informer(target, type, List.of(listerWatcher), onUpsert, close);
	}

	/**
	 * {@link #informer(Target, Class, ListerWatcher, Consumer, Runnable)} over a
	 * namespace set: one lister-watcher per namespace.
	 */
	static <T> Running informer(Target target, Class<T> type, List<ListerWatcher<T>> listerWatchers,
			Consumer<T> onUpsert, Runnable close) {
		InformerFactory runtime = new InformerFactory(Clock.systemUTC(), (event) -> {
			if (event instanceof ResourceEvent<?> e && e.type() != ResourceEvent.Type.DELETED) {
				onUpsert.accept(type.cast(e.object()));
			}
		}, 2, Duration.ofSeconds(10));
		Informer<T> informer = runtime.informer(target.resource(), type, listerWatchers, options(target), List.of());
		// -Dbench.keep=<paths> (the metadata benchmark's keep variant): cache only those
		// paths of each object, with the built-in transform of listwatch.watches.*.keep
		String keep = System.getProperty("bench.keep", "");
		if (!keep.isBlank() && type == KubernetesObject.class) {
			@SuppressWarnings("unchecked")
			Informer<KubernetesObject> objects = (Informer<KubernetesObject>) informer;
			objects.setTransform(ObjectTransform.keeping(Arrays.asList(keep.split(","))));
		}
		informer.start();
		return new Running() {

			@Override
			public boolean awaitSynced(Duration timeout) throws Exception {
				return informer.awaitSynced(timeout);
			}

			@Override
			public int cacheSize() {
				return informer.status().objects();
			}

			@Override
			public void close() {
				informer.stop();
				runtime.close();
				close.run();
			}

		};
	}

	/**
	 * The informer options of the listwatch runners: list + watch, as the peers do (the
	 * fake server refuses streaming lists anyway); with {@code -Dbench.fastRetry=true}
	 * (the request-count benchmark) retries after 100 ms to 1 s instead of client-go's
	 * 800 ms to 30 s, so that 50 cuts take seconds, not half an hour.
	 */
	static InformerOptions options(Subject.Target target) {
		InformerOptions.BackoffPolicy backoff = Boolean.getBoolean("bench.fastRetry")
				? new InformerOptions.BackoffPolicy(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0.2,
						Duration.ofMinutes(2))
				: InformerOptions.BackoffPolicy.CLIENT_GO;
		return new InformerOptions(null, null, target.pageSize(), false, Duration.ofMinutes(5), Duration.ofMinutes(10),
				Duration.ofMinutes(3), backoff, null, true);
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

}
