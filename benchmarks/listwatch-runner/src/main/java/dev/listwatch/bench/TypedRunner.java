package dev.listwatch.bench;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Resource;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

/**
 * The typed watch ({@code listwatch-typed}): {@link ListwatchRunner}'s wiring, with the objects bound
 * to the record {@link Pod} (what a watch declared with {@code type:} a user record does) instead of
 * {@code KubernetesObject}.
 */
public final class TypedRunner implements Subject<TypedRunner.Pod> {

	/**
	 * A user's Pod record: the envelope, the metadata as listwatch's {@link ObjectMeta}, and the spec
	 * and status left untyped.
	 */
	public record Pod(String apiVersion, String kind, ObjectMeta metadata, Map<String, Object> spec,
			Map<String, Object> status) {
	}

	public static void main(String[] args) throws Exception {
		BenchMain.run(new TypedRunner(), args);
	}

	@Override
	public String name() {
		return "listwatch-typed";
	}

	@Override
	public Running start(Target target, Consumer<Pod> onUpsert) throws Exception {
		Cluster cluster = Cluster.load(ListwatchRunner.settings(target));
		ApiServerClient client = ApiServerClient.create(cluster, RestClient.builder(), JsonMapper.builder().build(),
				Clock.systemUTC());
		String kind = target.resource().equals("pods") ? "Pod" : "ConfigMap";
		Resource resource = new Resource("", "v1", target.resource(), kind, true, target.namespace());
		ListerWatcher<Pod> listerWatcher = client.listerWatcher(resource, Pod.class, ApiServerClient.Decoding.DEFAULTS);
		InformerFactory runtime = new InformerFactory(Clock.systemUTC(), (event) -> {
			if (event instanceof ResourceEvent<?> e && e.type() != ResourceEvent.Type.DELETED) {
				onUpsert.accept((Pod) e.object());
			}
		}, 2, Duration.ofSeconds(10));
		// the same options as listwatch's, -Dbench.fastRetry included
		InformerOptions options = ListwatchRunner.options(target);
		Informer<Pod> informer = runtime.informer(target.resource(), Pod.class, listerWatcher, options, List.of());
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
				client.close();
			}

		};
	}

	@Override
	public String resourceVersion(Pod object) {
		return object.metadata().resourceVersion();
	}

	@Override
	public String name(Pod object) {
		return object.metadata().name();
	}

	@Override
	public String label(Pod object, String key) {
		return object.metadata().labels().get(key);
	}

}
