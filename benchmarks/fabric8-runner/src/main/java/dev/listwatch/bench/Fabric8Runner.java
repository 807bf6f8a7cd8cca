package dev.listwatch.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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
 * fabric8 kubernetes-client's {@code SharedIndexInformer} (its default HTTP client,
 * Vert.x) with a no-op {@code ResourceEventHandler}.
 */
public final class Fabric8Runner implements Subject<HasMetadata> {

	public static void main(String[] args) throws Exception {
		if (args[0].equals("startup")) {
			startup(args);
			return;
		}
		BenchMain.run(new Fabric8Runner(), args);
	}

	/**
	 * Startup ({@code startup url= watches=}): a client and an informer on each of the
	 * core resources (all namespaces, typed as an application writes them), started and
	 * synced; what that adds to a JVM that has done nothing yet.
	 */
	static void startup(String[] argv) throws Exception {
		String url = argv[1].substring("url=".length());
		int watches = Integer.parseInt(argv[2].substring("watches=".length()));
		long heapBefore = BenchMain.settledHeap();
		long t0 = System.nanoTime();
		KubernetesClient client = new KubernetesClientBuilder()
			.withConfig(new ConfigBuilder(Config.empty()).withMasterUrl(url).build())
			.build();
		java.util.List<CompletableFuture<Void>> synced = new java.util.ArrayList<>();
		for (String resource : BenchMain.STARTUP_RESOURCES.subList(0, watches)) {
			Informable<? extends HasMetadata> informable = switch (resource) {
				case "pods" -> client.pods().inAnyNamespace();
				case "configmaps" -> client.configMaps().inAnyNamespace();
				case "secrets" -> client.secrets().inAnyNamespace();
				case "services" -> client.services().inAnyNamespace();
				case "endpoints" -> client.endpoints().inAnyNamespace();
				case "serviceaccounts" -> client.serviceAccounts().inAnyNamespace();
				case "events" -> client.v1().events().inAnyNamespace();
				case "persistentvolumeclaims" -> client.persistentVolumeClaims().inAnyNamespace();
				case "replicationcontrollers" -> client.replicationControllers().inAnyNamespace();
				case "limitranges" -> client.limitRanges().inAnyNamespace();
				default -> throw new IllegalArgumentException(resource);
			};
			synced.add(informable.runnableInformer(0).start().toCompletableFuture());
		}
		CompletableFuture.allOf(synced.toArray(new CompletableFuture[0])).get(300, TimeUnit.SECONDS);
		BenchMain.startupResult("fabric8", watches, t0, heapBefore);
		System.exit(0);
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
		// a namespace set (the nssync benchmark): fabric8 has no informer of several
		// namespaces, so one informer per namespace, each with its own cache
		List<String> namespaces = target.namespaces().isEmpty() ? Collections.singletonList(target.namespace())
				: target.namespaces();
		List<SharedIndexInformer<HasMetadata>> informers = new ArrayList<>();
		List<CompletableFuture<Void>> started = new ArrayList<>();
		for (String namespace : namespaces) {
			SharedIndexInformer<HasMetadata> informer = informer(client, target, namespace);
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
			informers.add(informer);
		}
		for (SharedIndexInformer<HasMetadata> informer : informers) {
			started.add(informer.start().toCompletableFuture());
		}
		return new Running() {

			@Override
			public boolean awaitSynced(Duration timeout) throws Exception {
				CompletableFuture.allOf(started.toArray(new CompletableFuture[0]))
					.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
				return informers.stream().allMatch(SharedIndexInformer::hasSynced);
			}

			@Override
			public int cacheSize() {
				return informers.stream().mapToInt((informer) -> informer.getStore().list().size()).sum();
			}

			@Override
			public void close() {
				informers.forEach(SharedIndexInformer::close);
				client.close();
			}

		};
	}

	/** An informer of the target's resource in one namespace, or all ({@code null}). */
	@SuppressWarnings("unchecked")
	private static SharedIndexInformer<HasMetadata> informer(KubernetesClient client, Target target, String namespace) {
		Informable<? extends HasMetadata> informable;
		if (target.resource().equals("pods")) {
			informable = (namespace == null) ? client.pods().inAnyNamespace().withLimit(target.pageSize())
					: client.pods().inNamespace(namespace).withLimit(target.pageSize());
		}
		else {
			informable = (namespace == null) ? client.configMaps().inAnyNamespace().withLimit(target.pageSize())
					: client.configMaps().inNamespace(namespace).withLimit(target.pageSize());
		}
		return (SharedIndexInformer<HasMetadata>) informable.runnableInformer(0);
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
