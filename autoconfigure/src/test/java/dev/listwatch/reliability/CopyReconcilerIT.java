package dev.listwatch.reliability;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Resource;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.autoconfigure.controller.ControllerAutoConfiguration;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.client.ResourceWriter;
import dev.listwatch.controller.Controller;
import dev.listwatch.controller.Reconciler;
import dev.listwatch.controller.Request;
import dev.listwatch.controller.Result;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.fault.FaultProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A controller that copies the labelled ConfigMaps of one namespace into another and
 * writes a status annotation back onto each source, through the fault proxy in front of
 * the real kube-apiserver (watches and writes alike): while the proxy cuts every
 * connection again and again and the sources change, and after a cut-off long enough for
 * etcd to compact past the watch (410 Gone, relist, a deletion seen only as missing), the
 * copies converge to exactly the sources, every source carries the annotation of its
 * data, and no key is left failing.
 */
class CopyReconcilerIT {

	private static final String ANNOTATION = "listwatch.dev/copied";

	private static final int SOURCES = 20;

	private static final Duration WAIT = Duration.ofSeconds(90);

	@TempDir
	Path dir;

	@Test
	void copiesConvergeThroughCutsAndA410() throws Exception {
		try (LocalApiServer server = new LocalApiServer(
				LocalApiServer.Options.defaults().withFlags("--etcd-compaction-interval=1s", "--watch-cache=false"))
			.start(); FaultProxy proxy = FaultProxy.startFor(server.serverUrl())) {
			String source = server.createNamespace("lw-copy-from");
			server.createNamespace("lw-copy-to");
			String sources = "/api/v1/namespaces/" + source + "/configmaps";
			ApiWriter writer = server.writer();
			for (int i = 0; i < SOURCES; i++) {
				writer.create(sources, labelled(source, "s-" + i, "0"));
			}
			new ApplicationContextRunner()
				.withConfiguration(
						AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
								ListwatchAutoConfiguration.class, ControllerAutoConfiguration.class))
				.withUserConfiguration(CopierConfiguration.class)
				.withPropertyValues(
						"listwatch.kubeconfig="
								+ proxy.kubeconfigFor(server.kubeconfig(), this.dir.resolve("kubeconfig")),
						"listwatch.watches.sources.api-version=v1", "listwatch.watches.sources.kind=ConfigMap",
						"listwatch.watches.sources.namespace=" + source,
						"listwatch.watches.sources.label-selector=copy=true",
						"listwatch.defaults.initial-backoff=100ms", "listwatch.defaults.idle-timeout=5s",
						"listwatch.defaults.max-backoff=500ms", "listwatch.controllers.copy.watch=sources",
						"listwatch.controllers.copy.workers=4", "listwatch.controllers.copy.backoff.max=500ms")
				.run((context) -> {
					Informer<?> informer = context.getBean("sourcesInformer", Informer.class);
					Controller<?> controller = context.getBean("copyController", Controller.class);
					await().atMost(WAIT).until(() -> converged(writer, source));

					// cuts: every connection, watches and writes, again and again, while
					// every source changes
					for (int round = 1; round <= 5; round++) {
						for (int i = 0; i < SOURCES; i++) {
							writer.patch(sources + "/s-" + i, "{\"data\":{\"v\":\"" + round + "\"}}");
							if (i % 5 == 0) {
								proxy.cutAll();
							}
						}
					}
					writer.delete(sources + "/s-0");
					await().atMost(WAIT).until(() -> converged(writer, source));
					assertThat(proxy.cuts()).isPositive();

					// a 410: cut off while a source is deleted, one changes and one is
					// created, until etcd has compacted past the watch
					proxy.refuse();
					proxy.cutAll();
					String before = CompactionRelistIT.cutOff(informer);
					writer.delete(sources + "/s-1");
					writer.patch(sources + "/s-2", "{\"data\":{\"v\":\"after-410\"}}");
					writer.create(sources, labelled(source, "s-new", "0"));
					CompactionRelistIT.compactPast(writer, sources, before, "copy-filler");
					proxy.resume();
					await().atMost(WAIT).until(() -> informer.status().relists() >= 1);
					await().atMost(WAIT).until(() -> converged(writer, source));
					assertThat(copies(writer, "lw-copy-to")).doesNotContainKeys("s-0", "s-1")
						.containsEntry("s-2", "{\"v\":\"after-410\"}")
						.containsKey("s-new")
						.hasSize(SOURCES - 1);
					await().atMost(WAIT).until(() -> controller.status().failing().isEmpty());
				});
		}
	}

	/**
	 * Whether every source has its copy with its data and carries the annotation of its
	 * data, and no copy is left of a source that is gone.
	 */
	private static boolean converged(ApiWriter writer, String source) {
		Map<String, String> copies = copies(writer, "lw-copy-to");
		Map<String, String> originals = new TreeMap<>();
		for (JsonNode item : JsonMapper.shared()
			.readTree(writer.get("/api/v1/namespaces/" + source + "/configmaps?labelSelector=copy%3Dtrue"))
			.path("items")) {
			String data = item.path("data").toString();
			if (!String.valueOf(data.hashCode())
				.equals(item.path("metadata").path("annotations").path(ANNOTATION).asString(""))) {
				return false;
			}
			originals.put(item.path("metadata").path("name").asString(), data);
		}
		return copies.equals(originals);
	}

	private static Map<String, String> copies(ApiWriter writer, String namespace) {
		Map<String, String> copies = new TreeMap<>();
		for (JsonNode item : JsonMapper.shared()
			.readTree(writer.get("/api/v1/namespaces/" + namespace + "/configmaps"))
			.path("items")) {
			if (!item.path("metadata").path("name").asString().equals("kube-root-ca.crt")) {
				copies.put(item.path("metadata").path("name").asString(), item.path("data").toString());
			}
		}
		return copies;
	}

	private static String labelled(String namespace, String name, String value) {
		return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\""
				+ namespace + "\",\"labels\":{\"copy\":\"true\"}},\"data\":{\"v\":\"" + value + "\"}}";
	}

	@Configuration(proxyBeanMethods = false)
	static class CopierConfiguration {

		@Bean
		Reconciler<KubernetesObject> copyReconciler(ApiServerClient client) {
			return new Copier(
					client.writer(new Resource("", "v1", "configmaps", "ConfigMap", true, null), KubernetesObject.class)
						.withFieldManager("copier"));
		}

	}

	/**
	 * Copies a source ConfigMap's data into {@code lw-copy-to} by server-side apply,
	 * deletes the copy of a source that is gone, and annotates the source with the hash
	 * of the data copied, once (so its own write, seen as a change, reconciles to
	 * nothing).
	 */
	record Copier(ResourceWriter<KubernetesObject> configMaps) implements Reconciler<KubernetesObject> {

		@Override
		public Result reconcile(Request<KubernetesObject> request) {
			if (request.object().isEmpty()) {
				this.configMaps.delete("lw-copy-to", request.name());
				return Result.done();
			}
			KubernetesObject original = request.object().get();
			String data = original.at("/data").toString();
			String copy = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + request.name()
					+ "\",\"namespace\":\"lw-copy-to\"},\"data\":" + data + "}";
			this.configMaps.apply(
					KubernetesObject.of(new ObjectMeta("lw-copy-to", request.name(), null, "", Map.of()), "v1",
							"ConfigMap", copy.getBytes(StandardCharsets.UTF_8)),
					ResourceWriter.ApplyOptions.DEFAULTS.withForce(true));
			String hash = String.valueOf(data.hashCode());
			if (!hash.equals(original.at("/metadata/annotations/" + ANNOTATION.replace("/", "~1")).asString(""))) {
				this.configMaps.patch(original.namespace(), request.name(), ResourceWriter.Patch
					.merge("{\"metadata\":{\"annotations\":{\"" + ANNOTATION + "\":\"" + hash + "\"}}}"));
			}
			return Result.done();
		}

	}

}
