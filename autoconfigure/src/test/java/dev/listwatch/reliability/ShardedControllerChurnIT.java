package dev.listwatch.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

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
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A sharded controller on five replicas, each a process of its own ({@link ShardReplica})
 * that reaches the real kube-apiserver through a fault proxy of its own, while 1,000
 * ConfigMaps change round after round: a replica joins, one leaves gracefully, one is
 * killed ({@code SIGKILL}), one is cut off from the API server for longer than the lease,
 * one is frozen ({@code SIGSTOP}, as a long GC pause) for longer than the lease. Every
 * reconcile is recorded as (key, replica, start, end) on the machine's monotonic clock.
 * Then: every key's last change was reconciled; no two replicas' reconciles of one key
 * overlap that owned their key at their end ({@code Request.stillOwned()} is what a
 * reconciler asks before an effect), and of all reconciles, those that no longer owned
 * their key or were interrupted included, only the frozen replica's overlap, ending
 * within a second of its waking (its interrupt is due at once when it notices); the
 * killed replica's shards started elsewhere within a lease duration and a retry period
 * (and the time of the steps that see it gone and start them); the live replicas' shares
 * are within one shard of even.
 */
@ExtendWith(LocalApiServerExtension.class)
@Timeout(300)
class ShardedControllerChurnIT {

	private static final String NAMESPACE = "lw-shards-churn";

	private static final int KEYS = 1000;

	private static final int SHARDS = 16;

	private static final Duration LEASE = Duration.ofSeconds(4);

	private static final Duration RENEW = Duration.ofSeconds(3);

	private static final Duration RETRY = Duration.ofMillis(500);

	private static final Duration WAIT = Duration.ofSeconds(90);

	private static LocalApiServer server;

	@TempDir
	Path dir;

	private final List<Replica> replicas = new CopyOnWriteArrayList<>();

	@BeforeAll
	static void namespace(LocalApiServer localApiServer) {
		server = localApiServer;
		server.createNamespace(NAMESPACE);
	}

	@AfterEach
	void stop() {
		for (Replica replica : this.replicas) {
			replica.process.destroyForcibly();
			replica.proxy.close();
		}
	}

