package dev.listwatch.bench;

import java.io.FileReader;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.generic.GenericKubernetesApi;

/**
 * The official client-java's informers from {@code SharedInformerFactory} (over
 * {@code GenericKubernetesApi}, its OkHttp client), with a no-op {@code ResourceEventHandler}.
 * client-java's informers list without {@code limit}: one page.
 */
public final class ClientJavaRunner implements Subject<KubernetesObject> {

	public static void main(String[] args) throws Exception {
		BenchMain.run(new ClientJavaRunner(), args);
	}

	@Override
	public String name() {
		return "client-java";
	}

	@Override
	public Running start(Target target, Consumer<KubernetesObject> onUpsert) throws Exception {
		ApiClient api;
		if (target.server() != null) {
			api = new ClientBuilder().setBasePath(target.server()).build();
		}
		else {
			try (FileReader reader = new FileReader(target.kubeconfig())) {
				api = ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(reader)).build();
			}
		}
		// watches are long reads
		api.setHttpClient(api.getHttpClient().newBuilder().readTimeout(0, TimeUnit.SECONDS).build());
		SharedInformerFactory factory = new SharedInformerFactory(api);
		SharedIndexInformer<? extends KubernetesObject> informer;
		String namespace = target.namespace();
		if (target.resource().equals("pods")) {
			GenericKubernetesApi<V1Pod, V1PodList> pods = new GenericKubernetesApi<>(V1Pod.class, V1PodList.class, "",
					"v1", "pods", api);
			informer = (namespace == null) ? factory.sharedIndexInformerFor(pods, V1Pod.class, 0)
					: factory.sharedIndexInformerFor(pods, V1Pod.class, 0, namespace);
		}
		else {
			GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> configMaps = new GenericKubernetesApi<>(
					V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", api);
			informer = (namespace == null) ? factory.sharedIndexInformerFor(configMaps, V1ConfigMap.class, 0)
					: factory.sharedIndexInformerFor(configMaps, V1ConfigMap.class, 0, namespace);
		}
		@SuppressWarnings("unchecked")
		SharedIndexInformer<KubernetesObject> typed = (SharedIndexInformer<KubernetesObject>) informer;
		typed.addEventHandler(new ResourceEventHandler<KubernetesObject>() {

			@Override
			public void onAdd(KubernetesObject object) {
				onUpsert.accept(object);
			}

			@Override
			public void onUpdate(KubernetesObject oldObject, KubernetesObject newObject) {
				onUpsert.accept(newObject);
			}

			@Override
			public void onDelete(KubernetesObject object, boolean deletedFinalStateUnknown) {
			}

		});
		factory.startAllRegisteredInformers();
		return new Running() {

			@Override
			public boolean awaitSynced(Duration timeout) throws Exception {
				long end = System.nanoTime() + timeout.toNanos();
				while (!typed.hasSynced()) {
					if (System.nanoTime() > end) {
						return false;
					}
					Thread.sleep(1);
				}
				return true;
			}

			@Override
			public int cacheSize() {
				return typed.getIndexer().list().size();
			}

			@Override
			public void close() {
				factory.stopAllRegisteredInformers(true);
				api.getHttpClient().dispatcher().executorService().shutdownNow();
				api.getHttpClient().connectionPool().evictAll();
			}

		};
	}

	@Override
	public String resourceVersion(KubernetesObject object) {
		return object.getMetadata().getResourceVersion();
	}

	@Override
	public String name(KubernetesObject object) {
		return object.getMetadata().getName();
	}

	@Override
	public String label(KubernetesObject object, String key) {
		Map<String, String> labels = object.getMetadata().getLabels();
		return (labels != null) ? labels.get(key) : null;
	}

}
