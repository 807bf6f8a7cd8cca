package dev.listwatch.leader;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Lister;
import dev.listwatch.autoconfigure.LeaderElectionAutoConfiguration;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.autoconfigure.health.LeaderElectionHealthContributorAutoConfiguration;
import dev.listwatch.health.LeaderElectionHealthIndicator;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import dev.listwatch.testsupport.fault.FaultProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three instances of an application (each a Spring Boot application context with the
 * auto-configuration) elect a leader on a Lease of the real kube-apiserver, with short
 * durations: lease 2 s, renew deadline 1.5 s, retry period 0.25 s. Every grant and revoke
 * of every instance goes, as it is published, into one ordered {@link Timeline}; a grant
 * while another instance is leader is an overlap, and there must be none.
 */
@ExtendWith(LocalApiServerExtension.class)
@Timeout(300)
class LeaderElectionIT {

	private static final Logger logger = LoggerFactory.getLogger(LeaderElectionIT.class);

	private static final Duration LEASE = Duration.ofSeconds(2);

	private static final Duration RENEW = Duration.ofMillis(1500);

	private static final Duration RETRY = Duration.ofMillis(250);

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final String NAMESPACE = "lw-leader";

	private static LocalApiServer server;

	@TempDir
	Path dir;

	private final Timeline timeline = new Timeline();

	private final List<Instance> instances = new CopyOnWriteArrayList<>();

	private final List<FaultProxy> proxies = new ArrayList<>();

	@BeforeAll
	static void namespace(LocalApiServer localApiServer) {
		server = localApiServer;
		server.createNamespace(NAMESPACE);
	}

	@AfterEach
	void close() {
		this.instances.forEach(Instance::close);
		this.proxies.forEach(FaultProxy::close);
	}

	@Test
	void threeInstancesElectOneLeaderThatHandsOverAtOnceWhenStoppedAndAfterTheLeaseWhenKilled() {
		String lease = "handover";
		ApiWriter writer = server.writer();
		writer.create("/api/v1/namespaces/" + NAMESPACE + "/configmaps",
				ApiWriter.configMap(NAMESPACE, "handover-job", "k", "v"));
		for (String identity : List.of("a", "b", "c")) {
			start(identity, lease, server.kubeconfig());
		}
		Instance first = awaitOneLeader();
		assertOneLeaderFor(Duration.ofSeconds(3));
		assertThat(this.timeline.grants()).containsExactly(first.identity());
		for (Instance instance : this.instances) {
			assertThat(instance.elector().status().holder()).isEqualTo(first.identity());
			Health health = instance.health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("role", (instance == first) ? "LEADER" : "FOLLOWER")
				.containsEntry("holder", first.identity())
				.containsEntry("lease", NAMESPACE + "/" + lease);
			// the leader-only watch runs on the leader alone
			assertThat(instance.jobs().isRunning()).isEqualTo(instance == first);
		}
		await().atMost(WAIT).until(() -> first.jobsLister().get(NAMESPACE, "handover-job").isPresent());

		long stopped = System.nanoTime();
		first.close();
		Instance second = awaitOneLeader();
		// isLeader turns true just before the grant event is recorded
		await().atMost(WAIT).until(() -> this.timeline.lines().contains("granted " + second.identity()));
		long releasedHandover = this.timeline.grantNanos(second.identity()) - stopped;
		assertThat(second).isNotSameAs(first);
		await().atMost(WAIT).until(() -> second.jobs().isRunning());

		long killed = System.nanoTime();
		second.kill(this.timeline);
		Instance third = awaitOneLeader();
		await().atMost(WAIT).until(() -> this.timeline.lines().contains("granted " + third.identity()));
		long killedHandover = this.timeline.grantNanos(third.identity()) - killed;
		assertThat(third).isNotSameAs(first).isNotSameAs(second);

		logger.info("Handover after the leader stopped (released): {} ms; after it was killed: {} ms",
				releasedHandover / 1_000_000, killedHandover / 1_000_000);
		// released: the next retry of a follower; without the release it would take a
		// lease duration
		assertThat(Duration.ofNanos(releasedHandover)).isLessThan(RETRY.plusMillis(750));
		// killed: a lease duration after a follower last saw the Lease renewed
		assertThat(Duration.ofNanos(killedHandover)).isBetween(LEASE.minus(RETRY).minusMillis(100),
				LEASE.plus(RETRY).plusMillis(1000));
		assertThat(this.timeline.overlaps()).isEmpty();
		assertThat(this.timeline.lines()).containsExactly("granted " + first.identity(),
				"revoked " + first.identity() + " STOPPED", "granted " + second.identity(),
				"killed " + second.identity(), "granted " + third.identity());
	}

