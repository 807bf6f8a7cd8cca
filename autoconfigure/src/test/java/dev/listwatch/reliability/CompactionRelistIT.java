package dev.listwatch.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.listwatch.KubernetesObject;
import dev.listwatch.Lister;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.fault.FaultProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * While a watch is cut off, objects are deleted, changed and created and etcd compacts
 * past the watch's resourceVersion. On reconnecting the watch gets 410 Gone, relists, and
 * reports the difference: the delete it missed (final state unknown), the change and the
 * creation.
 */
class CompactionRelistIT {

	@TempDir
	Path dir;

	@Test
	void aCompactedResourceVersionIsRecoveredByRelistWithTheDifference() {
		try (LocalApiServer server = new LocalApiServer(
				LocalApiServer.Options.defaults().withFlags("--etcd-compaction-interval=1s", "--watch-cache=false"))
			.start(); FaultProxy proxy = FaultProxy.startFor(server.serverUrl())) {
			String ns = server.createNamespace("lw-compaction");
			String path = "/api/v1/namespaces/" + ns + "/configmaps";
			ApiWriter writer = server.writer();
			for (String name : List.of("a", "b", "c")) {
				writer.create(path, ApiWriter.configMap(ns, name, "v", "0"));
			}
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
						RestClientAutoConfiguration.class, ListwatchAutoConfiguration.class))
				.withBean(EventRecorder.class)
				.withPropertyValues(
						"listwatch.kubeconfig="
								+ proxy.kubeconfigFor(server.kubeconfig(), this.dir.resolve("kubeconfig")),
						"listwatch.watches.cms.api-version=v1", "listwatch.watches.cms.kind=ConfigMap",
						"listwatch.watches.cms.namespace=" + ns, "listwatch.defaults.initial-backoff=100ms",
						// a request through the proxy after refuse/resume now and then
						// hangs unanswered (cause not found yet): abandoned and retried
						// after this, as any such request
						"listwatch.defaults.idle-timeout=5s", "listwatch.defaults.max-backoff=500ms")
				.run((context) -> {
					Informer<?> informer = context.getBean("cmsInformer", Informer.class);
					EventRecorder recorder = context.getBean(EventRecorder.class);
					await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
					proxy.refuse();
					proxy.cutAll();
					// where the watch will resume from: compaction must pass that, not an
					// earlier one
					String before = cutOff(informer);
					writer.delete(path + "/a");
					writer.patch(path + "/b", "{\"data\":{\"v\":\"1\"}}");
					writer.create(path, ApiWriter.configMap(ns, "d", "v", "0"));
					compactPast(writer, path, before, "filler");
					proxy.resume();
					await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
						assertThat(informer.status().relists()).isEqualTo(1);
						assertThat(recorder.last).containsKeys("cms " + ns + "/d");
					});
					await().atMost(Duration.ofSeconds(10)).until(() -> informer.status().backlog() == 0);
					ResourceEvent<KubernetesObject> deleted = recorder.last.get("cms " + ns + "/a");
					assertThat(deleted.type()).isEqualTo(ResourceEvent.Type.DELETED);
					assertThat(deleted.finalStateUnknown()).isTrue();
					ResourceEvent<KubernetesObject> changed = recorder.last.get("cms " + ns + "/b");
					assertThat(changed.type()).isEqualTo(ResourceEvent.Type.MODIFIED);
					assertThat(changed.object().at("/data/v").asString()).isEqualTo("1");
					assertThat(changed.oldObject().at("/data/v").asString()).isEqualTo("0");
					assertThat(recorder.last.get("cms " + ns + "/d").type()).isEqualTo(ResourceEvent.Type.ADDED);
					assertThat(recorder.last.get("cms " + ns + "/c").initialList()).isTrue();
					Lister<KubernetesObject> lister = context.getBean("cmsLister", Lister.class);
					assertThat(lister.list().stream().map(KubernetesObject::name).sorted()).containsExactly("b", "c",
							"d");
					assertThat(informer.status().restarts()).containsKey(RestartReason.EXPIRED);
				});
		}
	}

	/**
	 * A typed watch: an object changes to a value its Java type cannot hold, then etcd
	 * compacts past the watch, which relists (as a streaming list, then as a paged list).
	 * The object exists all along: it is never published as deleted, the cache keeps its
	 * last state that could be held, the watch reports it (key, JSON path, type, never
	 * the value), and once it binds again one MODIFIED goes out from that state.
	 */
	@ParameterizedTest(name = "streaming-list={0}")
	@ValueSource(booleans = { true, false })
	void anObjectThatStopsBindingSurvivesARelistAfterCompaction(boolean streaming) {
		try (LocalApiServer server = new LocalApiServer(
				LocalApiServer.Options.defaults().withFlags("--etcd-compaction-interval=1s", "--watch-cache=false"))
			.start(); FaultProxy proxy = FaultProxy.startFor(server.serverUrl())) {
			String ns = server.createNamespace("lw-unbindable");
			String path = "/api/v1/namespaces/" + ns + "/configmaps";
			ApiWriter writer = server.writer();
			writer.create(path, ApiWriter.configMap(ns, "x", "mode", "on"));
			writer.create(path, ApiWriter.configMap(ns, "y", "mode", "off"));
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
						RestClientAutoConfiguration.class, ListwatchAutoConfiguration.class))
				.withUserConfiguration(TypedListeners.class)
				.withPropertyValues(
						"listwatch.kubeconfig="
								+ proxy.kubeconfigFor(server.kubeconfig(), this.dir.resolve("kubeconfig")),
						"listwatch.watches.modes.api-version=v1", "listwatch.watches.modes.kind=ConfigMap",
						"listwatch.watches.modes.namespace=" + ns,
						"listwatch.watches.modes.type=" + Settings.class.getName(),
						"listwatch.defaults.streaming-list=" + streaming, "listwatch.defaults.initial-backoff=100ms",
						// a request through the proxy after refuse/resume now and then
						// hangs unanswered (cause not found yet): abandoned and retried
						// after this, as any such request
						"listwatch.defaults.idle-timeout=5s", "listwatch.defaults.max-backoff=500ms")
				.run((context) -> {
					Informer<?> informer = context.getBean("modesInformer", Informer.class);
					TypedRecorder recorder = context.getBean(TypedRecorder.class);
					Lister<Settings> lister = context.getBean("modesLister", Lister.class);
					await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
					writer.patch(path + "/x", "{\"data\":{\"mode\":\"s3cr3t-not-a-mode\"}}");
					await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().unbindable().size() == 1);
					assertThat(lister.get(ns, "x")).map((settings) -> settings.data().mode()).contains(Mode.on);
					proxy.refuse();
					proxy.cutAll();
					String before = cutOff(informer);
					compactPast(writer, path, before, "filler-" + streaming);
					proxy.resume();
					await().atMost(Duration.ofSeconds(30))
						.until(() -> informer.status().relists() == 1 && informer.status().backlog() == 0
								&& !before.equals(informer.status().lastResourceVersion()));
					assertThat(informer.status().streamingList()).isEqualTo(streaming);
					assertThat(recorder.all).as("the server has x: never published as deleted")
						.noneMatch((event) -> event.type() == ResourceEvent.Type.DELETED);
					assertThat(lister.get(ns, "x")).map((settings) -> settings.data().mode()).contains(Mode.on);
					assertThat(informer.status().unbindable()).singleElement().satisfies((object) -> {
						assertThat(object.key()).isEqualTo(ns + "/x");
						assertThat(object.path()).isEqualTo("/data/mode");
						assertThat(object.targetType()).isEqualTo(Settings.class.getName());
					});
					assertThat(informer.status().unbindable() + " " + informer.status())
						.doesNotContain("s3cr3t-not-a-mode");
					writer.patch(path + "/x", "{\"data\":{\"mode\":\"off\"}}");
					await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().unbindable().size() == 0);
					await().atMost(Duration.ofSeconds(10))
						.untilAsserted(() -> assertThat(recorder.all)
							.filteredOn((event) -> event.type() == ResourceEvent.Type.MODIFIED)
							.singleElement()
							.satisfies((event) -> {
								assertThat(event.key()).isEqualTo(ns + "/x");
								assertThat(event.oldObject().data().mode()).isEqualTo(Mode.on);
								assertThat(event.object().data().mode()).isEqualTo(Mode.off);
							}));
				});
		}
	}

	/**
	 * Waits until the watch has noticed that it is cut off.
	 * @return the resourceVersion it will resume from
	 */
	static String cutOff(Informer<?> informer) {
		await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().consecutiveFailures() > 0);
		return informer.status().lastResourceVersion();
	}

	/**
	 * Writes until etcd has compacted past {@code resourceVersion} and the API server's
	 * watch cache no longer holds it either (its window of events is its own, so a watch
	 * may still be served from there after etcd compacted): a watch from there then gets
	 * 410.
	 */
	static void compactPast(ApiWriter writer, String path, String resourceVersion, String fillerPrefix) {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		boolean compacted = false;
		boolean watchGone = false;
		for (int i = 0; !watchGone && System.nanoTime() < deadline; i++) {
			writer.create("/api/v1/namespaces/default/configmaps",
					ApiWriter.configMap("default", fillerPrefix + "-" + i, "v", "0"));
			if (!compacted) {
				try {
					writer.get(path + "?resourceVersion=" + resourceVersion + "&resourceVersionMatch=Exact");
				}
				catch (IllegalStateException ex) {
					compacted = ex.getMessage().contains("410");
				}
			}
			if (compacted) {
				try {
					watchGone = writer.get(path + "?watch=1&resourceVersion=" + resourceVersion + "&timeoutSeconds=1")
						.contains("\"code\":410");
				}
				catch (IllegalStateException ex) {
					watchGone = ex.getMessage().contains("410");
				}
			}
		}
		assertThat(compacted).as("etcd compacted past %s", resourceVersion).isTrue();
		assertThat(watchGone).as("a watch from %s is refused with 410", resourceVersion).isTrue();
	}

	/** A ConfigMap whose {@code data.mode} must be one of {@link Mode}. */
	@JsonIgnoreProperties(ignoreUnknown = true)
	public record Settings(Data data) {

		@JsonIgnoreProperties(ignoreUnknown = true)
		public record Data(Mode mode) {
		}

	}

	public enum Mode {

		on, off

	}

	@Configuration(proxyBeanMethods = false)
	static class TypedListeners {

		@Bean
		TypedRecorder typedRecorder() {
			return new TypedRecorder();
		}

	}

	static class TypedRecorder {

		final List<ResourceEvent<Settings>> all = new CopyOnWriteArrayList<>();

		@EventListener
		void on(ResourceEvent<Settings> event) {
			if (!event.initialList()) {
				this.all.add(event);
			}
		}

	}

}
