package dev.listwatch.bench;

import java.time.Clock;
import java.util.Map;
import java.util.function.Consumer;

import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Resource;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

/**
 * The typed watch ({@code listwatch-typed}): {@link ListwatchRunner}'s wiring, with the
 * objects bound to the record {@link Pod} (what a watch declared with {@code type:} a
 * user record does) instead of {@code KubernetesObject}.
 */
public final class TypedRunner implements Subject<TypedRunner.Pod> {

	/**
	 * A user's Pod record: the envelope, the metadata as listwatch's {@link ObjectMeta},
	 * and the spec and status left untyped.
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
		// wired as listwatch's, -Dbench.fastRetry included
		return ListwatchRunner.informer(target, Pod.class, listerWatcher, onUpsert, client::close);
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