	@Test
	void aLeaderCutOffFromTheApiServerStopsActingBeforeAnotherIsGranted() {
		String lease = "partition";
		for (String identity : List.of("a", "b", "c")) {
			FaultProxy proxy = FaultProxy.startFor(server.serverUrl());
			this.proxies.add(proxy);
			start(identity, lease, proxy.kubeconfigFor(server.kubeconfig(), this.dir.resolve(identity + ".yaml")));
		}
		int rounds = 12;
		List<Long> gaps = new ArrayList<>();
		for (int round = 0; round < rounds; round++) {
			Instance leader = awaitOneLeader();
			// each term syncs afresh, and says so
			await().atMost(WAIT).until(() -> leader.jobsLister().hasSynced());
			FaultProxy proxy = this.proxies.get(this.instances.indexOf(leader));
			int grants = this.timeline.grants().size();
			boolean blackHole = round % 2 == 1;
			if (blackHole) {
				// requests hang: nothing answers, not even the TLS handshake
				proxy.stallNewConnections(true);
				proxy.stallAll();
			}
			else {
				proxy.refuse();
				proxy.cutAll();
			}
			await().atMost(WAIT).until(() -> this.timeline.grants().size() > grants);
			assertThat(leader.elector().isLeader()).isFalse();
			// a follower's cache, of its last term, does not pass for current
			await().atMost(WAIT).until(() -> !leader.jobs().isRunning());
			assertThat(leader.jobsLister().hasSynced()).as("the former leader's lister").isFalse();
			assertThat(leader.jobs().status().synced()).isFalse();
			gaps.add(this.timeline.lastGapMillis());
			if (blackHole) {
				proxy.stallNewConnections(false);
				proxy.cutAll();
			}
			else {
				proxy.resume();
			}
			await().atMost(WAIT).until(() -> leader.elector().status().lastError() == null);
		}
		logger.info("Revoke-to-grant gaps over {} rounds (ms): {}", rounds, gaps);
		List<String> lines = this.timeline.lines();
		assertThat(this.timeline.overlaps()).isEmpty();
		// a grant a round at least: on a loaded machine a leader may also miss its 1.5 s
		// renew deadline between rounds, and hand over once more (never to an overlap)
		long granted = lines.stream().filter((line) -> line.startsWith("granted")).count();
		assertThat(granted).isGreaterThanOrEqualTo(rounds + 1);
		assertThat(lines).filteredOn((line) -> line.startsWith("revoked"))
			.hasSize((int) granted - 1)
			.allMatch((line) -> line.endsWith("RENEW_DEADLINE_PASSED"));
		// the margin: a lease duration after the others last saw a renewal, less the
		// renew deadline
		assertThat(gaps).allMatch((gap) -> gap >= 0);
	}

	@Test
	void conflictingWritesAreRetriedAndTheLeaderKeepsTheLease() throws Exception {
		String lease = "conflicts";
		for (String identity : List.of("a", "b", "c")) {
			start(identity, lease, server.kubeconfig());
		}
		Instance leader = awaitOneLeader();
		// another client changes the Lease's labels every 50 ms: the leader's renewals,
		// sent with the resourceVersion it wrote last, meet 409 Conflict and go again
		// after reading the Lease
		ApiWriter writer = server.writer();
		String path = "/apis/coordination.k8s.io/v1/namespaces/" + NAMESPACE + "/leases/" + lease;
		AtomicBoolean writing = new AtomicBoolean(true);
		Thread labeller = new Thread(() -> {
			for (int i = 0; writing.get(); i++) {
				writer.patch(path, "{\"metadata\":{\"labels\":{\"touched\":\"" + i + "\"}}}");
				try {
					Thread.sleep(50);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		});
		labeller.start();
		try {
			await().atMost(WAIT).until(() -> leader.elector().status().conflicts() >= 5);
			assertOneLeaderFor(Duration.ofSeconds(2));
		}
		finally {
			writing.set(false);
			labeller.join();
		}
		logger.info("Conflicts: {}",
				this.instances.stream().map((i) -> i.identity() + "=" + i.elector().status().conflicts()).toList());
		assertThat(leader.elector().isLeader()).isTrue();
		assertThat(this.timeline.lines()).containsExactly("granted " + leader.identity());
		assertThat(writer.get(path)).contains("\"touched\"")
			.contains("\"holderIdentity\":\"" + leader.identity() + "\"");
	}

	// ---------------------------------------------------------------- helpers

	private Instance start(String identity, String lease, Path kubeconfig) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.initializers((ctx) -> ctx.addApplicationListener((ApplicationEvent event) -> {
				if (event instanceof LeadershipEvent leadership) {
					this.timeline.add(leadership);
				}
			}))
			.properties("spring.application.name=" + lease, "listwatch.kubeconfig=" + kubeconfig,
					"listwatch.leader-election.enabled=true", "listwatch.leader-election.lease-namespace=" + NAMESPACE,
					"listwatch.leader-election.identity=" + identity,
					"listwatch.leader-election.lease-duration=" + LEASE.toMillis() + "ms",
					"listwatch.leader-election.renew-deadline=" + RENEW.toMillis() + "ms",
					"listwatch.leader-election.retry-period=" + RETRY.toMillis() + "ms",
					"listwatch.watches.jobs.api-version=v1", "listwatch.watches.jobs.kind=ConfigMap",
					"listwatch.watches.jobs.namespace=" + NAMESPACE, "listwatch.watches.jobs.leader-only=true")
			.run();
		Instance instance = new Instance(identity, context);
		this.instances.add(instance);
		return instance;
	}

	/** Waits until exactly one live instance is leader. */
	private Instance awaitOneLeader() {
		List<Instance> leaders = new ArrayList<>();
		await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> {
			leaders.clear();
			this.instances.stream().filter(Instance::isLeader).forEach(leaders::add);
			return leaders.size() == 1;
		});
		return leaders.get(0);
	}

