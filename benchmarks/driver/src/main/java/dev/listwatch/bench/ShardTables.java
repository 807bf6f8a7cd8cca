package dev.listwatch.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;

/**
 * The {@code shards} benchmark's side in the driver: sharded controllers
 * ({@code Controller#shardBy}) on the real kube-apiserver ({@link LocalApiServer}; the
 * fake server serves no Leases), each replica a JVM of its own ({@code ShardBench} in the
 * {@code listwatch} runner). For each number of replicas ({@code shardsReplicas}) and
 * each setting of the membership's durations ({@code shardsDurations}): the replicas
 * start and settle on even shares of {@code shardsShards} shards; under the first
 * setting, every one of {@code shardsKeys} ConfigMaps is changed once per round and the
 * time to the last key's reconcile gives keys per second; with two replicas or more, one
 * leaves gracefully, a new one joins, and one is killed ({@code destroyForcibly}, so it
 * releases nothing), {@code shardsKills} times, each timed until the others run all its
 * shards. listwatch only: the peers have no sharded reconcilers.
 */
final class ShardTables {

	/** The options of this benchmark and their defaults. */
	static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

	static {
		DEFAULTS.put("shardsReplicas", "1,2,4");
		DEFAULTS.put("shardsKeys", "1000");
		DEFAULTS.put("shardsShards", "16");
		DEFAULTS.put("shardsWorkers", "4");
		DEFAULTS.put("shardsWork", "sleep");
		DEFAULTS.put("shardsWorkMs", "5");
		DEFAULTS.put("shardsRounds", "3");
		DEFAULTS.put("shardsWriters", "32");
		DEFAULTS.put("shardsDurations", "15s/10s/2s,4s/3s/500ms");
		DEFAULTS.put("shardsKills", "2");
		DEFAULTS.put("shardsHandOvers", "true");
		DEFAULTS.put("shardsQps", "50");
		DEFAULTS.put("shardsBurst", "100");
		DEFAULTS.put("shardsHeap", "512m");
	}

	private static final String NAMESPACE = "bench-shards";

	private static final Pattern RENEW_TIME = Pattern.compile("\"renewTime\":\"([^\"]+)\"");

	private final Driver driver;

	private final int keys;

	private final int shards;

	private final List<long[]> durations = new ArrayList<>();

	private LocalApiServer server;

	private ApiWriter writer;

	/** The change number of the last round: every key's label {@code gen}. */
	private int gen;

	/** Replicas launched so far, for their identities. */
	private int launched;

	/** Every measured round: replicas, then the figures by name. */
	private final List<Map<String, Double>> rounds = new ArrayList<>();

	/** What each configuration of replicas and durations measured, in order. */
	private final List<HandOvers> handOvers = new ArrayList<>();

	private ShardTables(Driver driver) {
		this.driver = driver;
		this.keys = driver.i("shardsKeys");
		this.shards = driver.i("shardsShards");
		for (String setting : driver.opts.get("shardsDurations").split(",")) {
			String[] parts = setting.split("/");
			this.durations.add(new long[] { millis(parts[0]), millis(parts[1]), millis(parts[2]) });
		}
	}

	static void run(Driver driver) throws Exception {
		new ShardTables(driver).run();
	}

	private void run() throws Exception {
		String load0 = Files.readString(Path.of("/proc/loadavg")).trim();
		long started = System.nanoTime();
		try (LocalApiServer local = new LocalApiServer().start()) {
			this.server = local;
			this.writer = local.writer();
			local.createNamespace(NAMESPACE);
			List<String> objects = new ArrayList<>();
			for (int i = 0; i < this.keys; i++) {
				objects.add(ApiWriter.configMap(NAMESPACE, name(i), "v", "0"));
			}
			this.writer.createAll(collection(), objects, 16);
			for (String count : this.driver.opts.get("shardsReplicas").split(",")) {
				int replicas = Integer.parseInt(count.trim());
				for (int d = 0; d < this.durations.size(); d++) {
					// keys per second under the first setting; hand-overs need two
					if (d == 0 || (replicas >= 2 && Boolean.parseBoolean(this.driver.opts.get("shardsHandOvers")))) {
						configuration(replicas, d);
					}
				}
			}
		}
		String load1 = Files.readString(Path.of("/proc/loadavg")).trim();
		print(load0, load1, (System.nanoTime() - started) / 1e9);
	}

