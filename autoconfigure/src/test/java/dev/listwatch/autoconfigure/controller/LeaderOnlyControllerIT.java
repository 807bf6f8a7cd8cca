package dev.listwatch.autoconfigure.controller;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import dev.listwatch.KubernetesObject;
import dev.listwatch.autoconfigure.LeaderElectionAutoConfiguration;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.controller.Controller;
import dev.listwatch.controller.Reconciler;
import dev.listwatch.controller.Result;
import dev.listwatch.leader.LeaderElector;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two replicas of an application with a leader-only controller, electing a leader on a
 * Lease of the real kube-apiserver: only the leader reconciles; when it shuts down while
 * the objects keep changing, the other takes over and reconciles every object at its last
 * state, so the hand-over loses no key.
 */
@ExtendWith(LocalApiServerExtension.class)
@Timeout(180)
class LeaderOnlyControllerIT {

	private static final String NAMESPACE = "lw-controller-leader";

	private static final int OBJECTS = 20;

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static LocalApiServer server;

	private final List<ConfigurableApplicationContext> contexts = new CopyOnWriteArrayList<>();

	/** The value of data.v of each key as last reconciled, by key. */
	private final Map<String, String> reconciled = new ConcurrentHashMap<>();

	/** Reconciles by replica. */
	private final Map<String, AtomicInteger> byReplica = new ConcurrentHashMap<>();

	/** Reconciles run by a replica that was not leader at the time. */
	private final AtomicInteger notLeader = new AtomicInteger();

	/** The keys reconciled as deleted, by replica. */
	private final Map<String, Set<String>> deletedBy = new ConcurrentHashMap<>();

	/** While set, reconciles of {@code busy-*} keys wait for it (or their interrupt). */
	private volatile @Nullable CountDownLatch busy;

	private final AtomicInteger busyNow = new AtomicInteger();

	@BeforeAll
	static void namespace(LocalApiServer localApiServer) {
		server = localApiServer;
		server.createNamespace(NAMESPACE);
	}