	private void assertOneLeaderFor(Duration duration) {
		long end = System.nanoTime() + duration.toNanos();
		while (System.nanoTime() < end) {
			assertThat(this.instances.stream().filter(Instance::isLeader).count()).isEqualTo(1);
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
			ListwatchAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
			LeaderElectionHealthContributorAutoConfiguration.class })
	static class App {

	}

	/** One instance of the application. */
	static final class Instance {

		private final String identity;

		private final ConfigurableApplicationContext context;

		private volatile boolean alive = true;

		Instance(String identity, ConfigurableApplicationContext context) {
			this.identity = identity;
			this.context = context;
		}

		String identity() {
			return this.identity;
		}

		LeaderElector elector() {
			return this.context.getBean(LeaderElector.class);
		}

		Informer<?> jobs() {
			return this.context.getBean("jobsInformer", Informer.class);
		}

		@SuppressWarnings("unchecked")
		Lister<KubernetesObject> jobsLister() {
			return this.context.getBean("jobsLister", Lister.class);
		}

		Health health() {
			return this.context.getBean(LeaderElectionHealthIndicator.class).health();
		}

		boolean isLeader() {
			return this.alive && elector().isLeader();
		}

		/** Stops the elector as a crash would, without revoke nor release. */
		void kill(Timeline timeline) {
			elector().halt();
			this.alive = false;
			timeline.add("killed " + this.identity);
		}

		void close() {
			this.alive = false;
			this.context.close();
		}

		@Override
		public String toString() {
			return this.identity;
		}

	}

	/** Every grant and revoke of every instance, in the order they were published. */
	static final class Timeline {

		private final List<Long> nanos = new ArrayList<>();

		private final List<String> lines = new ArrayList<>();

		void add(LeadershipEvent event) {
			add((event instanceof LeadershipRevokedEvent revoked)
					? "revoked " + event.identity() + " " + revoked.reason() : "granted " + event.identity());
		}

		synchronized void add(String line) {
			this.nanos.add(System.nanoTime());
			this.lines.add(line);
		}

		synchronized List<String> lines() {
			return List.copyOf(this.lines);
		}

		synchronized List<String> grants() {
			return this.lines.stream().filter((l) -> l.startsWith("granted ")).map((l) -> l.substring(8)).toList();
		}

		synchronized long grantNanos(String identity) {
			return this.nanos.get(this.lines.lastIndexOf("granted " + identity));
		}

		/** From the last revoke (or kill) to the last grant. */
		synchronized long lastGapMillis() {
			int grant = -1;
			int end = -1;
			for (int i = 0; i < this.lines.size(); i++) {
				if (this.lines.get(i).startsWith("granted")) {
					grant = i;
				}
				else {
					end = i;
				}
			}
			return (this.nanos.get(grant) - this.nanos.get(end)) / 1_000_000;
		}

		/** The grants published while another instance was leader. */
		synchronized List<String> overlaps() {
			Set<String> leading = new HashSet<>();
			List<String> overlaps = new ArrayList<>();
			for (String line : this.lines) {
				String[] words = line.split(" ");
				if (words[0].equals("granted")) {
					if (!leading.isEmpty()) {
						overlaps.add(line + " while " + leading + " led");
					}
					leading.add(words[1]);
				}
				else {
					leading.remove(words[1]);
				}
			}
			return overlaps;
		}

	}

}
