package dev.listwatch.bench;

import java.net.URI;
import java.util.function.Consumer;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListerWatcher;
import dev.listwatch.Resource;
import dev.listwatch.client.ApacheClient;
import dev.listwatch.client.ApiServerClient;

/**
 * {@link ListwatchRunner}'s informer over Apache HttpClient 5 classic instead of the JDK
 * client (plain HTTP only): the watch is read on the watch's own thread. Chooses the
 * transport by measurement ({@code -Dbench.apacheBuffer}, the connection's read buffer,
 * default 64 KiB).
 */
public final class ApacheRunner implements Subject<KubernetesObject> {

	public static void main(String[] args) throws Exception {
		BenchMain.run(new ApacheRunner(), args);
	}

	@Override
	public String name() {
		return "listwatch-apache";
	}

	@Override
	public Running start(Target target, Consumer<KubernetesObject> onUpsert) throws Exception {
		ApiServerClient client = ApacheClient.create(URI.create(target.server()),
				Integer.getInteger("bench.apacheBuffer", 64 * 1024));
		Resource resource = new Resource("", "v1", target.resource(), "Pod", true, target.namespace());
		ListerWatcher<KubernetesObject> listerWatcher = client.listerWatcher(resource, KubernetesObject.class,
				ApiServerClient.Decoding.DEFAULTS);
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

}
