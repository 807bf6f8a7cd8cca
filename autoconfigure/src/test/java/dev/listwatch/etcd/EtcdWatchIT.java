package dev.listwatch.etcd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.Lister;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.autoconfigure.EtcdAutoConfiguration;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.LocalEtcd;
import dev.listwatch.testsupport.fault.FaultProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Watches of etcd keys through the auto-configuration, against a real etcd 3.6 and no API
 * server (and no kubeconfig: the API server's client is never made): paged lists at one
 * revision, events in order, a cut stream resumed without a relist, a compaction answered
 * by a relist and its difference, progress notifications as bookmarks, and values that
 * cannot be held.
 */
@ExtendWith(OutputCaptureExtension.class)
class EtcdWatchIT {

	/**
	 * The protocol the runners ask for ({@code listwatch.etcd.protocol}): the JSON
	 * gateway here; the {@code *GrpcIT} subclasses run every test again over gRPC.
	 */
	static volatile String protocol = "gateway";

	private static LocalEtcd etcd;

	@BeforeAll
	static void start() {
		protocol = "gateway";
		etcd = new LocalEtcd(LocalEtcd.Options.defaults().withProgressNotifyInterval(Duration.ofMillis(500))).start();
	}

	@AfterAll
	static void stop() {
		if (etcd != null) {
			etcd.close();
		}
	}

	static ApplicationContextRunner runner(String endpoint, String prefix, String... properties) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, ListwatchAutoConfiguration.class,
					EtcdAutoConfiguration.class))
			.withBean(Recorder.class)
			.withPropertyValues("listwatch.kubeconfig=/nonexistent/kubeconfig", "listwatch.etcd.endpoints=" + endpoint,
					"listwatch.watches.cfg.source=etcd", "listwatch.watches.cfg.key-prefix=" + prefix,
					"listwatch.defaults.initial-backoff=50ms", "listwatch.defaults.max-backoff=500ms",
					"listwatch.etcd.protocol=" + protocol)
			.withPropertyValues(properties);
	}

	@Test
	void listsThousandsOfKeysInPagesAllAtTheFirstPagesRevision() {
		for (int i = 0; i < 3000; i++) {
			etcd.put(String.format("/paged/ns%d/key-%04d", i % 3, i), "{\"n\":" + i + "}");
		}
		runner(etcd.endpoint(), "/paged", "listwatch.defaults.page-size=500").run((context) -> {
			Informer<?> informer = informer(context);
			await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
			Lister<KubernetesObject> lister = lister(context);
			assertThat(lister.list()).hasSize(3000);
			KubernetesObject one = lister.get("ns1", "key-0001").orElseThrow();
			assertThat(one.at("/n").asInt()).isEqualTo(1);
			assertThat(one.namespace()).isEqualTo("ns1");
			// no kubeconfig, and none needed: the API server's client was never made
			assertThat(context.getBeanFactory().containsSingleton("listwatchApiServerClient")).isFalse();
			// the pages themselves: each at the first page's revision, a key written
			// meanwhile left out
			@SuppressWarnings("unchecked")
			ListerWatcher<KubernetesObject> listerWatcher = context.getBean("cfgListerWatcher", ListerWatcher.class);
			ObjectList<KubernetesObject> page = listerWatcher.list(ListOptions.none().withLimit(500L));
			String revision = page.resourceVersion();
			assertThat(page.remainingItemCount()).isEqualTo(2500);
			etcd.put("/paged/ns2/zz-late", "{}");
			Set<String> keys = new HashSet<>();
			int pages = 1;
			page.items().forEach((item) -> keys.add(item.meta().key()));
			while (page.hasMore()) {
				page = listerWatcher.list(ListOptions.none().withLimit(500L).withContinueToken(page.continueToken()));
				assertThat(page.resourceVersion()).isEqualTo(revision);
				page.items().forEach((item) -> keys.add(item.meta().key()));
				pages++;
			}
			assertThat(pages).isEqualTo(6);
			assertThat(keys).hasSize(3000).doesNotContain("ns2/zz-late");
			await().atMost(Duration.ofSeconds(10)).until(() -> lister.get("ns2", "zz-late").isPresent());
			assertThat(informer.status().lists().count()).isEqualTo(1);
			assertThat(informer.status().streamingList()).isFalse();
		});
	}

	@Test
	void theClientSpeaksTheProtocolAskedFor() {
		runner(etcd.endpoint(), "/protocol/").run((context) -> {
			EtcdClient client = context.getBean(EtcdClient.class);
			assertThat(client.protocol().name()).isEqualToIgnoringCase(protocol);
			assertThat(client.toString()).contains(protocol.equals("grpc") ? "(gRPC)" : "etcd [");
			await().atMost(Duration.ofSeconds(30)).until(() -> informer(context).status().synced());
		});
	}

	@Test
	void anEndpointThatCannotBeReachedIsPassedOver() {
		etcd.put("/failover/a", "{}");
		// a port nothing listens on: refused at once, passed over for the next
		runner("http://127.0.0.1:1," + etcd.endpoint(), "/failover/", "listwatch.etcd.connect-timeout=1s")
			.run((context) -> {
				Informer<?> informer = informer(context);
				await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
				etcd.put("/failover/b", "{}");
				await().atMost(Duration.ofSeconds(10)).until(() -> lister(context).get(null, "b").isPresent());
				assertThat(informer.status().relists()).isZero();
			});
	}

	static String endpoint() {
		return etcd.endpoint();
	}

	static long put(String key, String value) {
		return etcd.put(key, value);
	}

	@Test
	void createUpdateAndDeleteArePublishedInOrder() {
		runner(etcd.endpoint(), "/order/").run((context) -> {
			Informer<?> informer = informer(context);
			await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
			Recorder recorder = context.getBean(Recorder.class);
			// each change once the one before was delivered: changes of one object that
			// wait for listeners together fold into one (README, How events behave)
			long created = etcd.put("/order/flags/dark-mode",
					"{\"metadata\":{\"labels\":{\"team\":\"web\"}},\"on\":false}");
			await().atMost(Duration.ofSeconds(10)).until(() -> recorder.changes().size() == 1);
			long updated = etcd.put("/order/flags/dark-mode",
					"{\"metadata\":{\"labels\":{\"team\":\"web\"}},\"on\":true}");
			await().atMost(Duration.ofSeconds(10)).until(() -> recorder.changes().size() == 2);
			long deleted = etcd.delete("/order/flags/dark-mode");
			etcd.put("/order/global", "{\"on\":true}");
			await().atMost(Duration.ofSeconds(10)).until(() -> recorder.changes().size() == 4);
			List<ResourceEvent<KubernetesObject>> events = recorder.changes();
			assertThat(events).extracting(ResourceEvent::type)
				.containsExactly(ResourceEvent.Type.ADDED, ResourceEvent.Type.MODIFIED, ResourceEvent.Type.DELETED,
						ResourceEvent.Type.ADDED);
			assertThat(events.get(0).key()).isEqualTo("flags/dark-mode");
			assertThat(events.get(0).object().resourceVersion()).isEqualTo(Long.toString(created));
			assertThat(events.get(0).object().labels()).containsEntry("team", "web");
			assertThat(events.get(1).object().resourceVersion()).isEqualTo(Long.toString(updated));
			assertThat(events.get(1).oldObject().at("/on").asBoolean()).isFalse();
			assertThat(events.get(1).object().at("/on").asBoolean()).isTrue();
			// the last state, from the cache: etcd's delete carries the key alone
			assertThat(events.get(2).object().at("/on").asBoolean()).isTrue();
			assertThat(events.get(2).finalStateUnknown()).isFalse();
			assertThat(events.get(3).key()).isEqualTo("global");
			assertThat(events.get(3).object().namespace()).isNull();
			assertThat(lister(context).listByLabels("team=web")).isEmpty();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> Long.parseLong(informer.status().lastResourceVersion()) > deleted);
		});
	}

	@Test
	void progressNotificationsAreBookmarksThatAdvanceTheResourceVersion() {
		runner(etcd.endpoint(), "/quiet/").run((context) -> {
			Informer<?> informer = informer(context);
			await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
			long elsewhere = etcd.put("/elsewhere/x", "{}");
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				WatchStatus status = informer.status();
				assertThat(status.events(WatchEvent.Type.BOOKMARK)).isPositive();
				assertThat(Long.parseLong(status.lastResourceVersion())).isGreaterThanOrEqualTo(elsewhere);
			});
			assertThat(informer.status().objects()).isZero();
		});
	}

	@Test
	void aCutStreamResumesFromItsRevisionWithoutARelist() {
		try (FaultProxy proxy = FaultProxy.start(etcd.port())) {
			etcd.put("/cut/a", "{\"v\":0}");
			runner("http://127.0.0.1:" + proxy.port(), "/cut/").run((context) -> {
				Informer<?> informer = informer(context);
				Recorder recorder = context.getBean(Recorder.class);
				await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
				for (int round = 1; round <= 3; round++) {
					assertThat(proxy.cutAll()).isPositive();
					etcd.put("/cut/a", "{\"v\":" + round + "}");
					etcd.put("/cut/n" + round, "{}");
					int expected = round;
					await().atMost(Duration.ofSeconds(15))
						.until(() -> lister(context).get(null, "n" + expected).isPresent());
				}
				await().atMost(Duration.ofSeconds(10)).until(() -> informer.status().backlog() == 0);
				WatchStatus status = informer.status();
				assertThat(status.lists().count()).isEqualTo(1);
				assertThat(status.relists()).isZero();
				assertThat(status.restarts(RestartReason.DISCONNECTED)).isGreaterThanOrEqualTo(3);
				assertThat(lister(context).get(null, "a").orElseThrow().at("/v").asInt()).isEqualTo(3);
				// every change seen once, none replayed
				assertThat(recorder.changes().stream().filter((event) -> event.key().equals("a")))
					.extracting((event) -> event.object().at("/v").asInt())
					.containsExactly(1, 2, 3);
			});
		}
	}

	@Test
	void aCompactedRevisionRelistsAndPublishesTheDifference() {
		try (FaultProxy proxy = FaultProxy.start(etcd.port())) {
			for (String name : List.of("a", "b", "c")) {
				etcd.put("/compact/" + name, "{\"v\":0}");
			}
			runner("http://127.0.0.1:" + proxy.port(), "/compact/").run((context) -> {
				Informer<?> informer = informer(context);
				Recorder recorder = context.getBean(Recorder.class);
				await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
				proxy.refuse();
				proxy.cutAll();
				etcd.delete("/compact/a");
				etcd.put("/compact/b", "{\"v\":1}");
				etcd.put("/compact/d", "{\"v\":0}");
				etcd.compact(etcd.revision());
				proxy.resume();
				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
					assertThat(informer.status().relists()).isEqualTo(1);
					assertThat(recorder.last).containsKey("d");
				});
				await().atMost(Duration.ofSeconds(10)).until(() -> informer.status().backlog() == 0);
				assertThat(recorder.last.get("a").type()).isEqualTo(ResourceEvent.Type.DELETED);
				assertThat(recorder.last.get("a").finalStateUnknown()).isTrue();
				assertThat(recorder.last.get("b").type()).isEqualTo(ResourceEvent.Type.MODIFIED);
				assertThat(recorder.last.get("b").object().at("/v").asInt()).isEqualTo(1);
				assertThat(recorder.last.get("d").type()).isEqualTo(ResourceEvent.Type.ADDED);
				assertThat(recorder.last.get("c").initialList()).isTrue();
				assertThat(lister(context).list()).extracting(KubernetesObject::name)
					.containsExactlyInAnyOrder("b", "c", "d");
				assertThat(informer.status().restarts(RestartReason.EXPIRED)).isEqualTo(1);
			});
		}
	}

	@Test
	void valuesThatCannotBeHeldAreReportedAndTheWatchGoesOn(CapturedOutput output) {
		etcd.put("/typed/good", "{\"enabled\":true,\"percent\":10}");
		etcd.put("/typed/text", "not json: secret-value-1");
		runner(etcd.endpoint(), "/typed/", "listwatch.watches.cfg.type=" + Flag.class.getName()).run((context) -> {
			Informer<?> informer = informer(context);
			await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
			@SuppressWarnings("unchecked")
			Lister<Flag> lister = context.getBean("cfgLister", Lister.class);
			assertThat(lister.list()).containsExactly(new Flag(true, 10));
			assertThat(informer.status().unbindable()).extracting(UnbindableObject::key).containsExactly("text");
			assertThat(informer.status().unbindable().get(0).reason()).startsWith("not valid JSON");
			// a value of the wrong type for an object that binds today: kept, reported,
			// never deleted
			etcd.put("/typed/good", "{\"enabled\":\"secret-value-2\",\"percent\":10}");
			etcd.put("/typed/named", "{\"metadata\":{\"name\":\"other\"},\"enabled\":true}");
			etcd.put("/typed/later", "{\"enabled\":false,\"percent\":50}");
			await().atMost(Duration.ofSeconds(10)).until(() -> lister.get(null, "later").isPresent());
			Map<String, UnbindableObject> unbindable = new ConcurrentHashMap<>();
			informer.status().unbindable().forEach((object) -> unbindable.put(object.key(), object));
			assertThat(unbindable).containsOnlyKeys("text", "good", "named");
			assertThat(unbindable.get("good").path()).isEqualTo("/enabled");
			assertThat(unbindable.get("good").targetType()).isEqualTo(Flag.class.getName());
			assertThat(unbindable.get("named").path()).isEqualTo("/metadata/name");
			assertThat(lister.get(null, "good")).contains(new Flag(true, 10));
			// mended: one MODIFIED from the last state held
			etcd.put("/typed/good", "{\"enabled\":true,\"percent\":20}");
			await().atMost(Duration.ofSeconds(10)).until(() -> lister.get(null, "good").orElseThrow().percent() == 20);
			assertThat(informer.status().unbindable()).extracting(UnbindableObject::key)
				.containsExactlyInAnyOrder("text", "named");
			assertThat(informer.status().restarts()).doesNotContainKey(RestartReason.BAD_DATA);
		});
		assertThat(output).doesNotContain("secret-value-1").doesNotContain("secret-value-2");
	}

	@Test
	void aRestartedEtcdIsWatchedOnFromTheLastRevision() {
		try (LocalEtcd own = new LocalEtcd(LocalEtcd.Options.defaults()).start()) {
			own.put("/restart/a", "{}");
			runner(own.endpoint(), "/restart/").run((context) -> {
				Informer<?> informer = informer(context);
				await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
				own.stopProcess();
				await().atMost(Duration.ofSeconds(10)).until(() -> informer.status().consecutiveFailures() > 0);
				own.start();
				own.put("/restart/b", "{}");
				await().atMost(Duration.ofSeconds(30)).until(() -> lister(context).get(null, "b").isPresent());
				assertThat(informer.status().relists()).isZero();
				assertThat(informer.status().lists().count()).isEqualTo(1);
			});
		}
	}

	@SuppressWarnings("unchecked")
	static Lister<KubernetesObject> lister(AssertableApplicationContext context) {
		return context.getBean("cfgLister", Lister.class);
	}

	static Informer<?> informer(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean("cfgInformer", Informer.class);
	}

	/** A feature flag, as a typed watch binds it. */
	record Flag(boolean enabled, int percent) {

	}

	/** Records the events of the {@code cfg} watch. */
	static class Recorder {

		final List<ResourceEvent<KubernetesObject>> all = new CopyOnWriteArrayList<>();

		final Map<String, ResourceEvent<KubernetesObject>> last = new ConcurrentHashMap<>();

		@EventListener
		void on(ResourceEvent<KubernetesObject> event) {
			this.all.add(event);
			this.last.put(event.key(), event);
		}

		List<ResourceEvent<KubernetesObject>> changes() {
			return new ArrayList<>(this.all.stream().filter((event) -> !event.initialList()).toList());
		}

	}

}