	@Test
	void churnLosesNoKeyAndNeverRunsOneKeyOnTwoReplicas() throws Exception {
		ApiWriter writer = server.writer();
		String path = "/api/v1/namespaces/" + NAMESPACE + "/configmaps";
		writer.createAll(path,
				IntStream.range(0, KEYS).mapToObj((i) -> ApiWriter.configMap(NAMESPACE, "cm-" + i, "v", "0")).toList(),
				8);
		Replica r1 = start("r1");
		Replica r2 = start("r2");
		Replica r3 = start("r3");
		awaitEvenShares(r1, r2, r3);

		AtomicInteger round = new AtomicInteger();
		AtomicBoolean churning = new AtomicBoolean(true);
		Thread changes = new Thread(() -> {
			while (churning.get()) {
				int v = round.incrementAndGet();
				for (int i = 0; i < KEYS; i++) {
					writer.patch(path + "/cm-" + i, "{\"data\":{\"v\":\"" + v + "\"}}");
				}
			}
		}, "changes");
		changes.start();

		// a replica joins
		Replica r4 = start("r4");
		awaitEvenShares(r1, r2, r3, r4);
		// one leaves gracefully
		r1.leave();
		awaitEvenShares(r2, r3, r4);
		// one is killed: its shards start elsewhere within a lease and a retry period
		Set<Integer> ofR2 = r2.shards();
		long killed = System.nanoTime();
		r2.process.destroyForcibly();
		await().atMost(WAIT).until(() -> !r2.process.isAlive());
		Duration handOver = awaitTaken(ofR2, killed, r3, r4);
		awaitEvenShares(r3, r4);
		Replica r5 = start("r5");
		awaitEvenShares(r3, r4, r5);
		// one is cut off from the API server for longer than the lease
		r3.proxy.refuse();
		r3.proxy.cutAll();
		awaitTaken(r3.shards(), System.nanoTime(), r4, r5);
		await().atMost(WAIT).until(() -> r3.shards().isEmpty());
		r3.proxy.resume();
		awaitEvenShares(r3, r4, r5);
		// one is frozen for longer than the lease, as by a long GC pause
		Set<Integer> ofR4 = r4.shards();
		signal(r4, "STOP");
		awaitTaken(ofR4, System.nanoTime(), r3, r5);
		long woke = System.nanoTime();
		signal(r4, "CONT");
		awaitEvenShares(r3, r4, r5);

		churning.set(false);
		changes.join();
		String last = String.valueOf(round.get());
		List<Replica> live = List.of(r3, r4, r5);
		await().atMost(WAIT).until(() -> lastChangesReconciled(last));

		List<Reconcile> all = records();
		assertThat(overlaps(all, true)).isEmpty();
		// every overlap, the reconciles that no longer owned their key at their end (or
		// were interrupted) included: with a reconciler that honours its interrupt, only
		// the frozen replica's can overlap, and only up to when it noticed it woke
		List<String> anyOverlap = overlaps(all, false);
		long afterWaking = all.stream()
			.filter((reconcile) -> reconcile.replica().equals("r4") && reconcile.start() < woke
					&& reconcile.end() > woke)
			.mapToLong((reconcile) -> reconcile.end() - woke)
			.max()
			.orElse(0);
		List<Reconcile> beyondTheFreeze = all.stream()
			.filter((reconcile) -> !reconcile.owned())
			.filter((reconcile) -> !(reconcile.replica().equals("r4") && reconcile.start() < woke
					&& reconcile.end() >= woke))
			.filter((reconcile) -> anyOverlap.stream().anyMatch((pair) -> pair.contains(reconcile.toString())))
			.toList();
		assertThat(beyondTheFreeze).isEmpty();
		assertThat(Duration.ofNanos(afterWaking)).isLessThan(Duration.ofSeconds(1));
		long unowned = all.stream().filter((reconcile) -> !reconcile.owned()).count();
		long interrupted = all.stream().filter(Reconcile::interrupted).count();
		Set<String> seen = all.stream().map(Reconcile::replica).collect(Collectors.toSet());
		assertThat(seen).contains("r1", "r2", "r3", "r4", "r5");
		// the survivors see the killed replica's last write within a retry period of the
		// kill, count it gone a lease duration later, and start its shards two steps
		// (write and list each) after that: a retry period of slack covers the steps and
		// the event's delivery on this loaded machine
		assertThat(handOver).isLessThanOrEqualTo(LEASE.plus(RETRY).plus(RETRY));
		assertEvenShares(live);
		// the Leases of the replica that left and of the one killed were deleted once
		// expired: only the live replicas' remain
		await().atMost(WAIT).until(() -> leaseHolders(writer), List.of("r3", "r4", "r5")::equals);
		System.out.println("Sharded churn: " + all.size() + " reconciles over " + round.get() + " rounds of " + KEYS
				+ " keys, " + unowned + " ended no longer owned (" + interrupted + " interrupted); overlaps: 0 owned, "
				+ anyOverlap.size() + " in all (the frozen replica's, ending at most "
				+ Duration.ofNanos(afterWaking).toMillis() + " ms after it woke); hand-over after the kill "
				+ handOver);
	}

	private static List<String> leaseHolders(ApiWriter writer) {
		JsonNode leases = JsonMapper.shared()
			.readTree(writer.get("/apis/coordination.k8s.io/v1/namespaces/" + NAMESPACE + "/leases"));
		List<String> holders = new ArrayList<>();
		leases.path("items").forEach((lease) -> holders.add(lease.path("spec").path("holderIdentity").asString()));
		holders.sort(Comparator.naturalOrder());
		return holders;
	}

