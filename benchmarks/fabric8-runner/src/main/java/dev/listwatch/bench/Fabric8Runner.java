package dev.listwatch.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * fabric8 kubernetes-client's {@code SharedIndexInformer} (its default HTTP client, Vert.x) with
 * a no-op {@code ResourceEventHandler}.
 */
public final class Fabric8Runner implements Subject<HasMetadata> {

	public static void main(String[] args) throws Exception {
		BenchMain.run(new Fabric8Runner(), args);
	}

	@Override
	public String name() {
		return "fabric8";
	}

	@Override
	public Running start(Target target, Consumer<HasMetadata> onUpsert) throws Exception {
		Config config;
		if (target.server() != null) {
			config = new ConfigBuilder(Config.empty()).withMasterUrl(target.server()).build();
		}
		else {
			config = Config.fromKubeconfig(Files.readString(Path.of(target.kubeconfig())));
		}
		if (Boolean.getBoolean("bench.fastRetry")) {
			config.setWatchReconnectInterval(100);
		}
		KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
		Informable<? extends HasMetadata> informable;
		if (target.resource().equals("pods")) {
			informable = (target.namespace() == null) ? client.pods().inAnyNamespace().withLimit(target.pageSize())
					: client.pods().inNamespace(target.namespace()).withLimit(target.pageSize());
		}
		else {
			informable = (target.namespace() == null)
					? client.configMaps().inAnyNamespace().withLimit(target.pageSize())
					: client.configMaps().inNamespace(target.namespace()).withLimit(target.pageSize());
		}
		@SuppressWarnings("unchecked")
		SharedIndexInformer<HasMetadata> informer = (SharedIndexInformer<HasMetadata>) informable.runnableInformer(0);
		informer.addEventHandler(new ResourceEventHandler<HasMetadata>() {

			@Override
			public void onAdd(HasMetadata object) {
				onUpsert.accept(object);
			}

			@Override
			public void onUpdate(HasMetadata oldObject, HasMetadata newObject) {
				onUpsert.accept(newObject);
			}

			@Override
			public void onDelete(HasMetadata object, boolean deletedFinalStateUnknown) {
			}

		});
		CompletableFuture<Void> started = informer.start().toCompletableFuture();
		return new Running() {

			@Override
			public boolean awaitSynced(Duration timeout) throws Exception {
				started.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
				return informer.hasSynced();
			}

			@Override
			public int cacheSize() {
				return informer.getStore().list().size();
			}

			@Override
			public void close() {
				informer.close();
				client.close();
			}

		};
	}

	@Override
	public String resourceVersion(HasMetadata object) {
		return object.getMetadata().getResourceVersion();
	}

	@Override
	public String name(HasMetadata object) {
		return object.getMetadata().getName();
	}

	@Override
	public String label(HasMetadata object, String key) {
		Map<String, String> labels = object.getMetadata().getLabels();
		return (labels != null) ? labels.get(key) : null;
	}

}