	// ------------------------------------------------------------------ the run

	/** R replicas under one setting of the durations: settle, measure, leave. */
	private void configuration(int replicas, int d) throws Exception {
		long[] dur = this.durations.get(d);
		String prefix = "bench-r" + replicas + "-d" + d;
		HandOvers h = new HandOvers(replicas, dur);
		this.handOvers.add(h);
		List<Replica> live = new ArrayList<>();
		try {
			for (int i = 0; i < replicas; i++) {
				live.add(launch(prefix, dur));
			}
			for (Replica r : live) {
				r.awaitReady();
			}
			long settled = awaitSettled(live, dur);
			long lastStart = live.stream().mapToLong(Replica::startedAt).max().orElseThrow();
			h.startMs = (settled - lastStart) / 1e6;
			log(prefix + ": " + replicas + " replicas settled " + Driver.f0(h.startMs) + " ms after the last started");
			if (d == 0) {
				// alternating, so that a busy spell of the machine falls on both kinds
				for (int round = 0; round < this.driver.i("shardsRounds"); round++) {
					this.rounds.add(round(live, false));
					this.rounds.add(round(live, true));
				}
			}
			if (replicas >= 2 && Boolean.parseBoolean(this.driver.opts.get("shardsHandOvers"))) {
				handOvers(prefix, dur, live, h);
			}
		}
		finally {
			leaveAll(live);
		}
	}

	/**
	 * Every key changed once; timed until its reconcile at that change, on any replica:
	 * from the first change, or with {@code backlog} from when the replicas are let go
	 * once every change has reached every cache (their reconciles of it held until then).
	 */
	private Map<String, Double> round(List<Replica> live, boolean backlog) throws Exception {
		int g = ++this.gen;
		Predicate<Map<String, String>> ofRound = (m) -> m.get("gen").equals(String.valueOf(g));
		for (Replica r : live) {
			r.send("measure " + g + (backlog ? " hold" : ""));
		}
		int expected = 0;
		for (Replica r : live) {
			expected += (int) r.await("shards-armed", ofRound, 180).number("expected");
		}
		Cpu cpu0 = Cpu.now(live);
		long t0 = System.nanoTime();
		long written = changeAll(g);
		long from = t0;
		if (backlog) {
			for (Replica r : live) {
				r.await("shards-held", ofRound, 600);
			}
			cpu0 = Cpu.now(live);
			from = System.nanoTime();
			for (Replica r : live) {
				r.send("go");
			}
		}
		double keysDone = 0;
		double reconciles = 0;
		double work = 0;
		double worked = 0;
		long last = 0;
		for (Replica r : live) {
			Result done = r.await("shards-done", ofRound, 600);
			keysDone += done.number("keys");
			reconciles += done.number("reconciles");
			work += done.number("workUs") * done.number("worked");
			worked += done.number("worked");
			last = Math.max(last, (long) done.number("last"));
		}
		Cpu cpu1 = Cpu.now(live);
		double window = cpu1.at - cpu0.at;
		Map<String, Double> r = new LinkedHashMap<>();
		r.put("replicas", (double) live.size());
		r.put("backlog", backlog ? 1.0 : 0.0);
		r.put("expected", (double) expected);
		r.put("keysDone", keysDone);
		r.put("keysPerSec", this.keys / ((last - from) / 1e9));
		r.put("writesPerSec", this.keys / ((written - t0) / 1e9));
		r.put("writtenMs", (written - t0) / 1e6);
		r.put("reconciledMs", (last - from) / 1e6);
		r.put("reconciles", reconciles);
		r.put("workUs", work / Math.max(1, worked));
		r.put("machinePct", 100.0 * (cpu1.busyTicks - cpu0.busyTicks) / Math.max(1, cpu1.totalTicks - cpu0.totalTicks)
				* Runtime.getRuntime().availableProcessors());
		r.put("apiserverPct", 100.0 * (cpu1.apiserver - cpu0.apiserver) / window);
		r.put("etcdPct", 100.0 * (cpu1.etcd - cpu0.etcd) / window);
		r.put("replicasPct", 100.0 * (cpu1.replicas - cpu0.replicas) / window);
		log((backlog ? "backlog " : "") + "round " + g + ": " + r);
		return r;
	}