	private Replica start(String identity) throws IOException {
		FaultProxy proxy = FaultProxy.startFor(server.serverUrl());
		Path kubeconfig = proxy.kubeconfigFor(server.kubeconfig(), this.dir.resolve(identity + ".kubeconfig"));
		Path records = this.dir.resolve(identity + ".records");
		String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
						"-XX:TieredStopAtLevel=1", "-cp", classpath, ShardReplica.class.getName(),
						kubeconfig.toString(), identity, NAMESPACE, records.toString()));
		command.addAll(List.of("spring.application.name=lw-shards", "listwatch.watches.configmaps.api-version=v1",
				"listwatch.watches.configmaps.kind=ConfigMap", "listwatch.controllers.copy.watch=configmaps",
				"listwatch.controllers.copy.workers=4", "listwatch.controllers.copy.sharding.enabled=true",
				"listwatch.controllers.copy.sharding.shards=" + SHARDS,
				"listwatch.controllers.copy.sharding.lease-duration=" + LEASE.toSeconds() + "s",
				"listwatch.controllers.copy.sharding.renew-deadline=" + RENEW.toMillis() + "ms",
				"listwatch.controllers.copy.sharding.retry-period=" + RETRY.toMillis() + "ms",
				"logging.level.dev.listwatch=INFO"));
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectInput(ProcessBuilder.Redirect.PIPE)
			.start();
		Replica replica = new Replica(identity, process, proxy, records, this.dir.resolve(identity + ".log"));
		this.replicas.add(replica);
		replica.read();
		await().atMost(WAIT).until(() -> replica.ready || !process.isAlive());
		assertThat(process.isAlive()).as("replica %s started (its log: %s)", identity, replica.log).isTrue();
		return replica;
	}

	private void awaitEvenShares(Replica... live) {
		await().atMost(WAIT).until(() -> evenShares(List.of(live)));
	}

	private static boolean evenShares(List<Replica> live) {
		Set<Integer> union = new HashSet<>();
		int min = Integer.MAX_VALUE;
		int max = 0;
		int total = 0;
		for (Replica replica : live) {
			Set<Integer> shards = replica.shards();
			union.addAll(shards);
			total += shards.size();
			min = Math.min(min, shards.size());
			max = Math.max(max, shards.size());
		}
		return union.size() == SHARDS && total == SHARDS && max - min <= 1;
	}

	private static void assertEvenShares(List<Replica> live) {
		assertThat(evenShares(live)).as("shares of %s", live.stream().map(Replica::describe).toList()).isTrue();
	}

	/** Waits until the live replicas run every shard given, and says how long it took. */
	private static Duration awaitTaken(Set<Integer> shards, long since, Replica... live) {
		Map<Integer, Long> startedAt = new ConcurrentHashMap<>();
		await().atMost(WAIT).until(() -> {
			for (Replica replica : live) {
				replica.startedSince(since).forEach(startedAt::putIfAbsent);
			}
			return startedAt.keySet().containsAll(shards);
		});
		long latest = shards.stream().mapToLong(startedAt::get).max().orElse(since);
		return Duration.ofNanos(latest - since);
	}

	private static void signal(Replica replica, String signal) throws Exception {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(replica.process.pid())).inheritIO()
			.start();
		assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(kill.exitValue()).isZero();
	}

	private boolean lastChangesReconciled(String last) {
		Set<String> done = records().stream()
			.filter((reconcile) -> reconcile.owned() && reconcile.v().equals(last))
			.map(Reconcile::key)
			.collect(Collectors.toSet());
		return done.size() == KEYS;
	}

	private List<Reconcile> records() {
		List<Reconcile> all = new ArrayList<>();
		for (Replica replica : this.replicas) {
			try {
				if (Files.exists(replica.records)) {
					for (String line : Files.readAllLines(replica.records)) {
						String[] fields = line.split(" ");
						if (fields.length == 7) {
							all.add(new Reconcile(fields[0], fields[1], Long.parseLong(fields[2]),
									Long.parseLong(fields[3]), fields[4], Boolean.parseBoolean(fields[5]),
									Boolean.parseBoolean(fields[6])));
						}
					}
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return all;
	}

	/**
	 * Pairs of reconciles of one key on two replicas whose intervals overlap: of those
	 * that owned their key at their end, or of all.
	 */
	private static List<String> overlaps(List<Reconcile> all, boolean ownedOnly) {
		Map<String, List<Reconcile>> byKey = new HashMap<>();
		all.stream()
			.filter((reconcile) -> !ownedOnly || reconcile.owned())
			.forEach((reconcile) -> byKey.computeIfAbsent(reconcile.key(), (key) -> new ArrayList<>()).add(reconcile));
		List<String> overlaps = new ArrayList<>();
		byKey.forEach((key, reconciles) -> {
			reconciles.sort(Comparator.comparingLong(Reconcile::start));
			Reconcile latest = null;
			for (Reconcile reconcile : reconciles) {
				if (latest != null && reconcile.start() < latest.end()
						&& !reconcile.replica().equals(latest.replica())) {
					overlaps.add(latest + " / " + reconcile);
				}
				if (latest == null || reconcile.end() > latest.end()) {
					latest = reconcile;
				}
			}
		});
		return overlaps;
	}

	private record Reconcile(String key, String replica, long start, long end, String v, boolean owned,
			boolean interrupted) {
	}

	/** One replica's process, what it printed, and its proxy. */
	private static final class Replica {

		private final String identity;

		private final Process process;

		private final FaultProxy proxy;

		private final Path records;

		private final Path log;

		private volatile boolean ready;

		/** Each change of its shards: when (nanoTime), and the shards it runs since. */
		private final List<Map.Entry<Long, Set<Integer>>> changes = new CopyOnWriteArrayList<>();

		Replica(String identity, Process process, FaultProxy proxy, Path records, Path log) {
			this.identity = identity;
			this.process = process;
			this.proxy = proxy;
			this.records = records;
			this.log = log;
		}

		void read() {
			Thread reader = new Thread(() -> {
				try (BufferedReader in = new BufferedReader(
						new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
					String line;
					while ((line = in.readLine()) != null) {
						Files.writeString(this.log, line + "\n", StandardCharsets.UTF_8,
								java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
						if (line.equals("READY")) {
							this.ready = true;
						}
						else if (line.startsWith("SHARDS ")) {
							String[] fields = line.split(" ", 3);
							Set<Integer> shards = new TreeSet<>();
							if (fields.length == 3 && !fields[2].isBlank()) {
								for (String shard : fields[2].split(",")) {
									shards.add(Integer.parseInt(shard));
								}
							}
							this.changes.add(Map.entry(Long.parseLong(fields[1]), shards));
						}
					}
				}
				catch (IOException ex) {
					// the process ended
				}
			}, "replica-" + this.identity);
			reader.setDaemon(true);
			reader.start();
		}

		Set<Integer> shards() {
			if (!this.process.isAlive() || this.changes.isEmpty()) {
				return Set.of();
			}
			return this.changes.get(this.changes.size() - 1).getValue();
		}

		/** The shards it started after a time, with when. */
		Map<Integer, Long> startedSince(long since) {
			Map<Integer, Long> started = new HashMap<>();
			Set<Integer> before = Set.of();
			for (Map.Entry<Long, Set<Integer>> change : this.changes) {
				if (change.getKey() - since >= 0) {
					for (int shard : change.getValue()) {
						if (!before.contains(shard)) {
							started.putIfAbsent(shard, change.getKey());
						}
					}
				}
				before = change.getValue();
			}
			return started;
		}

		void leave() throws Exception {
			this.process.getOutputStream().close();
			assertThat(this.process.waitFor(60, TimeUnit.SECONDS)).as("%s left", this.identity).isTrue();
		}

		String describe() {
			return this.identity + shards();
		}

	}

}
