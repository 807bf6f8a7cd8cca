package dev.listwatch.bench;

import java.io.FileReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.CoreV1EventList;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Endpoints;
import io.kubernetes.client.openapi.models.V1EndpointsList;
import io.kubernetes.client.openapi.models.V1LimitRange;
import io.kubernetes.client.openapi.models.V1LimitRangeList;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaim;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaimList;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1ReplicationController;
import io.kubernetes.client.openapi.models.V1ReplicationControllerList;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1SecretList;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1ServiceAccountList;
import io.kubernetes.client.openapi.models.V1ServiceList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.generic.GenericKubernetesApi;

/**
 * The official client-java's informers from {@code SharedInformerFactory} (over
 * {@code GenericKubernetesApi}, its OkHttp client), with a no-op
 * {@code ResourceEventHandler}. client-java's informers list without {@code limit}: one
 * page.
 */
public final class ClientJavaRunner implements Subject<KubernetesObject> {

	public static void main(String[] args) throws Exception {
		if (args[0].equals("startup")) {
			startup(args);
			return;
		}
		BenchMain.run(new ClientJavaRunner(), args);
	}

	/**
	 * Startup ({@code startup url= watches=}): a client and an informer on each of the
	 * core resources (all namespaces, typed), started and synced; what that adds to a JVM
	 * that has done nothing yet.
	 */
	static void startup(String[] argv) throws Exception {
		String url = argv[1].substring("url=".length());
		int watches = Integer.parseInt(argv[2].substring("watches=".length()));
		long heapBefore = BenchMain.settledHeap();
		long t0 = System.nanoTime();
		ApiClient api = new ClientBuilder().setBasePath(url).build();
		api.setHttpClient(api.getHttpClient().newBuilder().readTimeout(0, TimeUnit.SECONDS).build());
		SharedInformerFactory factory = new SharedInformerFactory(api);
		java.util.List<SharedIndexInformer<?>> informers = new java.util.ArrayList<>();
		for (String resource : BenchMain.STARTUP_RESOURCES.subList(0, watches)) {
			informers.add(switch (resource) {
				case "pods" -> informer(factory, api, resource, V1Pod.class, V1PodList.class);
				case "configmaps" -> informer(factory, api, resource, V1ConfigMap.class, V1ConfigMapList.class);
				case "secrets" -> informer(factory, api, resource, V1Secret.class, V1SecretList.class);
				case "services" -> informer(factory, api, resource, V1Service.class, V1ServiceList.class);
				case "endpoints" -> informer(factory, api, resource, V1Endpoints.class, V1EndpointsList.class);
				case "serviceaccounts" ->
					informer(factory, api, resource, V1ServiceAccount.class, V1ServiceAccountList.class);
				case "events" -> informer(factory, api, resource, CoreV1Event.class, CoreV1EventList.class);
				case "persistentvolumeclaims" ->
					informer(factory, api, resource, V1PersistentVolumeClaim.class, V1PersistentVolumeClaimList.class);
				case "replicationcontrollers" ->
					informer(factory, api, resource, V1ReplicationController.class, V1ReplicationControllerList.class);
				case "limitranges" -> informer(factory, api, resource, V1LimitRange.class, V1LimitRangeList.class);
				default -> throw new IllegalArgumentException(resource);
			});
		}
		factory.startAllRegisteredInformers();
		// client-java offers no future for the sync: polled as its own waitForCacheSync
		// does
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
		while (!informers.stream().allMatch(SharedIndexInformer::hasSynced) && System.nanoTime() < end) {
			Thread.sleep(1);
		}
		BenchMain.startupResult("client-java", watches, t0, heapBefore);
		System.exit(0);
	}

	private static <T extends KubernetesObject, L extends io.kubernetes.client.common.KubernetesListObject> SharedIndexInformer<T> informer(
			SharedInformerFactory factory, ApiClient api, String resource, Class<T> type, Class<L> listType) {
		return factory.sharedIndexInformerFor(new GenericKubernetesApi<>(type, listType, "", "v1", resource, api), type,
				0);
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
		// a namespace set (the nssync benchmark): client-java has no informer of several
		// namespaces, and a factory keeps one informer per type, so a factory and an
		// informer per namespace, each with its own cache
		List<String> namespaces = target.namespaces().isEmpty() ? Collections.singletonList(target.namespace())
				: target.namespaces();
		List<SharedInformerFactory> factories = new ArrayList<>();
		List<SharedIndexInformer<KubernetesObject>> informers = new ArrayList<>();
		for (String namespace : namespaces) {
			SharedInformerFactory factory = new SharedInformerFactory(api);
			SharedIndexInformer<KubernetesObject> informer = informer(factory, api, target.resource(), namespace);
			informer.addEventHandler(new ResourceEventHandler<KubernetesObject>() {

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
			factories.add(factory);
			informers.add(informer);
		}
		factories.forEach(SharedInformerFactory::startAllRegisteredInformers);
		return new Running() {

			@Override
			public boolean awaitSynced(Duration timeout) throws Exception {
				long end = System.nanoTime() + timeout.toNanos();
				while (!informers.stream().allMatch(SharedIndexInformer::hasSynced)) {
					if (System.nanoTime() > end) {
						return false;
					}
					Thread.sleep(1);
				}
				return true;
			}

			@Override
			public int cacheSize() {
				return informers.stream().mapToInt((informer) -> informer.getIndexer().list().size()).sum();
			}

			@Override
			public void close() {
				factories.forEach((factory) -> factory.stopAllRegisteredInformers(true));
				api.getHttpClient().dispatcher().executorService().shutdownNow();
				api.getHttpClient().connectionPool().evictAll();
			}

		};
	}

	/** An informer of Pods or ConfigMaps in one namespace, or all ({@code null}). */
	@SuppressWarnings("unchecked")
	private static SharedIndexInformer<KubernetesObject> informer(SharedInformerFactory factory, ApiClient api,
			String resource, String namespace) {
		SharedIndexInformer<? extends KubernetesObject> informer;
		if (resource.equals("pods")) {
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
		return (SharedIndexInformer<KubernetesObject>) informer;
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