	/**
	 * Changes every key's label {@code gen}; returns when the last change was answered.
	 */
	private long changeAll(int g) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(this.driver.i("shardsWriters"));
		try {
			List<Future<String>> sent = new ArrayList<>();
			String patch = "{\"metadata\":{\"labels\":{\"gen\":\"" + g + "\"}}}";
			for (int i = 0; i < this.keys; i++) {
				String path = collection() + "/" + name(i);
				sent.add(pool.submit(() -> this.writer.patch(path, patch)));
			}
			for (Future<String> f : sent) {
				f.get();
			}
			return System.nanoTime();
		}
		finally {
			pool.shutdownNow();
		}
	}

	/**
	 * A graceful leave, a join, then kills (each but the last followed by a join), each
	 * timed until the others run every shard the replica ran.
	 */
	private void handOvers(String prefix, long[] dur, List<Replica> live, HandOvers h) throws Exception {
		Replica leaver = live.remove(live.size() - 1);
		SortedSet<Integer> its = leaver.running();
		pause(dur);
		long t = System.nanoTime();
		leaver.send("leave");
		long covered = awaitCovered(live, its, t, dur);
		h.leaveCoverMs = (covered - t) / 1e6;
		List<Replica> all = new ArrayList<>(live);
		all.add(leaver);
		h.leaveGapMs = longestGap(all, t, covered);
		h.leaveStopMs = leaver.await("shards-left", (m) -> true, 60).number("ms");
		leaver.run.waitFor(60);
		awaitSettled(live, dur);
		log(prefix + ": " + leaver.identity + " left; its shards " + its + " ran elsewhere after "
				+ Driver.f0(h.leaveCoverMs) + " ms");
		join(prefix, dur, live, h);
		int kills = this.driver.i("shardsKills");
		for (int k = 0; k < kills; k++) {
			Replica victim = live.remove(live.size() - 1);
			its = victim.running();
			pause(dur);
			Instant wall = Instant.now();
			t = System.nanoTime();
			victim.run.process.destroyForcibly();
			h.sinceRenewMs.add(sinceRenew(victim, wall));
			covered = awaitCovered(live, its, t, dur);
			h.killCoverMs.add((covered - t) / 1e6);
			victim.run.process.waitFor();
			awaitSettled(live, dur);
			log(prefix + ": " + victim.identity + " killed " + Driver.f0(h.sinceRenewMs.get(k))
					+ " ms after its last renew; its shards " + its + " ran elsewhere after "
					+ Driver.f0(h.killCoverMs.get(k)) + " ms");
			if (k < kills - 1) {
				join(prefix, dur, live, h);
			}
		}
	}

	/**
	 * A new replica (a new identity, as a Deployment's new Pod) joins: to even shares.
	 */
	private void join(String prefix, long[] dur, List<Replica> live, HandOvers h) throws Exception {
		Replica joiner = launch(prefix, dur);
		joiner.awaitReady();
		live.add(joiner);
		long settled = awaitSettled(live, dur);
		h.joinMs.add((settled - joiner.startedAt()) / 1e6);
		h.joinGapMs.add(longestGap(live, joiner.startedAt(), settled));
		log(prefix + ": " + joiner.identity + " joined; even shares " + Driver.f0(h.joinMs.get(h.joinMs.size() - 1))
				+ " ms after its controller started");
	}

	/**
	 * Waits a random time between one and two retry periods, so that a leave or a kill
	 * falls anywhere in the replica's cycle of Lease writes, not just after a change of
	 * shards (which comes just after a write).
	 */
	private static void pause(long[] dur) throws InterruptedException {
		Thread.sleep(dur[2] + ThreadLocalRandom.current().nextLong(dur[2]));
	}

	/** How long before {@code wall} the replica's Lease was last renewed. */
	private double sinceRenew(Replica replica, Instant wall) {
		try {
			String lease = this.writer.get("/apis/coordination.k8s.io/v1/namespaces/" + NAMESPACE + "/leases/"
					+ replica.startResult().get("lease"));
			Matcher m = RENEW_TIME.matcher(lease);
			return m.find() ? Duration.between(Instant.parse(m.group(1)), wall).toNanos() / 1e6 : Double.NaN;
		}
		catch (RuntimeException ex) {
			log("cannot read the Lease of " + replica.identity + ": " + ex);
			return Double.NaN;
		}
	}

	private Replica launch(String prefix, long[] dur) throws IOException {
		String identity = prefix.substring("bench-".length()) + "-" + (this.launched++);
		String heap = this.driver.opts.get("shardsHeap");
		Driver.Run run = this.driver.launch("shards-" + identity, "shard-replica",
				List.of("-Xms" + heap, "-Xmx" + heap, "-XX:-AlwaysPreTouch"), "kubeconfig=" + this.server.kubeconfig(),
				"namespace=" + NAMESPACE, "identity=" + identity, "prefix=" + prefix, "shards=" + this.shards,
				"lease=" + dur[0], "renew=" + dur[1], "retry=" + dur[2],
				"workers=" + this.driver.opts.get("shardsWorkers"), "work=" + this.driver.opts.get("shardsWork"),
				"workMs=" + this.driver.opts.get("shardsWorkMs"), "qps=" + this.driver.opts.get("shardsQps"),
				"burst=" + this.driver.opts.get("shardsBurst"));
		return new Replica(identity, run);
	}

	private void leaveAll(List<Replica> live) throws Exception {
		for (Replica r : live) {
			r.send("leave");
		}
		for (Replica r : live) {
			if (r.run.waitFor(60) != 0) {
				log(r.identity + " did not leave in time, or failed: see its log");
			}
		}
		live.clear();
	}

	/**
	 * Waits until the live replicas run every shard once, in shares within one of even;
	 * returns when the last of them took its current shards (its replica's clock).
	 */
	private long awaitSettled(List<Replica> live, long[] dur) throws InterruptedException {
		long end = System.nanoTime() + timeout(dur);
		int floor = this.shards / live.size();
		int ceil = floor + ((this.shards % live.size() > 0) ? 1 : 0);
		while (System.nanoTime() < end) {
			SortedSet<Integer> union = new TreeSet<>();
			boolean even = true;
			long at = 0;
			for (Replica r : live) {
				SortedSet<Integer> running = r.running();
				even &= running.size() >= floor && running.size() <= ceil;
				union.addAll(running);
				at = Math.max(at, r.lastChangeAt());
			}
			if (even && union.size() == this.shards
					&& live.stream().mapToInt((r) -> r.running().size()).sum() == this.shards) {
				return at;
			}
			Thread.sleep(10);
		}
		throw new IllegalStateException("the shares did not settle: "
				+ live.stream().map((r) -> r.identity + "=" + r.running()).collect(Collectors.joining(" ")));
	}

	/**
	 * Waits until the others have started every one of some shards after a time; returns
	 * when the last of them started (its replica's clock).
	 */
	private long awaitCovered(List<Replica> others, SortedSet<Integer> shards, long since, long[] dur)
			throws InterruptedException {
		long end = System.nanoTime() + timeout(dur);
		while (System.nanoTime() < end) {
			List<Result> events = new ArrayList<>();
			for (Replica r : others) {
				events.addAll(r.results("shards-event", (m) -> Long.parseLong(m.get("at")) > since));
			}
			events.sort(Comparator.comparingDouble((e) -> e.number("at")));
			SortedSet<Integer> missing = new TreeSet<>(shards);
			for (Result e : events) {
				missing.removeAll(shardsOf(e.get("started")));
				if (missing.isEmpty()) {
					return (long) e.number("at");
				}
			}
			Thread.sleep(5);
		}
		throw new IllegalStateException("shards " + shards + " did not start elsewhere in time");
	}

	/**
	 * The longest time between two instants that some shard was run by none of the
	 * replicas, from their events (each event gives the replica's shards from then on).
	 */
	private double longestGap(List<Replica> replicas, long since, long until) {
		record Change(long at, int replica, SortedSet<Integer> running) {
		}
		List<Change> changes = new ArrayList<>();
		int[] owners = new int[this.shards];
		List<SortedSet<Integer>> state = new ArrayList<>();
		for (int i = 0; i < replicas.size(); i++) {
			SortedSet<Integer> running = new TreeSet<>();
			for (Result e : replicas.get(i).results("shards-event", (m) -> true)) {
				long at = (long) e.number("at");
				if (at <= since) {
					running = shardsOf(e.get("running"));
				}
				else if (at <= until) {
					changes.add(new Change(at, i, shardsOf(e.get("running"))));
				}
			}
			running.forEach((shard) -> owners[shard]++);
			state.add(running);
		}
		changes.sort(Comparator.comparingLong(Change::at));
		long[] unownedSince = new long[this.shards];
		for (int shard = 0; shard < this.shards; shard++) {
			unownedSince[shard] = (owners[shard] == 0) ? since : -1;
		}
		long longest = 0;
		for (Change c : changes) {
			for (int shard : state.get(c.replica())) {
				if (--owners[shard] == 0) {
					unownedSince[shard] = c.at();
				}
			}
			for (int shard : c.running()) {
				if (owners[shard]++ == 0 && unownedSince[shard] >= 0) {
					longest = Math.max(longest, c.at() - unownedSince[shard]);
					unownedSince[shard] = -1;
				}
			}
			state.set(c.replica(), c.running());
		}
		for (long from : unownedSince) {
			if (from >= 0) {
				longest = Math.max(longest, until - from);
			}
		}
		return longest / 1e6;
	}

	/** Three lease durations and 30 s: time enough for any hand-over that works. */
	private static long timeout(long[] dur) {
		return (3 * dur[0] + 30_000) * 1_000_000;
	}

	// ------------------------------------------------------------------ the tables

	private void print(String load0, String load1, double seconds) {
		Driver d = this.driver;
		String workers = d.opts.get("shardsWorkers");
		String work = d.opts.get("shardsWork").equals("patch")
				? "a merge PATCH of a label onto the ConfigMap (its own event then costs a reconcile that writes nothing)"
						+ (Double.parseDouble(d.opts.get("shardsQps")) > 0
								? ", through a request budget of " + d.opts.get("shardsQps") + " per second, bursts of "
										+ d.opts.get("shardsBurst") + " (listwatch.connection.qps and burst's defaults)"
								: ", no request budget")
				: "a sleep of " + d.opts.get("shardsWorkMs") + " ms";
		d.print("## 10. Sharded controllers: keys per second and hand-overs (listwatch only)");
		d.print("");
		d.print("A real kube-apiserver 1.34.4 and etcd (`LocalApiServer`) on the same machine; " + this.keys
				+ " ConfigMaps in one namespace. Each replica is a JVM of its own (`ShardBench`: an `Informer` on the"
				+ " namespace's ConfigMaps, a `Controller` of " + workers + " workers sharded by `shardBy` on a"
				+ " `ShardMembership` of " + this.shards + " shards, one Lease per replica). The reconciler reads the"
				+ " object's change number, then does one API write's work: " + work + ". Keys per second: every"
				+ " key changed once (a merge PATCH from the driver, " + d.opts.get("shardsWriters") + " at a time,"
				+ " once the shares are settled and the controllers idle), until the end of the last key's"
				+ " reconcile of that change, on any replica (each replica counts its keys; the clocks are one,"
				+ " `System.nanoTime()`). Two kinds of rounds, alternating: *as written*, from the driver's first"
				+ " PATCH (the reconcilers work while the changes arrive); *backlog*, the reconciles of the change"
				+ " held until every replica's cache holds every change, then timed from the driver's go: what the"
				+ " replicas' workers drain, whatever the rate of writes. Median of " + d.opts.get("shardsRounds")
				+ " rounds of each, under the first durations. Workers' bound = replicas × workers ÷ the time of"
				+ " a reconcile (measured). CPU over the as-written rounds: the machine's from /proc/stat (other"
				+ " engineers' builds included), and the processes' own as % of one core. Load average " + load0
				+ " at the start, " + load1 + " at the end; " + Driver.f0(seconds) + " s in all.");
		d.print("");
		int cores = Runtime.getRuntime().availableProcessors();
		d.print("| replicas | shards each | keys/s as written | vs 1 replica | driver's PATCHes/s |"
				+ " to last PATCH ms | to last reconcile ms | keys/s, backlog | vs 1 replica | backlog ms |"
				+ " reconciles / round | work µs / reconcile | workers' bound keys/s | machine CPU % of "
				+ (100 * cores) + " | kube-apiserver % | etcd % | replicas % | replicas %, backlog |");
		d.print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		Map<Integer, List<Map<String, Double>>> written = byReplicas(0);
		Map<Integer, List<Map<String, Double>>> backlog = byReplicas(1);
		double one = written.containsKey(1) ? median(written.get(1), "keysPerSec") : Double.NaN;
		double oneBacklog = backlog.containsKey(1) ? median(backlog.get(1), "keysPerSec") : Double.NaN;
		for (Map.Entry<Integer, List<Map<String, Double>>> e : written.entrySet()) {
			List<Map<String, Double>> r = e.getValue();
			List<Map<String, Double>> b = backlog.getOrDefault(e.getKey(), List.of());
			int n = e.getKey();
			int floor = this.shards / n;
			String each = (this.shards % n == 0) ? String.valueOf(floor) : floor + "–" + (floor + 1);
			List<Map<String, Double>> all = new ArrayList<>(r);
			all.addAll(b);
			double bound = n * Double.parseDouble(workers) * 1e6 / median(all, "workUs");
			d.print("| " + n + " | " + each + " | " + Driver.f0(median(r, "keysPerSec")) + " | "
					+ Driver.ratio(median(r, "keysPerSec"), one) + " | " + Driver.f0(median(r, "writesPerSec")) + " | "
					+ Driver.f0(median(r, "writtenMs")) + " | " + Driver.f0(median(r, "reconciledMs")) + " | "
					+ Driver.f0(median(b, "keysPerSec")) + " | " + Driver.ratio(median(b, "keysPerSec"), oneBacklog)
					+ " | " + Driver.f0(median(b, "reconciledMs")) + " | " + Driver.f0(median(all, "reconciles"))
					+ " | " + Driver.f0(median(all, "workUs")) + " | " + Driver.f0(bound) + " | "
					+ Driver.f0(median(r, "machinePct")) + " | " + Driver.f0(median(r, "apiserverPct")) + " | "
					+ Driver.f0(median(r, "etcdPct")) + " | " + Driver.f0(median(r, "replicasPct")) + " | "
					+ Driver.f0(median(b, "replicasPct")) + " |");
		}
		d.print("");
		d.print("Every round, keys per second by replicas (as written / backlog; keys reconciled at the change of"
				+ " those the replicas counted as theirs): "
				+ written.keySet()
					.stream()
					.map((n) -> n + ": " + rounds(written.get(n)) + " / " + rounds(backlog.getOrDefault(n, List.of())))
					.collect(Collectors.joining("; "))
				+ ".");
		d.print("");
		d.print("Hand-overs. Graceful leave: the replica's controller stops (`Controller.stop`: the membership"
				+ " reports its shards stopped, waits for their reconciles, writes its Lease without holder), timed"
				+ " from the driver's command until the others have started all its shards; stop ms = the"
				+ " `stop` call itself. Join: a new replica (a new identity, as a Deployment's new Pod), from its"
				+ " controller's start until the shares are even again. Kill: `destroyForcibly` (SIGKILL: nothing"
				+ " is released), from the kill until the others have started all its shards; since renew = how"
				+ " long before the kill its Lease was last written (its `renewTime`). Each leave and kill comes"
				+ " one to two retry periods (at random) after the shares settled. The first join follows the"
				+ " graceful leave (whose Lease was released), the others follow a kill (whose Lease still names its"
				+ " holder and shards). Longest unowned = the longest time some shard was run by no replica (from"
				+ " its stop on one to its start on another), from the leave's command or the joiner's start until"
				+ " the others run all the leaver's shards or the shares are even. Starts and stops are the"
				+ " replicas' `ShardsChangedEvent`s, stamped with `System.nanoTime()`.");
		d.print("");
		d.print("| lease / renew / retry | replicas | all started: to even shares ms | graceful leave: stop ms |"
				+ " graceful leave: its shards started elsewhere ms | graceful leave: longest unowned ms |"
				+ " join: to even shares ms | join: longest unowned ms | kill: its shards started elsewhere ms |"
				+ " kill: since its last renew ms | lease + retry ms |");
		d.print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		for (HandOvers h : this.handOvers) {
			boolean any = !h.joinMs.isEmpty();
			d.print("| " + seconds(h.dur[0]) + " / " + seconds(h.dur[1]) + " / " + seconds(h.dur[2]) + " | "
					+ h.replicas + " | " + Driver.f0(h.startMs) + " | " + (any ? Driver.f0(h.leaveStopMs) : "") + " | "
					+ (any ? Driver.f0(h.leaveCoverMs) : "") + " | " + (any ? Driver.f0(h.leaveGapMs) : "") + " | "
					+ joined(h.joinMs) + " | " + joined(h.joinGapMs) + " | " + joined(h.killCoverMs) + " | "
					+ joined(h.sinceRenewMs) + " | " + (any ? Driver.f0(h.dur[0] + h.dur[2]) : "") + " |");
		}
		d.print("");
	}

	/** The rounds of one kind (0 as written, 1 backlog), by replicas. */
	private Map<Integer, List<Map<String, Double>>> byReplicas(int backlog) {
		Map<Integer, List<Map<String, Double>>> by = new LinkedHashMap<>();
		for (Map<String, Double> r : this.rounds) {
			if (r.get("backlog") == backlog) {
				by.computeIfAbsent(r.get("replicas").intValue(), (k) -> new ArrayList<>()).add(r);
			}
		}
		return by;
	}

	private static String rounds(List<Map<String, Double>> rounds) {
		return rounds.stream()
			.map((r) -> Driver.f0(r.get("keysPerSec")) + " (" + Driver.f0(r.get("keysDone")) + " of "
					+ Driver.f0(r.get("expected")) + ")")
			.collect(Collectors.joining(", "));
	}

	private static String joined(List<Double> values) {
		return values.stream().map(Driver::f0).collect(Collectors.joining("; "));
	}

	private static String seconds(long ms) {
		return (ms % 1000 == 0) ? (ms / 1000) + " s" : ms + " ms";
	}

	private static double median(List<Map<String, Double>> rounds, String key) {
		return Stats.median(rounds.stream().mapToDouble((r) -> r.get(key)).toArray());
	}

	// ------------------------------------------------------------------ helpers

	private static String collection() {
		return "/api/v1/namespaces/" + NAMESPACE + "/configmaps";
	}

	private static String name(int i) {
		return String.format("cm-%05d", i);
	}

	private static long millis(String text) {
		String t = text.trim();
		return t.endsWith("ms") ? Long.parseLong(t.substring(0, t.length() - 2))
				: Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1000);
	}

	private static SortedSet<Integer> shardsOf(String list) {
		SortedSet<Integer> shards = new TreeSet<>();
		if (list != null && !list.equals("-")) {
			for (String s : list.split(",")) {
				shards.add(Integer.parseInt(s));
			}
		}
		return shards;
	}

	private static void log(String line) {
		System.err.println("  [shards] " + line);
	}

	/** What one configuration of replicas and durations measured. */
	private static final class HandOvers {

		final int replicas;

		final long[] dur;

		double startMs = Double.NaN;

		double leaveStopMs = Double.NaN;

		double leaveCoverMs = Double.NaN;

		final List<Double> joinMs = new ArrayList<>();

		double leaveGapMs = Double.NaN;

		final List<Double> joinGapMs = new ArrayList<>();

		final List<Double> killCoverMs = new ArrayList<>();

		final List<Double> sinceRenewMs = new ArrayList<>();

		HandOvers(int replicas, long[] dur) {
			this.replicas = replicas;
			this.dur = dur;
		}

	}

	/** A RESULT line of a replica. */
	private record Result(Map<String, String> values) {

		String get(String key) {
			return this.values.get(key);
		}

		double number(String key) {
			return Double.parseDouble(this.values.get(key));
		}

	}

	/** One replica's JVM: its commands in, its RESULT lines out. */
	private static final class Replica {

		final String identity;

		final Driver.Run run;

		private final PrintWriter in;

		Replica(String identity, Driver.Run run) {
			this.identity = identity;
			this.run = run;
			this.in = new PrintWriter(run.process.getOutputStream(), true, StandardCharsets.UTF_8);
		}

		void send(String command) {
			this.in.println(command);
		}

		void awaitReady() throws InterruptedException {
			if (!this.run.ready.await(180, java.util.concurrent.TimeUnit.SECONDS)) {
				throw new IllegalStateException(this.identity + " did not sync: see its log");
			}
		}

		List<Result> results(String bench, Predicate<Map<String, String>> which) {
			synchronized (this.run.results) {
				return this.run.results.stream()
					.filter((m) -> bench.equals(m.get("bench")) && which.test(m))
					.map(Result::new)
					.toList();
			}
		}

		Result await(String bench, Predicate<Map<String, String>> which, long seconds) throws InterruptedException {
			long end = System.nanoTime() + seconds * 1_000_000_000L;
			while (System.nanoTime() < end) {
				List<Result> found = results(bench, which);
				if (!found.isEmpty()) {
					return found.get(0);
				}
				if (!this.run.process.isAlive() && results(bench, which).isEmpty()) {
					throw new IllegalStateException(this.identity + " exited before " + bench + ": see its log");
				}
				Thread.sleep(5);
			}
			throw new IllegalStateException(this.identity + " gave no " + bench + " in " + seconds + " s");
		}

		Result startResult() {
			List<Result> start = results("shards-start", (m) -> true);
			return start.isEmpty() ? new Result(Map.of()) : start.get(0);
		}

		long startedAt() {
			return Long.parseLong(startResult().get("at"));
		}

		/** The shards it runs, as its last event said. */
		SortedSet<Integer> running() {
			List<Result> events = results("shards-event", (m) -> true);
			return events.isEmpty() ? new TreeSet<>() : shardsOf(events.get(events.size() - 1).get("running"));
		}

		long lastChangeAt() {
			List<Result> events = results("shards-event", (m) -> true);
			return events.isEmpty() ? 0 : Long.parseLong(events.get(events.size() - 1).get("at"));
		}

		long cpuNanos() {
			return this.run.process.toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
		}

	}

	/** CPU so far: the machine's ticks, and the processes' own. */
	private record Cpu(long at, long busyTicks, long totalTicks, long apiserver, long etcd, long replicas) {

		static Cpu now(List<Replica> live) throws IOException {
			String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
			long busy = 0;
			long total = 0;
			for (int i = 1; i < Math.min(f.length, 9); i++) {
				long v = Long.parseLong(f[i]);
				total += v;
				// idle (4) and iowait (5) are not busy
				if (i != 4 && i != 5) {
					busy += v;
				}
			}
			long replicas = live.stream().mapToLong(Replica::cpuNanos).sum();
			return new Cpu(System.nanoTime(), busy, total, processCpu("kube-apiserver"), processCpu("etcd"), replicas);
		}

		/** The CPU of this JVM's descendants that run a binary of that name. */
		private static long processCpu(String binary) {
			return ProcessHandle.current()
				.descendants()
				.filter((p) -> p.info().command().map((c) -> c.endsWith("/" + binary)).orElse(false))
				.mapToLong((p) -> p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L))
				.sum();
		}

	}

}
