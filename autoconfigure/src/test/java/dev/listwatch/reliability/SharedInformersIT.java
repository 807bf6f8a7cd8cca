package dev.listwatch.reliability;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListerWatcher;
import dev.listwatch.WatchStatus;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.autoconfigure.health.ListwatchHealthContributorAutoConfiguration;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.ConnectionOptions;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import dev.listwatch.informer.WatchDeclaration;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.fault.FaultProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On the real API server: a declaration made in code and the equal one under
 * {@code listwatch.watches} are one informer and one request stream; a new declaration in
 * code is a watch like the configured ones (health, events); a listener added after the
 * sync first receives the cache; a namespace set is one cache over one watch per
 * namespace, and a cut of one namespace's stream resumes that namespace alone, without a
 * relist.
 */
class SharedInformersIT {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
				ListwatchAutoConfiguration.class, ListwatchHealthContributorAutoConfiguration.class))
		.withBean(EventRecorder.class);

	@Test
	void aDeclarationInCodeEqualToAConfiguredOneIsTheSameWatchOnOneRequestStream() {
		LocalApiServer server = LocalApiServer.shared();
		String ns = server.createNamespace("lw-shared");
		String path = "/api/v1/namespaces/" + ns + "/configmaps";
		server.writer().create(path, ApiWriter.configMap(ns, "a", "v", "0"));
		server.writer().create(path, labelled(ns, "web-1", "web"));
		RequestCounter counter = new RequestCounter(path);
		this.runner.withBean(RequestCounter.class, () -> counter)
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(), "listwatch.watches.cms.api-version=v1",
					"listwatch.watches.cms.kind=ConfigMap", "listwatch.watches.cms.namespace=" + ns)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				InformerFactory factory = context.getBean(InformerFactory.class);
				Informer<?> configured = context.getBean("cmsInformer", Informer.class);
				assertThat(configured.awaitSynced(WAIT)).isTrue();
				long requests = counter.requests.size();
				Informer<KubernetesObject> fromCode = factory.informer("mine",
						WatchDeclaration.of("v1", "ConfigMap").inNamespace(ns));
				assertThat(fromCode).isSameAs(configured);
				assertThat(fromCode.watch()).isEqualTo("cms");
				fromCode.start();
				assertThat(fromCode.lister().list()).hasSize(2);
				assertThat(counter.fullSyncs()).as("one list for both").isEqualTo(1);
				assertThat(counter.requests).as("no request for the second caller").hasSize((int) requests);

				// a declaration of its own: a watch like the configured ones, shared by
				// its callers
				WatchDeclaration<KubernetesObject> web = WatchDeclaration.of("v1", "configmaps")
					.inNamespace(ns)
					.withLabelSelector("app=web");
				Informer<KubernetesObject> webInformer = factory.informer("web", web);
				assertThat(factory.informer("web-again", web)).isSameAs(webInformer);
				assertThat(webInformer.isRunning()).as("started by its caller").isFalse();
				webInformer.start();
				assertThat(webInformer.awaitSynced(WAIT)).isTrue();
				assertThat(webInformer.lister().list()).extracting(KubernetesObject::name).containsExactly("web-1");
				assertThat(counter.fullSyncs()).isEqualTo(2);
				assertThat(context.getBean("webInformer")).isSameAs(webInformer);
				assertThat(context.getBean("listwatchHealthContributor", CompositeHealthContributor.class)
					.getContributor("web")).as("in health").isNotNull();
				EventRecorder recorder = context.getBean(EventRecorder.class);
				server.writer().create(path, labelled(ns, "web-2", "web"));
				await().atMost(WAIT)
					.until(() -> recorder.last.containsKey("web " + ns + "/web-2")
							&& recorder.last.containsKey("cms " + ns + "/web-2"));
				assertThat(recorder.last.get("web " + ns + "/web-2").type()).isEqualTo(ResourceEvent.Type.ADDED);
			});
	}

	@Test
	void aListenerAddedAfterTheSyncFirstReceivesTheCacheThenTheChanges() {
		LocalApiServer server = LocalApiServer.shared();
		String ns = server.createNamespace("lw-late");
		String path = "/api/v1/namespaces/" + ns + "/configmaps";
		for (String name : List.of("a", "b", "c")) {
			server.writer().create(path, ApiWriter.configMap(ns, name, "v", "0"));
		}
		this.runner.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig()).run((context) -> {
			Informer<KubernetesObject> informer = context.getBean(InformerFactory.class)
				.informer("late", WatchDeclaration.of("v1", "ConfigMap").inNamespace(ns));
			List<String> early = new CopyOnWriteArrayList<>();
			Informer.Registration first = informer.addListener((event) -> early.add(describe(event)));
			informer.start();
			assertThat(informer.awaitSynced(WAIT)).isTrue();
			await().atMost(WAIT).until(first::hasSynced);
			assertThat(early).containsExactlyInAnyOrder("ADDED a initial", "ADDED b initial", "ADDED c initial");

			List<String> late = new CopyOnWriteArrayList<>();
			Informer.Registration second = informer.addListener((event) -> late.add(describe(event)));
			await().atMost(WAIT).until(second::hasSynced);
			assertThat(late).containsExactlyInAnyOrder("ADDED a initial", "ADDED b initial", "ADDED c initial");
			server.writer().create(path, ApiWriter.configMap(ns, "d", "v", "0"));
			server.writer().delete(path + "/a");
			await().atMost(WAIT).until(() -> late.size() == 5 && early.size() == 5);
			assertThat(late.subList(3, 5)).containsExactlyInAnyOrder("ADDED d", "DELETED a");
			assertThat(early.subList(3, 5)).containsExactlyInAnyOrder("ADDED d", "DELETED a");
		});
	}

	@Test
	void aConfiguredNamespaceSetIsOneCacheWithAStatusPerNamespace() {
		LocalApiServer server = LocalApiServer.shared();
		String shop = server.createNamespace("lw-shop");
		String billing = server.createNamespace("lw-billing");
		String other = server.createNamespace("lw-other");
		server.writer().create("/api/v1/namespaces/" + shop + "/configmaps", ApiWriter.configMap(shop, "s", "v", "0"));
		server.writer()
			.create("/api/v1/namespaces/" + billing + "/configmaps", ApiWriter.configMap(billing, "b", "v", "0"));
		server.writer()
			.create("/api/v1/namespaces/" + other + "/configmaps", ApiWriter.configMap(other, "o", "v", "0"));
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(), "listwatch.watches.pair.api-version=v1",
					"listwatch.watches.pair.kind=ConfigMap", "listwatch.watches.pair.namespaces[0]=" + shop,
					"listwatch.watches.pair.namespaces[1]=" + billing)
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean("pairListerWatcher").hasBean("pairLister");
				Informer<?> informer = context.getBean("pairInformer", Informer.class);
				assertThat(informer.awaitSynced(WAIT)).isTrue();
				assertThat(informer.lister().list()).extracting((o) -> ((KubernetesObject) o).key())
					.containsExactlyInAnyOrder(shop + "/s", billing + "/b");
				// the resourceVersion is recorded once the sync is handed on, just after
				// it
				await().atMost(WAIT)
					.until(() -> informer.status().namespaces().get(shop).lastResourceVersion() != null);
				WatchStatus status = informer.status();
				assertThat(status.namespaces()).containsOnlyKeys(billing, shop);
				assertThat(status.objects()).isEqualTo(2);
				HealthIndicator health = (HealthIndicator) context
					.getBean("listwatchHealthContributor", CompositeHealthContributor.class)
					.getContributor("pair");
				Health pair = health.health();
				assertThat(pair.getStatus()).isEqualTo(Status.UP);
				@SuppressWarnings("unchecked")
				Map<String, Object> namespaces = (Map<String, Object>) pair.getDetails().get("namespaces");
				assertThat(namespaces).containsOnlyKeys(shop, billing);
				assertThat(context.getBean(InformerFactory.class)
					.informer("again", WatchDeclaration.of("v1", "ConfigMap").inNamespaces(billing, shop)))
					.as("the same set, in another order")
					.isSameAs(informer);
			});
	}

	@Test
	void aCutOnOneNamespaceOfASetResumesThatNamespaceAloneWithoutARelist(@TempDir Path dir) throws Exception {
		LocalApiServer server = LocalApiServer.shared();
		String cut = server.createNamespace("lw-cut");
		String steady = server.createNamespace("lw-steady");
		ApiWriter writer = server.writer();
		writer.create("/api/v1/namespaces/" + cut + "/configmaps", ApiWriter.configMap(cut, "c0", "v", "0"));
		writer.create("/api/v1/namespaces/" + steady + "/configmaps", ApiWriter.configMap(steady, "s0", "v", "0"));
		List<ResourceEvent<?>> events = new CopyOnWriteArrayList<>();
		try (FaultProxy proxy = FaultProxy.startFor(server.serverUrl());
				ApiServerClient throughProxy = client(proxy.kubeconfigFor(server.kubeconfig(), dir.resolve("proxied")),
						dir);
				ApiServerClient direct = client(server.kubeconfig(), dir);
				InformerFactory factory = new InformerFactory(Clock.systemUTC(), (event) -> {
					if (event instanceof ResourceEvent<?> resourceEvent) {
						events.add(resourceEvent);
					}
				}, 1, Duration.ofSeconds(1))) {
			List<ListerWatcher<KubernetesObject>> listerWatchers = List.of(
					throughProxy.listerWatcher(new ApiServerClient.Target("v1", "ConfigMap", null, cut),
							KubernetesObject.class, ApiServerClient.Decoding.DEFAULTS),
					direct.listerWatcher(new ApiServerClient.Target("v1", "ConfigMap", null, steady),
							KubernetesObject.class, ApiServerClient.Decoding.DEFAULTS));
			Informer<KubernetesObject> informer = factory.informer("set", KubernetesObject.class, listerWatchers,
					InformerOptions.defaults(), List.of());
			try {
				informer.start();
				assertThat(informer.awaitSynced(WAIT)).isTrue();
				await().atMost(WAIT)
					.until(() -> proxy.openConnections() > 0
							&& informer.status().namespaces().get(cut).state() == WatchStatus.State.WATCHING);
				assertThat(proxy.cutAll()).isPositive();
				writer.create("/api/v1/namespaces/" + cut + "/configmaps", ApiWriter.configMap(cut, "c1", "v", "1"));
				writer.create("/api/v1/namespaces/" + steady + "/configmaps",
						ApiWriter.configMap(steady, "s1", "v", "1"));
				await().atMost(WAIT)
					.until(() -> informer.lister().get(cut, "c1").isPresent()
							&& informer.lister().get(steady, "s1").isPresent());
				WatchStatus status = informer.status();
				WatchStatus cutStatus = status.namespaces().get(cut);
				WatchStatus steadyStatus = status.namespaces().get(steady);
				assertThat(cutStatus.restarts(WatchStatus.RestartReason.DISCONNECTED)).isPositive();
				assertThat(cutStatus.relists()).as("resumed from its resourceVersion").isZero();
				assertThat(cutStatus.lists().count() + cutStatus.syncs().count()).isLessThanOrEqualTo(2);
				assertThat(steadyStatus.totalRestarts()).as("the other namespace's stream was not touched").isZero();
				assertThat(status.totalRestarts()).isEqualTo(cutStatus.totalRestarts());
				assertThat(informer.lister().list()).hasSize(4);
				assertThat(events.stream().filter((e) -> !e.initialList()).map(ResourceEvent::key))
					.containsExactlyInAnyOrder(cut + "/c1", steady + "/s1");
			}
			finally {
				informer.stop();
			}
		}
	}

	private static ApiServerClient client(Path kubeconfig, Path dir) {
		return ApiServerClient.create(Cluster.load(ConnectionOptions.builder()
			.kubeconfig(kubeconfig.toString())
			.environment(Map.of())
			.homeDirectory(dir)
			.serviceAccountDirectory(dir)
			.build()), RestClient.builder(), JsonMapper.shared(), Clock.systemUTC());
	}

	private static String labelled(String namespace, String name, String app) {
		return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"namespace\":\"" + namespace
				+ "\",\"name\":\"" + name + "\",\"labels\":{\"app\":\"" + app + "\"}},\"data\":{\"v\":\"0\"}}";
	}

	private static String describe(ResourceEvent<KubernetesObject> event) {
		return event.type() + " " + event.object().name() + (event.initialList() ? " initial" : "");
	}

}