	@AfterEach
	void close() {
		this.contexts.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void onlyTheLeaderReconcilesAndAHandOverWhileObjectsChangeLosesNoKey() throws Exception {
		ApiWriter writer = server.writer();
		String path = "/api/v1/namespaces/" + NAMESPACE + "/configmaps";
		for (int i = 0; i < OBJECTS; i++) {
			writer.create(path, ApiWriter.configMap(NAMESPACE, "cm-" + i, "v", "0"));
		}
		ConfigurableApplicationContext first = start("replica-1");
		ConfigurableApplicationContext second = start("replica-2");
		await().atMost(WAIT).until(() -> elector(first).isLeader() != elector(second).isLeader());
		ConfigurableApplicationContext leader = elector(first).isLeader() ? first : second;
		ConfigurableApplicationContext follower = (leader == first) ? second : first;
		await().atMost(WAIT).until(() -> allAt("0"));
		assertThat(this.byReplica.get(identity(follower))).isNull();
		assertThat(controller(follower).isRunning()).isFalse();
		assertThat(controller(leader).isRunning()).isTrue();

		// the leader shuts down while every object changes, twice
		Thread changes = new Thread(() -> {
			for (int round = 1; round <= 2; round++) {
				for (int i = 0; i < OBJECTS; i++) {
					writer.patch(path + "/cm-" + i, "{\"data\":{\"v\":\"" + round + "\"}}");
				}
			}
		});
		changes.start();
		leader.close();
		changes.join();
		await().atMost(WAIT).until(() -> elector(follower).isLeader());
		await().atMost(WAIT).until(() -> allAt("2"));
		assertThat(this.byReplica.get(identity(follower))).isNotNull();
		assertThat(this.notLeader).hasValue(0);
	}

	/**
	 * The leader stops gracefully while its workers are busy and deletions wait in its
	 * queue behind them: the next leader reconciles every one of them (its watch saw them
	 * while it was a follower).
	 */
	@Test
	void deletionsQueuedBehindBusyWorkersAtAGracefulStopAreReconciledByTheNextLeader() throws Exception {
		ApiWriter writer = server.writer();
		String path = "/api/v1/namespaces/" + NAMESPACE + "/configmaps";
		List<String> deleted = List.of("del-0", "del-1", "del-2", "del-3", "del-4");
		for (String name : deleted) {
			writer.create(path, ApiWriter.configMap(NAMESPACE, name, "v", "0"));
		}
		writer.create(path, ApiWriter.configMap(NAMESPACE, "busy-0", "v", "0"));
		writer.create(path, ApiWriter.configMap(NAMESPACE, "busy-1", "v", "0"));
		ConfigurableApplicationContext first = start("replica-a", "listwatch.controllers.copy.shutdown-timeout=1s");
		ConfigurableApplicationContext second = start("replica-b", "listwatch.controllers.copy.shutdown-timeout=1s");
		await().atMost(WAIT).until(() -> elector(first).isLeader() != elector(second).isLeader());
		ConfigurableApplicationContext leader = elector(first).isLeader() ? first : second;
		ConfigurableApplicationContext follower = (leader == first) ? second : first;
		await().atMost(WAIT)
			.until(() -> this.reconciled.keySet()
				.containsAll(deleted.stream().map((name) -> NAMESPACE + "/" + name).toList()));

		// both workers of the leader busy, then the deletions queue behind them
		CountDownLatch release = new CountDownLatch(1);
		this.busy = release;
		writer.patch(path + "/busy-0", "{\"data\":{\"v\":\"1\"}}");
		writer.patch(path + "/busy-1", "{\"data\":{\"v\":\"1\"}}");
		await().atMost(WAIT).until(() -> this.busyNow.get() == 2);
		for (String name : deleted) {
			writer.delete(path + "/" + name);
		}
		Controller<?> stopping = controller(leader);
		await().atMost(WAIT)
			.until(() -> deleted.stream()
				.allMatch((name) -> stopping.informer().lister().get(NAMESPACE, name).isEmpty()
						&& controller(follower).informer().lister().get(NAMESPACE, name).isEmpty()));
		this.busy = null;
		leader.close();
		await().atMost(WAIT).until(() -> elector(follower).isLeader());
		Set<String> expected = new HashSet<>(deleted.stream().map((name) -> NAMESPACE + "/" + name).toList());
		await().atMost(WAIT)
			.until(() -> this.deletedBy.getOrDefault(identity(follower), Set.of()).containsAll(expected));
		assertThat(this.notLeader).hasValue(0);
		release.countDown();
	}

	private boolean allAt(String value) {
		for (int i = 0; i < OBJECTS; i++) {
			if (!value.equals(this.reconciled.get(NAMESPACE + "/cm-" + i))) {
				return false;
			}
		}
		return true;
	}

	private ConfigurableApplicationContext start(String identity, String... properties) {
		ConfigurableApplicationContext[] self = new ConfigurableApplicationContext[1];
		Reconciler<KubernetesObject> reconciler = (request) -> {
			if (!self[0].getBean(LeaderElector.class).isLeader()) {
				this.notLeader.incrementAndGet();
			}
			this.byReplica.computeIfAbsent(identity, (key) -> new AtomicInteger()).incrementAndGet();
			request.object().ifPresent((object) -> this.reconciled.put(request.key(), object.at("/data/v").asString()));
			if (request.object().isEmpty()) {
				this.deletedBy.computeIfAbsent(identity, (key) -> ConcurrentHashMap.newKeySet()).add(request.key());
			}
			CountDownLatch gate = this.busy;
			if (gate != null && request.key().startsWith(NAMESPACE + "/busy-")) {
				this.busyNow.incrementAndGet();
				try {
					gate.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				finally {
					this.busyNow.decrementAndGet();
				}
			}
			return Result.done();
		};
		ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.initializers((ctx) -> {
				self[0] = ctx;
				ctx.getBeanFactory().registerSingleton("copyReconciler", reconciler);
			})
			.properties("spring.application.name=lw-controller-leader", "listwatch.kubeconfig=" + server.kubeconfig(),
					"listwatch.leader-election.enabled=true", "listwatch.leader-election.lease-namespace=" + NAMESPACE,
					"listwatch.leader-election.identity=" + identity, "listwatch.leader-election.lease-duration=2s",
					"listwatch.leader-election.renew-deadline=1500ms", "listwatch.leader-election.retry-period=250ms",
					"listwatch.watches.configmaps.api-version=v1", "listwatch.watches.configmaps.kind=ConfigMap",
					"listwatch.watches.configmaps.namespace=" + NAMESPACE,
					"listwatch.controllers.copy.watch=configmaps", "listwatch.controllers.copy.workers=2",
					"listwatch.controllers.copy.leader-only=true")
			.properties(properties)
			.run();
		this.contexts.add(context);
		return context;
	}

	private static String identity(ConfigurableApplicationContext context) {
		return context.getBean(LeaderElector.class).options().identity();
	}

	private static LeaderElector elector(ConfigurableApplicationContext context) {
		return context.getBean(LeaderElector.class);
	}

	private static Controller<?> controller(ConfigurableApplicationContext context) {
		return context.getBean("copyController", Controller.class);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
			ListwatchAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
			ControllerAutoConfiguration.class })
	static class App {

	}

}
