package dev.listwatch.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalEtcd;

/**
 * Runs the benchmarks: for each client one JVM (same flags for all) against the same
 * server, then prints the tables in Markdown.
 * {@code Driver <all|throughput,sync,latency,requests,startup,metadata,etcd,bigcache,controller,shards,nssync>
 * [key=value...]}; see README.md for the keys.
 */
public final class Driver {

	/** name -> module, main class, first arguments. */
	static final Map<String, String[]> CLIENTS = new LinkedHashMap<>();

	static {
		CLIENTS.put("jackson-tokenize",
				new String[] { "listwatch-runner", "dev.listwatch.bench.ListwatchRunner", "tokenize" });
		CLIENTS.put("listwatch-decode",
				new String[] { "listwatch-runner", "dev.listwatch.bench.ListwatchRunner", "decode" });
		CLIENTS.put("listwatch-decode-typed",
				new String[] { "listwatch-runner", "dev.listwatch.bench.ListwatchRunner", "decode-typed" });
		CLIENTS.put("listwatch", new String[] { "listwatch-runner", "dev.listwatch.bench.ListwatchRunner", null });
		CLIENTS.put("listwatch-boot", new String[] { "listwatch-runner", "dev.listwatch.bench.BootRunner", null });
		CLIENTS.put("listwatch-apache", new String[] { "apache-runner", "dev.listwatch.bench.ApacheRunner", null });
		// a watch bound to a user record (TypedRunner.Pod) instead of KubernetesObject
		CLIENTS.put("listwatch-typed", new String[] { "listwatch-runner", "dev.listwatch.bench.TypedRunner", null });
		CLIENTS.put("listwatch-etcd", new String[] { "listwatch-runner", "dev.listwatch.bench.EtcdRunner", null });
		CLIENTS.put("listwatch-etcd-grpc",
				new String[] { "listwatch-runner", "dev.listwatch.bench.EtcdRunner$Grpc", null });
		CLIENTS.put("fabric8", new String[] { "fabric8-runner", "dev.listwatch.bench.Fabric8Runner", null });
		CLIENTS.put("client-java", new String[] { "clientjava-runner", "dev.listwatch.bench.ClientJavaRunner", null });
		// one replica of the shards benchmark (ShardTables launches several, one log
		// each)
		// one side of the HTTP/2 benchmark (Http2Tables)
		CLIENTS.put("h2-watches", new String[] { "listwatch-runner", "dev.listwatch.bench.ListwatchRunner", "h2" });
		CLIENTS.put("shard-replica",
				new String[] { "listwatch-runner", "dev.listwatch.bench.ListwatchRunner", "shards" });
	}

	static final List<String> PEERS = List.of("fabric8", "client-java");

	/**
	 * The suffix of a listwatch client run on the {@code baselineJar} (see
	 * {@link #launch}).
	 */
	static final String BASELINE = "@baseline";

	final Map<String, String> opts = new LinkedHashMap<>();

	final Path home;

	final Path logs;

	/** Client logs opened in this run. */
	final Set<Path> logsWritten = new HashSet<>();

	final StringBuilder report = new StringBuilder();

	Driver(String[] args) throws IOException {
		this.opts.put("home", "benchmarks");
		this.opts.put("heap", "8g");
		this.opts.put("clients", "listwatch,listwatch-boot,listwatch-typed,fabric8,client-java");
		this.opts.put("pods", "1000");
		this.opts.put("events", "200000");
		this.opts.put("rounds", "5");
		this.opts.put("warmup", "2");
		this.opts.put("syncPods", "50000");
		this.opts.put("syncRounds", "3");
		this.opts.put("page", "500");
		this.opts.put("latencyCount", "2000");
		this.opts.put("latencyWarmup", "100");
		this.opts.put("latencyIntervalMs", "20");
		this.opts.put("latencyClients", "listwatch,fabric8,client-java");
		this.opts.put("cuts", "50");
		this.opts.put("perWatch", "20");
		this.opts.put("startupRounds", "5");
		this.opts.put("startupPeers", "client-java");
		this.opts.put("etcdPods", "20000");
		this.opts.put("etcdEvents", "40000");
		this.opts.put("etcdRounds", "3");
		this.opts.put("etcdWarmup", "1");
		this.opts.put("etcdWriters", "32");
		// the etcd client of the live run: listwatch-etcd-grpc or listwatch-etcd (the
		// gateway)
		this.opts.put("etcdLive", "listwatch-etcd-grpc");
		this.opts.put("bigPods", "100000");
		this.opts.put("bigVaried", "false,true");
		this.opts.put("bigReads", "1000000");
		this.opts.put("bigPeers", "client-java");
		this.opts.put("bigPeerPods", "100000");
		this.opts.put("controllerWorkers", "1,4,16");
		this.opts.put("controllerSlowMs", "1");
		this.opts.put("controllerPaths", "direct,boot");
		this.opts.putAll(ShardTables.DEFAULTS);
		this.opts.putAll(Http2Tables.DEFAULTS);
		this.opts.put("nsNamespaces", "100");
		this.opts.put("nsPodsPerNamespace", "1000");
		this.opts.put("nsRounds", "3");
		this.opts.put("nsClients", "listwatch,listwatch-boot");
		this.opts.put("nsPeers", "fabric8,client-java");
		this.opts.put("nsPeerPodsPerNamespace", "200");
		for (int i = 1; i < args.length; i++) {
			int eq = args[i].indexOf('=');
			if (eq < 0) {
				throw new IllegalArgumentException("expected key=value: " + args[i]);
			}
			this.opts.put(args[i].substring(0, eq), args[i].substring(eq + 1));
		}
		this.home = Path.of(this.opts.get("home")).toAbsolutePath();
		this.logs = this.home.resolve("target/logs");
		Files.createDirectories(this.logs);
	}

	public static void main(String[] args) throws Exception {
		if (args.length == 0) {
			System.err.println(
					"usage: Driver <all|throughput,sync,latency,requests,startup,metadata,etcd,bigcache,controller,shards,nssync> [key=value...]");
			System.exit(2);
		}
		Driver driver = new Driver(args);
		List<String> benches = args[0].equals("all")
				? List.of("throughput", "sync", "requests", "latency", "startup", "bigcache")
				: List.of(args[0].split(","));
		driver.header(String.join(",", benches));
		for (String bench : benches) {
			switch (bench) {
				case "throughput" -> driver.throughput();
				case "sync" -> driver.sync();
				case "latency" -> driver.latency();
				case "requests" -> driver.requests();
				case "startup" -> driver.startup();
				case "metadata" -> driver.metadata();
				case "etcd" -> driver.etcd();
				case "bigcache" -> driver.bigcache();
				case "controller" -> ControllerTables.run(driver);
				case "shards" -> ShardTables.run(driver);
				case "h2" -> Http2Tables.run(driver);
				case "nssync" -> driver.nssync();
				default -> throw new IllegalArgumentException("unknown benchmark " + bench);
			}
		}
		String stamp = ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
		Path out = driver.home.resolve("target/results-" + stamp + ".md");
		Files.writeString(out, driver.report);
		System.out.println("\n(written to " + out + "; client logs in " + driver.logs + ")");
		System.exit(0);
	}

	int i(String key) {
		return Integer.parseInt(this.opts.get(key));
	}

	List<String> clients(String key) {
		return List.of(this.opts.get(key).split(","));
	}

	void print(String text) {
		System.out.println(text);
		System.out.flush();
		this.report.append(text).append('\n');
	}

	void header(String benches) throws IOException {
		String cpu = "?";
		for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
			if (line.startsWith("model name")) {
				cpu = line.substring(line.indexOf(':') + 1).trim();
				break;
			}
		}
		String load = Files.readString(Path.of("/proc/loadavg")).trim();
		print("# listwatch benchmarks, " + ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
		print("");
		print("Machine: " + Runtime.getRuntime().availableProcessors() + " cores (" + cpu + "), "
				+ (totalMemory() >> 20) + " MiB, Java " + System.getProperty("java.version")
				+ "; load average at start " + load + ". Each client in its own JVM: `" + String.join(" ", jvmFlags())
				+ "`.");
		print("Benchmarks: " + benches + "; options: " + this.opts);
		print("");
	}

	static long totalMemory() {
		try {
			for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
				if (line.startsWith("MemTotal:")) {
					return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
				}
			}
		}
		catch (IOException ex) {
			// unknown
		}
		return 0;
	}

	List<String> jvmFlags() {
		// pre-touched: otherwise the first pass of allocation over a fresh 8 GiB heap
		// pays a page fault per 4 KiB, which halved one measured throughput round of
		// every client
		List<String> flags = new ArrayList<>(List.of("-Xms" + this.opts.get("heap"), "-Xmx" + this.opts.get("heap"),
				"-XX:+UseG1GC", "-XX:+AlwaysPreTouch"));
		// jvmArgs: further flags for every client JVM (say, a class data sharing
		// archive), separated by spaces
		String extra = this.opts.get("jvmArgs");
		if (extra != null && !extra.isBlank()) {
			flags.addAll(List.of(extra.trim().split("\\s+")));
		}
		return flags;
	}

	// ------------------------------------------------------------------ running a client

	/** A client JVM: its RESULT lines, parsed. */
	static final class Run {

		final List<Map<String, String>> results = new ArrayList<>();

		final CountDownLatch ready = new CountDownLatch(1);

		Process process;

		Thread reader;

		int waitFor(long seconds) throws Exception {
			if (!this.process.waitFor(seconds, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
				this.reader.join(5000);
				return -1;
			}
			this.reader.join(5000);
			return this.process.exitValue();
		}

	}

	/**
	 * Starts a client's JVM. A listwatch client named with the suffix {@value #BASELINE}
	 * runs on the library jar of option {@code baselineJar} (another build, such as
	 * main's) instead of this checkout's, so that a benchmark can set two builds side by
	 * side in one run.
	 */
	Run launch(String bench, String client, List<String> extraJvm, String... args) throws IOException {
		boolean baseline = client.endsWith(BASELINE);
		String[] def = CLIENTS.get(baseline ? client.substring(0, client.length() - BASELINE.length()) : client);
		if (def == null) {
			throw new IllegalArgumentException("unknown client " + client + "; known: " + CLIENTS.keySet());
		}
		Path module = this.home.resolve(def[0]);
		String classpath = module.resolve("target/classes") + ":"
				+ Files.readString(module.resolve("target/classpath.txt")).trim();
		if (baseline) {
			String jar = this.opts.get("baselineJar");
			if (jar == null || !Files.isRegularFile(Path.of(jar))) {
				throw new IllegalArgumentException(client + " needs baselineJar=<a listwatch-spring-boot jar>");
			}
			classpath = classpath.replaceAll("[^:]*/autoconfigure/target/listwatch-spring-boot-[^:/]*\\.jar",
					java.util.regex.Matcher.quoteReplacement(Path.of(jar).toAbsolutePath().toString()));
		}
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(jvmFlags());
		command.addAll(extraJvm);
		command.addAll(flightRecording(bench, client));
		command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
		command.add("-cp");
		command.add(classpath);
		command.add(def[1]);
		command.add((def[2] != null) ? def[2] : bench);
		command.addAll(List.of(args));
		Path log = this.logs.resolve(bench + "-" + client + ".log");
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().remove("KUBECONFIG");
		Run run = new Run();
		run.process = builder.start();
		// a client launched again in the same run (one JVM per sync round) adds to its
		// log
		OpenOption[] options = this.logsWritten.add(log) ? new OpenOption[] { StandardOpenOption.CREATE,
				StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE }
				: new OpenOption[] { StandardOpenOption.APPEND };
		PrintWriter logWriter = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8, options));
		logWriter.println("$ " + String.join(" ", command).replace(classpath, "<classpath>"));
		run.reader = new Thread(() -> {
			try (BufferedReader in = new BufferedReader(
					new InputStreamReader(run.process.getInputStream(), StandardCharsets.UTF_8)); logWriter) {
				String line;
				while ((line = in.readLine()) != null) {
					logWriter.println(line);
					if (line.startsWith("RESULT ")) {
						Map<String, String> result = new LinkedHashMap<>();
						for (String kv : line.substring(7).split(" ")) {
							int eq = kv.indexOf('=');
							result.put(kv.substring(0, eq), kv.substring(eq + 1));
						}
						synchronized (run.results) {
							run.results.add(result);
						}
						System.err.println("  " + line);
					}
					else if (line.equals("READY")) {
						run.ready.countDown();
					}
				}
			}
			catch (IOException ex) {
				// process gone
			}
		}, "reader-" + client);
		run.reader.setDaemon(true);
		run.reader.start();
		System.err.println("[" + bench + "] " + client + " (log: " + log + ")");
		return run;
	}

	/**
	 * With {@code jfr=<settings>} (e.g. {@code jfr=profile}): a flight recording of each
	 * client JVM, written beside its log as {@code <benchmark>-<client>.jfr}; none by
	 * default.
	 */
	List<String> flightRecording(String bench, String client) {
		String settings = this.opts.get("jfr");
		if (settings == null || settings.isEmpty()) {
			return List.of();
		}
		Path file = this.logs.resolve(bench + "-" + client + ".jfr").toAbsolutePath();
		return List.of("-XX:StartFlightRecording=settings=" + settings + ",filename=" + file + ",dumponexit=true");
	}

	/** The first requests the fake server saw, beside the client's log. */
	void serverLog(String bench, String client, FakeApiServer server) throws IOException {
		List<String> lines;
		synchronized (server.log) {
			lines = new ArrayList<>(server.log);
		}
		lines.add("counters " + server.counters());
		Files.write(this.logs.resolve(bench + "-" + client + ".requests.log"), lines);
	}

	static double median(List<Map<String, String>> results, String key) {
		return Stats.median(results.stream()
			.filter((r) -> !"true".equals(r.get("warmup")) && r.containsKey(key))
			.mapToDouble((r) -> Double.parseDouble(r.get(key)))
			.toArray());
	}

	static String f0(double v) {
		return Double.isNaN(v) ? "n/a" : String.format("%,.0f", v);
	}

	static String f1(double v) {
		return Double.isNaN(v) ? "n/a" : String.format("%.1f", v);
	}

	static String f2(double v) {
		return Double.isNaN(v) ? "n/a" : String.format("%.2f", v);
	}

	static String ratio(double a, double b) {
		return (Double.isNaN(a) || Double.isNaN(b) || b == 0) ? "n/a" : String.format("%.2f×", a / b);
	}

	// ------------------------------------------------------------------ 1. watch
	// throughput

	void throughput() throws Exception {
		int pods = i("pods");
		long events = Long.parseLong(this.opts.get("events"));
		List<String> clients = new ArrayList<>(List.of("jackson-tokenize", "listwatch-decode"));
		clients.addAll(clients("clients"));
		if (clients.contains("listwatch-typed")) {
			// the typed watch's decoding alone, beside listwatch-decode
			clients.add(2, "listwatch-decode-typed");
		}
		Map<String, List<Map<String, String>>> all = new LinkedHashMap<>();
		int eventBytes = 0;
		for (String client : clients) {
			String[] args = { "pods=" + pods, "events=" + events, "rounds=" + this.opts.get("rounds"),
					"warmup=" + this.opts.get("warmup") };
			if (client.equals("jackson-tokenize") || client.equals("listwatch-decode")) {
				Run run = launch("throughput", client, List.of(), args);
				run.waitFor(1800);
				all.put(client, run.results);
				continue;
			}
			try (FakeApiServer server = new FakeApiServer(new FakeApiServer.Scenario(pods, events, events, 0, true))) {
				Bytes b = new Bytes(8192);
				server.pods().writeEvent(b, "MODIFIED", 1, Pods.eventRv(pods, 1));
				eventBytes = b.size();
				List<String> a = new ArrayList<>(List.of(args));
				a.add(0, "url=" + server.url());
				Run run = launch("throughput", client, List.of(), a.toArray(new String[0]));
				int exit = run.waitFor(3600);
				if (exit != 0) {
					System.err.println("  " + client + " exited with " + exit);
				}
				all.put(client, run.results);
				serverLog("throughput", client, server);
			}
		}
		double tokenize = median(all.get("jackson-tokenize"), "eventsPerSec");
		double listwatch = median(all.getOrDefault("listwatch", List.of()), "eventsPerSec");
		double fastestPeer = Double.NaN;
		for (String peer : PEERS) {
			double rate = median(all.getOrDefault(peer, List.of()), "eventsPerSec");
			if (!Double.isNaN(rate) && (Double.isNaN(fastestPeer) || rate > fastestPeer)) {
				fastestPeer = rate;
			}
		}
		print("## 1. Watch throughput");
		print("");
		print(pods + " Pods, " + events + " MODIFIED events round-robin (" + eventBytes
				+ " bytes each with managedFields), one watch, streamed from a local plain-HTTP server as fast as the"
				+ " client reads; decoding, cache update and a no-op handler. Median of " + this.opts.get("rounds")
				+ " rounds after " + this.opts.get("warmup") + " warm-up rounds in the same JVM. CPU = process CPU"
				+ " time (all threads) per 1,000 events.");
		print("");
		print("| client | events/s | MB/s | CPU ms / 1k events | handler calls per round | vs listwatch |");
		print("|---|---:|---:|---:|---:|---:|");
		for (String client : clients) {
			List<Map<String, String>> r = all.getOrDefault(client, List.of());
			double rate = median(r, "eventsPerSec");
			print("| " + client + " | " + f0(rate) + " | " + f0(rate * eventBytes / 1e6) + " | "
					+ f2(median(r, "cpuMsPer1kEvents")) + " | " + f0(median(r, "handlerCalls")) + " | "
					+ ratio(rate, listwatch) + " |");
		}
		print("");
		print("listwatch / fastest peer: **" + ratio(listwatch, fastestPeer) + "** (target ≥ 2×); listwatch / Jackson"
				+ " tokenize: **" + ratio(listwatch, tokenize) + "** (target ≥ 0.60×).");
		print("");
		cpuByThread(clients, all, tokenize);
		multicasterCost(all, tokenize);
		typedThroughput(all, tokenize);
		StringBuilder waits = new StringBuilder();
		for (String client : clients) {
			double perK = median(all.getOrDefault(client, List.of()), "waitsPer1kEvents");
			if (!Double.isNaN(perK)) {
				waits.append(waits.isEmpty() ? "" : ", ").append(client).append(" ").append(f0(perK));
			}
		}
		if (!waits.isEmpty()) {
			print("Hand-overs: voluntary context switches of all the client's threads per 1,000 events (a thread that"
					+ " waited, mostly until another woke it): " + waits + ".");
			print("");
		}
	}

	/**
	 * Where each client's CPU per event goes, thread by thread (from
	 * {@code /proc/self/task} in the client's JVM): the busiest single thread bounds the
	 * rate, and Jackson's tokenize is one thread.
	 */
	void cpuByThread(List<String> clients, Map<String, List<Map<String, String>>> all, double tokenize) {
		List<String> measured = clients.stream()
			.filter((c) -> !Double.isNaN(median(all.getOrDefault(c, List.of()), "busiestUs")))
			.toList();
		if (measured.isEmpty()) {
			return;
		}
		print("CPU µs per event by thread (Linux thread times; watch = listwatch's reading and decoding thread,"
				+ " dispatch = the thread that runs handlers or Spring's multicaster, http = the JDK client's"
				+ " selector, gc = GC and VM threads, jit = compilers). The busiest thread bounds the rate; Jackson's"
				+ " tokenize is one thread at " + f2(1e6 / tokenize) + " µs per event.");
		print("");
		print("| client | busiest thread | its µs | watch | dispatch | http | gc | jit | other |");
		print("|---|---|---:|---:|---:|---:|---:|---:|---:|");
		for (String client : measured) {
			List<Map<String, String>> r = all.get(client);
			StringBuilder row = new StringBuilder(
					"| " + client + " | " + busiestName(r) + " | " + f2(median(r, "busiestUs")) + " |");
			for (String role : List.of("watch", "dispatch", "http", "gc", "jit", "other")) {
				row.append(' ').append(f2(median(r, role + "Us"))).append(" |");
			}
			print(row.toString());
		}
		print("");
	}

	/** The name of the busiest thread in most measured rounds. */
	static String busiestName(List<Map<String, String>> results) {
		return results.stream()
			.filter((r) -> !"true".equals(r.get("warmup")) && r.containsKey("busiest"))
			.collect(java.util.stream.Collectors.groupingBy((r) -> r.get("busiest"),
					java.util.stream.Collectors.counting()))
			.entrySet()
			.stream()
			.max(Map.Entry.comparingByValue())
			.map(Map.Entry::getKey)
			.orElse("n/a");
	}

	/**
	 * What the user's path costs over the direct one: {@code listwatch-boot} (Spring's
	 * multicaster and an {@code @EventListener}) minus {@code listwatch} (the publisher
	 * calls the handler), in CPU µs per event of the dispatch thread, where both run; the
	 * process-wide difference also holds the GC and JIT work left over from each round's
	 * fresh Boot start. And the user's path against Jackson's tokenize rate.
	 */
	void multicasterCost(Map<String, List<Map<String, String>>> all, double tokenize) {
		List<Map<String, String>> boot = all.get("listwatch-boot");
		List<Map<String, String>> direct = all.get("listwatch");
		if (boot == null || direct == null) {
			return;
		}
		double bootCpu = median(boot, "cpuMsPer1kEvents");
		double directCpu = median(direct, "cpuMsPer1kEvents");
		double bootDispatch = median(boot, "dispatchUs");
		double directDispatch = median(direct, "dispatchUs");
		print("Through `@EventListener` (`listwatch-boot`) against the publisher calling the handler (`listwatch`):"
				+ " the dispatch thread used " + f2(bootDispatch) + " against " + f2(directDispatch)
				+ " CPU µs per event, so Spring's event multicaster and the listener's invocation cost **"
				+ f2(bootDispatch - directDispatch) + " µs per event** ("
				+ f0(100 * (bootDispatch - directDispatch) / bootCpu) + "% of the user's path; the whole process used "
				+ f2(bootCpu) + " against " + f2(directCpu)
				+ " µs, the rest of the difference being GC and JIT after each round's fresh Boot start);"
				+ " listwatch-boot / Jackson tokenize: **" + ratio(median(boot, "eventsPerSec"), tokenize)
				+ "** (target ≥ 1.0×).");
		print("");
	}

	/** The typed watch (issue 17, goal 1) against Jackson's tokenizer, when it ran. */
	void typedThroughput(Map<String, List<Map<String, String>>> all, double tokenize) {
		if (all.containsKey("listwatch-typed")) {
			double typed = median(all.get("listwatch-typed"), "eventsPerSec");
			print("listwatch-typed (a record with `ObjectMeta metadata`, `Map<String, Object>` spec and status) /"
					+ " Jackson tokenize: **" + ratio(typed, tokenize) + "** (target ≥ 0.60×).");
			print("");
		}
	}

	// ------------------------------------------------------------------ 2. initial sync

	void sync() throws Exception {
		int pods = i("syncPods");
		int rounds = i("syncRounds");
		String page = this.opts.get("page");
		Map<String, List<Map<String, String>>> all = new LinkedHashMap<>();
		Map<String, Map<String, String>> counters = new LinkedHashMap<>();
		int[] sizes = new Pods().sizes();
		for (String client : clients("clients")) {
			try (FakeApiServer server = new FakeApiServer(new FakeApiServer.Scenario(pods, 0, 0, 0, true))) {
				// each round in a fresh JVM: a service syncs once, at startup, and the
				// heap a closed informer leaves behind (fabric8's is freed only later)
				// would skew the next round
				List<Map<String, String>> results = new ArrayList<>();
				for (int round = 0; round < rounds; round++) {
					Run run = launch("sync", client, List.of(), "url=" + server.url(), "pods=" + pods, "page=" + page,
							"rounds=1");
					run.waitFor(3600);
					results.addAll(run.results);
				}
				all.put(client, results);
				counters.put(client, server.counters());
				serverLog("sync", client, server);
			}
		}
		double listwatch = median(all.getOrDefault("listwatch", List.of()), "retainedBytesPerObject");
		double leanest = Double.NaN;
		for (String peer : PEERS) {
			double b = median(all.getOrDefault(peer, List.of()), "retainedBytesPerObject");
			if (!Double.isNaN(b) && (Double.isNaN(leanest) || b < leanest)) {
				leanest = b;
			}
		}
		print("## 2. Initial sync");
		print("");
		print(pods + " Pods listed from a local plain-HTTP server, asked in pages of " + page + " (client-java's"
				+ " informer cannot page: one list); median of " + rounds + " rounds, each in a fresh JVM (as a"
				+ " service's first sync). Synced = the"
				+ " informer reports synced; handled = the no-op handler has seen every ADDED. Retained = used heap"
				+ " after 3× System.gc() with the informer running minus before it started, per cached object."
				+ " A Pod's JSON is " + sizes[0] + " bytes as served, " + sizes[1] + " without managedFields"
				+ " (listwatch drops managedFields by default, the peers keep them).");
		print("");
		print("| client | synced ms | handled ms | CPU ms | list requests (pages) / round | retained bytes / object | ÷ JSON size | vs listwatch |");
		print("|---|---:|---:|---:|---:|---:|---:|---:|");
		for (String client : all.keySet()) {
			List<Map<String, String>> r = all.get(client);
			double retained = median(r, "retainedBytesPerObject");
			Map<String, String> c = counters.get(client);
			print("| " + client + " | " + f0(median(r, "syncedMs")) + " | " + f0(median(r, "handledMs")) + " | "
					+ f0(median(r, "cpuMs")) + " | " + f1(Double.parseDouble(c.get("lists")) / rounds) + " ("
					+ f1(Double.parseDouble(c.get("listPages")) / rounds) + ") | " + f0(retained) + " | "
					+ f2(retained / sizes[0]) + " | " + ratio(retained, listwatch) + " |");
		}
		print("");
		print("listwatch retained / leanest peer: **" + ratio(listwatch, leanest) + "** (target ≤ 0.50×); listwatch"
				+ " retained / JSON size: **" + ratio(listwatch, sizes[0]) + "** (target ≤ 2×).");
		print("");
		typedSync(all);
	}

	// ------------------------------------------------------------------ 10. a namespace
	// set's sync

	/**
	 * The {@code nssync} benchmark: the sync of {@code nsNamespaces} namespaces of
	 * {@code nsPodsPerNamespace} Pods each, as one namespace set (one informer, a list
	 * and a watch per namespace) against one watch of all namespaces over the same Pods,
	 * each round a fresh JVM per mode, the modes alternating; for the clients in
	 * {@code nsClients} at that size, for the peers in {@code nsPeers} (an informer per
	 * namespace, which is what they offer) at {@code nsPeerPodsPerNamespace}.
	 */
	void nssync() throws Exception {
		int namespaces = i("nsNamespaces");
		int rounds = i("nsRounds");
		String page = this.opts.get("page");
		List<String> rows = new ArrayList<>();
		List<String> summary = new ArrayList<>();
		List<String> clients = new ArrayList<>();
		for (String client : (this.opts.get("nsClients") + "," + this.opts.get("nsPeers")).split(",")) {
			if (!client.isBlank() && !client.equals("none")) {
				clients.add(client.trim());
			}
		}
		for (String client : clients) {
			boolean peer = PEERS.contains(client);
			int pods = namespaces * i(peer ? "nsPeerPodsPerNamespace" : "nsPodsPerNamespace");
			Pods spread = new Pods(false, namespaces);
			Map<Integer, List<Map<String, String>>> byMode = new LinkedHashMap<>();
			Map<Integer, Map<String, String>> counters = new LinkedHashMap<>();
			// a server per mode, so that each counts its own requests
			try (FakeApiServer all = new FakeApiServer(new FakeApiServer.Scenario(pods, 0, 0, 0, true), spread);
					FakeApiServer set = new FakeApiServer(new FakeApiServer.Scenario(pods, 0, 0, 0, true), spread)) {
				for (int round = 0; round < rounds; round++) {
					for (int mode : new int[] { 0, namespaces }) {
						FakeApiServer server = (mode == 0) ? all : set;
						Run run = launch("nssync", client, List.of(), "url=" + server.url(), "pods=" + pods,
								"page=" + page, "rounds=1", "namespaces=" + mode);
						run.waitFor(3600);
						byMode.computeIfAbsent(mode, (k) -> new ArrayList<>()).addAll(run.results);
					}
				}
				counters.put(0, all.counters());
				counters.put(namespaces, set.counters());
				serverLog("nssync", client, set);
			}
			List<Map<String, String>> whole = byMode.get(0);
			List<Map<String, String>> inSet = byMode.get(namespaces);
			for (int mode : byMode.keySet()) {
				List<Map<String, String>> r = byMode.get(mode);
				Map<String, String> c = counters.get(mode);
				rows.add("| " + client + " | "
						+ ((mode == 0) ? "all namespaces, one watch"
								: mode + " namespaces, " + (peer ? mode + " informers" : "one informer"))
						+ " | " + pods + " | " + f0(median(r, "syncedMs")) + " | " + f0(median(r, "handledMs")) + " | "
						+ f0(median(r, "cpuMs")) + " | " + f0(median(r, "cached")) + " | "
						+ f1(Double.parseDouble(c.get("lists")) / rounds) + " ("
						+ f1(Double.parseDouble(c.get("listPages")) / rounds) + ") | "
						+ f0(median(r, "retainedBytesPerObject")) + " | "
						+ ratio(median(r, "syncedMs"), median(whole, "syncedMs")) + " |");
			}
			summary.add(client + ": " + namespaces + " namespaces ÷ all namespaces, synced **"
					+ ratio(median(inSet, "syncedMs"), median(whole, "syncedMs")) + "** (rounds: "
					+ pairedRatios(whole, inSet, "syncedMs") + "), CPU "
					+ ratio(median(inSet, "cpuMs"), median(whole, "cpuMs")) + ", handled "
					+ ratio(median(inSet, "handledMs"), median(whole, "handledMs")) + ".");
		}
		print("## 10. A namespace set's sync");
		print("");
		print(namespaces + " namespaces of " + this.opts.get("nsPodsPerNamespace") + " Pods each (peers: "
				+ this.opts.get("nsPeerPodsPerNamespace") + " each), listed from a local plain-HTTP server in pages of "
				+ page + " (client-java's informer cannot page: one list per namespace), once as a namespace set"
				+ " (listwatch: one informer and one cache, a list and a watch per namespace; the peers have no"
				+ " informer of several namespaces: an informer per namespace, each with its own cache) and once as"
				+ " one watch of all namespaces over the same Pods; each mode a fresh JVM per round, the modes"
				+ " alternating, median of " + rounds + " rounds. Synced = the informer (every namespace's) reports"
				+ " synced; handled = the no-op handler has seen every ADDED. Retained = used heap after 3×"
				+ " System.gc() with the informers running minus before, per cached object.");
		print("");
		print("| client | watch | Pods | synced ms | handled ms | CPU ms | cached | list requests (pages) / round | retained bytes / object | synced vs all namespaces |");
		print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
		rows.forEach(this::print);
		print("");
		for (String line : summary) {
			print(line);
			print("");
		}
		print("Target (issue 31): listwatch's namespace set syncs in at most 1.5× the time of the one watch.");
		print("");
	}

	/** The median of the rounds' differences {@code a - b}, paired in round order. */
	static double pairedDifference(List<Map<String, String>> a, List<Map<String, String>> b, String key) {
		int n = Math.min(a.size(), b.size());
		double[] differences = new double[n];
		for (int i = 0; i < n; i++) {
			differences[i] = Double.parseDouble(a.get(i).get(key)) - Double.parseDouble(b.get(i).get(key));
		}
		return Stats.median(differences);
	}

	/** The ratios {@code b ÷ a} of each round, in round order. */
	static String pairedRatios(List<Map<String, String>> a, List<Map<String, String>> b, String key) {
		List<String> ratios = new ArrayList<>();
		for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
			ratios.add(ratio(Double.parseDouble(b.get(i).get(key)), Double.parseDouble(a.get(i).get(key))));
		}
		return String.join(", ", ratios);
	}

	/**
	 * The typed watch's heap per object (issue 17, goal 1) against client-java's typed
	 * V1Pod, when both ran.
	 */
	void typedSync(Map<String, List<Map<String, String>>> all) {
		if (all.containsKey("listwatch-typed") && all.containsKey("client-java")) {
			double typed = median(all.get("listwatch-typed"), "retainedBytesPerObject");
			double clientJava = median(all.get("client-java"), "retainedBytesPerObject");
			print("listwatch-typed retained / client-java's typed V1Pod: **" + ratio(typed, clientJava)
					+ "** (target ≤ 0.50×).");
			print("");
		}
	}

	// ------------------------------------------------------------------ 8. big caches,
	// compressed

	/**
	 * The {@code bigcache} benchmark: listwatch syncs {@code bigPods} Pods in pages with
	 * {@code compress-objects} off and on (one fresh JVM each), for the template's Pods
	 * and for varied ones ({@code bigVaried}), and reports the heap retained and the
	 * Lister read rates (see {@code BigCache}); the peers in {@code bigPeers} run the
	 * sync benchmark over {@code bigPeerPods} of the same Pods, for their heap per Pod.
	 */
	void bigcache() throws Exception {
		int pods = i("bigPods");
		String page = this.opts.get("page");
		List<String> rows = new ArrayList<>();
		for (String variedText : this.opts.get("bigVaried").split(",")) {
			boolean varied = Boolean.parseBoolean(variedText);
			Pods template = new Pods(varied);
			String podsName = varied ? "varied" : "template";
			Map<Boolean, Map<String, String>> byMode = new LinkedHashMap<>();
			try (FakeApiServer server = new FakeApiServer(new FakeApiServer.Scenario(pods, 0, 0, 0, true), template)) {
				for (boolean compress : new boolean[] { false, true }) {
					Run run = launch("bigcache", "listwatch", List.of("-Dbench.compress=" + compress),
							"url=" + server.url(), "pods=" + pods, "page=" + page,
							"reads=" + this.opts.get("bigReads"));
					int exit = run.waitFor(3600);
					if (exit != 0 || run.results.isEmpty()) {
						System.err.println("  bigcache listwatch compress=" + compress + " exited with " + exit);
						continue;
					}
					byMode.put(compress, run.results.get(0));
				}
				serverLog("bigcache-" + podsName, "listwatch", server);
			}
			Map<String, String> plain = byMode.get(false);
			for (Map.Entry<Boolean, Map<String, String>> mode : byMode.entrySet()) {
				Map<String, String> r = mode.getValue();
				rows.add("| listwatch" + (mode.getKey() ? ", compress-objects" : "") + " | " + podsName + " | "
						+ r.get("cached") + " | " + f0(number(r, "syncedMs")) + " | " + f0(number(r, "cpuMs")) + " | "
						+ f0(number(r, "retainedBytesPerObject")) + " | " + f1(number(r, "retainedMB")) + " | "
						+ f0(number(r, "getsPerSec")) + " | " + f1(number(r, "labelListsPerSec")) + " | "
						+ f1(number(r, "namespaceListsPerSec")) + " | " + f1(number(r, "indexListsPerSec")) + " | "
						+ f0(number(r, "jsonReadsPerSec")) + " | "
						+ ((plain != null)
								? ratio(number(r, "retainedBytesPerObject"), number(plain, "retainedBytesPerObject"))
								: "n/a")
						+ " |");
			}
			for (String peer : this.opts.get("bigPeers").split(",")) {
				if (peer.isBlank()) {
					continue;
				}
				int peerPods = i("bigPeerPods");
				try (FakeApiServer server = new FakeApiServer(new FakeApiServer.Scenario(peerPods, 0, 0, 0, true),
						template)) {
					Run run = launch("sync", peer, List.of(), "url=" + server.url(), "pods=" + peerPods, "page=" + page,
							"rounds=1");
					int exit = run.waitFor(3600);
					serverLog("bigcache-" + podsName, peer, server);
					if (exit != 0 || run.results.isEmpty()) {
						rows.add("| " + peer + " | " + podsName + " | " + peerPods + " | did not finish (exit " + exit
								+ ") | | | | | | | | | |");
						continue;
					}
					Map<String, String> r = run.results.get(0);
					double perPod = number(r, "retainedBytesPerObject");
					rows.add("| " + peer + " | " + podsName + " | " + r.get("cached") + " | "
							+ f0(number(r, "syncedMs")) + " | " + f0(number(r, "cpuMs")) + " | " + f0(perPod) + " | "
							+ f1(perPod * peerPods / 1e6) + " (" + f1(perPod * pods / 1e6) + " at " + pods
							+ ") | | | | | | "
							+ ((plain != null) ? ratio(perPod, number(plain, "retainedBytesPerObject")) : "n/a")
							+ " |");
				}
			}
		}
		int[] sizes = new Pods().sizes();
		int[] variedSizes = new Pods(true).sizes();
		print("## 8. Big caches: " + pods + " Pods with and without compress-objects");
		print("");
		print("listwatch syncs " + pods + " Pods listed in pages of " + page + " into one watch (with a user index"
				+ " by the app.kubernetes.io/instance label), once caching the JSON as it is and once with"
				+ " compress-objects (DEFLATE with a dictionary learned from the watch's first objects), each in a"
				+ " fresh JVM; retained = used heap after 3× System.gc() with the informer running minus before it"
				+ " started. Then, with the informer running, Lister reads over a fixed workload (once to warm up,"
				+ " then timed): get = get(namespace, name) of random Pods; label = listByLabels of 1 Pod in 50 (a"
				+ " scan of the cache); namespace = list(namespace), 1 Pod in 20 (the namespace index); index ="
				+ " byIndex of the user index, 1 Pod in 50; json = get(...).json() of random Pods (the body read"
				+ " whole, inflated when compressed). Template Pods (" + sizes[1] + " bytes without managedFields)"
				+ " differ only in name, namespace, node, IPs and resourceVersion, which a dictionary compresses"
				+ " unrealistically well; varied Pods (" + variedSizes[1] + " bytes) also differ per Pod in uid,"
				+ " container IDs, token volume suffix and timestamps, and per Deployment shard (1 in 50) in image"
				+ " tags, digests and owner uid. Peers run the sync benchmark (they keep managedFields, " + sizes[0]
				+ " bytes as served; client-java lists in one response) over " + i("bigPeerPods")
				+ " Pods; their MB at " + pods + " is extrapolated per Pod.");
		print("");
		print("| client | Pods | cached | synced ms | CPU ms | retained bytes / Pod | retained MB | get/s | label lists/s"
				+ " | namespace lists/s | index lists/s | json reads/s | heap vs listwatch plain |");
		print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		rows.forEach(this::print);
		print("");
	}

	// ------------------------------------------------------------------ 6. metadata-only
	// heap

	/**
	 * The sync benchmark for listwatch three times, caching whole Pods, caching their
	 * PartialObjectMetadata only ({@code -Dbench.metadataOnly=true}: the client asks for
	 * {@code PartialObjectMetadataList}, which the server counts), and caching whole Pods
	 * through a transform that keeps about a quarter of each ({@code -Dbench.keep}).
	 */
	/**
	 * The paths the metadata benchmark's keep variant keeps: about a quarter of a Pod.
	 */
	static final String KEEP = "spec.nodeName,spec.serviceAccountName,spec.dnsPolicy,spec.schedulerName,"
			+ "spec.tolerations,status.phase,status.hostIP,status.podIP,status.startTime,status.qosClass";

	/**
	 * The JSON bytes of the template Pod (without managedFields) that {@link #KEEP}
	 * keeps, as the transform writes them (measured once; the driver does not link the
	 * library).
	 */
	static final int KEPT_BYTES = 1213;

	void metadata() throws Exception {
		int pods = i("syncPods");
		int rounds = i("syncRounds");
		String page = this.opts.get("page");
		int[] whole = new Pods().sizes();
		int[] partial = new Pods().metadataSizes();
		Map<String, List<Map<String, String>>> all = new LinkedHashMap<>();
		Map<String, Map<String, String>> counters = new LinkedHashMap<>();
		for (String mode : List.of("whole", "metadata-only", "keep")) {
			boolean metadataOnly = mode.equals("metadata-only");
			List<String> flags = mode.equals("keep") ? List.of("-Dbench.keep=" + KEEP)
					: List.of("-Dbench.metadataOnly=" + metadataOnly);
			try (FakeApiServer server = new FakeApiServer(new FakeApiServer.Scenario(pods, 0, 0, 0, true))) {
				List<Map<String, String>> results = new ArrayList<>();
				for (int round = 0; round < rounds; round++) {
					Run run = launch("sync", "listwatch", flags, "url=" + server.url(), "pods=" + pods, "page=" + page,
							"rounds=1");
					run.waitFor(3600);
					results.addAll(run.results);
				}
				all.put(mode, results);
				counters.put(mode, server.counters());
				serverLog("metadata-" + mode, "listwatch", server);
			}
		}
		double wholeRetained = median(all.get("whole"), "retainedBytesPerObject");
		double partialRetained = median(all.get("metadata-only"), "retainedBytesPerObject");
		print("## 6. Heap per cached object, metadata-only and a keep transform against whole");
		print("");
		print("The sync benchmark for listwatch, three times: " + pods + " Pods listed in pages of " + page
				+ ", caching"
				+ " whole Pods, then with metadata-only (the client asks for PartialObjectMetadataList and the"
				+ " server answers each Pod's kind, apiVersion and whole metadata, managedFields included, as"
				+ " kube-apiserver does), then whole Pods through a transform that keeps about a quarter of each"
				+ " (-Dbench.keep, ObjectTransform.keeping); median of " + rounds
				+ " rounds, each in a fresh JVM. Retained = used heap after 3× System.gc() with the informer running"
				+ " minus before it started, per cached object."
				+ " managedFields are dropped in all three (the default). JSON as served: a Pod " + whole[0]
				+ " bytes (" + whole[1] + " without managedFields), its PartialObjectMetadata " + partial[0]
				+ " bytes (" + partial[1] + " without managedFields).");
		print("");
		print("| watch | synced ms | CPU ms | pages / round (metadata-only) | retained bytes / object | ÷ JSON kept | vs whole |");
		print("|---|---:|---:|---:|---:|---:|---:|");
		for (String mode : all.keySet()) {
			List<Map<String, String>> r = all.get(mode);
			double retained = median(r, "retainedBytesPerObject");
			Map<String, String> c = counters.get(mode);
			int kept = mode.equals("whole") ? whole[1] : mode.equals("keep") ? KEPT_BYTES : partial[1];
			print("| " + mode + " | " + f0(median(r, "syncedMs")) + " | " + f0(median(r, "cpuMs")) + " | "
					+ f1(Double.parseDouble(c.get("listPages")) / rounds) + " ("
					+ f1(Double.parseDouble(c.get("metadataPages")) / rounds) + ") | " + f0(retained) + " | "
					+ f2(retained / kept) + " | " + ratio(retained, wholeRetained) + " |");
		}
		print("");
		print("metadata-only retained / whole: **" + ratio(partialRetained, wholeRetained) + "** ("
				+ f0(partialRetained) + " vs " + f0(wholeRetained) + " bytes per Pod).");
		print("");
		double keptRetained = median(all.get("keep"), "retainedBytesPerObject");
		print("keep (a transform keeping " + KEEP + ", with metadata, apiVersion and kind: " + KEPT_BYTES
				+ " of the Pod's " + whole[1] + " JSON bytes) retained / whole: **" + ratio(keptRetained, wholeRetained)
				+ "** (" + f0(keptRetained) + " vs " + f0(wholeRetained) + " bytes per Pod).");
		print("");
	}

	// ------------------------------------------------------------------ 7. etcd against
	// the API server path

	/**
	 * listwatch's informer over etcd (keys {@code /pods/<namespace>/<name>}, the same Pod
	 * JSON as values) beside the same informer over the API server path (the fake
	 * server), in one run: heap per cached object after a sync, and watch events/s, both
	 * while etcd is written and replaying the same history from an old revision.
	 */
	void etcd() throws Exception {
		int pods = i("etcdPods");
		int passes = (int) Math.max(1, (Long.parseLong(this.opts.get("etcdEvents")) + pods - 1) / pods);
		long events = (long) passes * pods;
		int rounds = i("etcdRounds");
		int warmup = i("etcdWarmup");
		int writers = i("etcdWriters");
		String page = this.opts.get("page");
		int[] sizes = new Pods().sizes();
		Map<String, List<Map<String, String>>> sync = new LinkedHashMap<>();
		Map<String, List<Map<String, String>>> watch = new LinkedHashMap<>();
		Map<String, String> live = Map.of();
		List<Map<String, String>> gateway = new ArrayList<>();
		Map<String, Double> replayEtcdCpuMsPer1k = new LinkedHashMap<>();
		String liveClient;
		double loadRate;
		double writeRate;
		long writeStart;
		long writeEnd;
		long dbBytes;
		try (LocalEtcd etcd = new LocalEtcd(LocalEtcd.Options.defaults()).start();
				EtcdLoad load = new EtcdLoad(etcd.endpoint(), writers)) {
			// the objects, one put each; the list revision the replay starts from
			long t0 = System.nanoTime();
			long listRv = load.pass(pods, 0);
			loadRate = pods / ((System.nanoTime() - t0) / 1e9);
			System.err.println("[etcd] " + pods + " Pods written at " + f0(loadRate) + " puts/s, revision " + listRv);
			// 1. sync, each round in a fresh JVM, etcd then the API server path
			List<Map<String, String>> results;
			for (String client : ETCD_CLIENTS) {
				results = new ArrayList<>();
				for (int round = 0; round < rounds; round++) {
					Run run = launch("sync", client, List.of(), "url=" + etcd.endpoint(), "pods=" + pods,
							"page=" + page, "rounds=1");
					run.waitFor(3600);
					results.addAll(run.results);
				}
				sync.put(client, results);
			}
			try (FakeApiServer server = new FakeApiServer(new FakeApiServer.Scenario(pods, 0, 0, 0, true))) {
				results = new ArrayList<>();
				for (int round = 0; round < rounds; round++) {
					Run run = launch("sync", "listwatch", List.of(), "url=" + server.url(), "pods=" + pods,
							"page=" + page, "rounds=1");
					run.waitFor(3600);
					results.addAll(run.results);
				}
				sync.put("listwatch", results);
			}
			// 2. a watch while etcd is written: `passes` passes over every Pod, one put
			// each, then the stop key
			liveClient = this.opts.get("etcdLive");
			Run liveRun = launch("live", liveClient, List.of("-Dbench.etcd.listRevision=" + listRv),
					"url=" + etcd.endpoint(), "listRv=" + listRv, "events=" + events);
			if (!liveRun.ready.await(600, TimeUnit.SECONDS)) {
				throw new IllegalStateException("the live etcd watch did not sync");
			}
			long beforeLast = listRv;
			writeStart = System.nanoTime();
			for (int pass = 1; pass <= passes; pass++) {
				long max = load.pass(pods, pass);
				if (pass < passes) {
					beforeLast = max;
				}
			}
			writeEnd = System.nanoTime();
			writeRate = events / ((writeEnd - writeStart) / 1e9);
			long stopRv = load.put("/pods/bench/stop", "{}".getBytes(StandardCharsets.UTF_8));
			System.err.println("[etcd] " + events + " events written at " + f0(writeRate) + " puts/s, revisions "
					+ (listRv + 1) + ".." + stopRv);
			liveRun.waitFor(1800);
			if (!liveRun.results.isEmpty()) {
				live = liveRun.results.get(0);
			}
			dbBytes = dbSize(etcd);
			// the gateway alone: the same history read and dropped, once (etcd's ceiling,
			// not listwatch's)
			for (int round = 0; round < 1; round++) {
				long cpu0 = EtcdLoad.etcdCpuMs();
				double[] drained = load.drain(listRv + 1, "/pods/bench/stop");
				long cpu1 = EtcdLoad.etcdCpuMs();
				gateway.add(Map.of("eventsPerSec", Double.toString(events / drained[0]), "mbPerSec",
						Double.toString(drained[1] / drained[0] / 1e6), "bytesPerEvent",
						Double.toString(drained[1] / (double) events), "etcdCpuMsPer1kEvents",
						Double.toString((cpu1 - cpu0) / (double) events * 1000)));
				System.err.println("  gateway alone: " + gateway.get(gateway.size() - 1));
			}
			// 3. the same history replayed: list at listRv, watch from listRv + 1, as
			// fast as the watch reads; over the gateway, then over gRPC
			for (String client : ETCD_CLIENTS) {
				long replayCpu0 = EtcdLoad.etcdCpuMs();
				Run replay = launch("throughput", client, List.of("-Dbench.etcd.listRevision=" + listRv),
						"url=" + etcd.endpoint(), "pods=" + pods, "events=" + events, "rounds=" + rounds,
						"warmup=" + warmup, "finalRv=" + (beforeLast + 1), "stopRv=" + stopRv);
				replay.waitFor(3600);
				replayEtcdCpuMsPer1k.put(client,
						(EtcdLoad.etcdCpuMs() - replayCpu0) / (double) (events * (rounds + warmup)) * 1000);
				watch.put(client, replay.results);
			}
		}
		try (FakeApiServer server = new FakeApiServer(new FakeApiServer.Scenario(pods, events, events, 0, true))) {
			Run run = launch("throughput", "listwatch", List.of(), "url=" + server.url(), "pods=" + pods,
					"events=" + events, "rounds=" + rounds, "warmup=" + warmup);
			run.waitFor(3600);
			watch.put("listwatch", run.results);
			serverLog("etcd-throughput", "listwatch", server);
		}
		double apiRetained = median(sync.get("listwatch"), "retainedBytesPerObject");
		double etcdRetained = median(sync.get("listwatch-etcd"), "retainedBytesPerObject");
		double apiRate = median(watch.get("listwatch"), "eventsPerSec");
		double etcdRate = median(watch.get("listwatch-etcd"), "eventsPerSec");
		double grpcRate = median(watch.get("listwatch-etcd-grpc"), "eventsPerSec");
		double grpcRetained = median(sync.get("listwatch-etcd-grpc"), "retainedBytesPerObject");
		double liveRate = live.containsKey("eventsPerSec") ? Double.parseDouble(live.get("eventsPerSec")) : Double.NaN;
		double lagMs = live.containsKey("endNanos") ? (Long.parseLong(live.get("endNanos")) - writeEnd) / 1e6
				: Double.NaN;
		double firstMs = live.containsKey("firstNanos") ? (Long.parseLong(live.get("firstNanos")) - writeStart) / 1e6
				: Double.NaN;
		print("## 7. etcd against the API server path");
		print("");
		print("listwatch's informer over etcd (`EtcdClient` over etcd's JSON gateway, and over its native gRPC API"
				+ " with grpc-netty-shaded; a real etcd 3.6 from"
				+ " `LocalEtcd` on loopback) beside the same informer over the API server path (the fake server), in"
				+ " one run with the same " + pods + " Pods and the same JSON: in etcd each Pod is the key"
				+ " `/pods/<namespace>/<name>` with the Pod's JSON (" + sizes[0] + " bytes, managedFields included)"
				+ " as its value, written with one `/v3/kv/put` each (one revision each), from " + writers
				+ " writer threads of the driver at once. Loading the " + pods + " Pods ran at " + f0(loadRate)
				+ " puts/s. managedFields are dropped from the cache on both paths (the default).");
		print("");
		print("**Heap.** " + pods + " Pods listed in pages of " + page + "; median of " + rounds
				+ " rounds, each in a fresh JVM. Retained = used heap after 3× System.gc() with the informer running"
				+ " minus before it started, per cached object.");
		print("");
		print("| source | synced ms (vs API server) | CPU ms | retained bytes / object | ÷ JSON kept (" + sizes[1]
				+ ") | vs API server |");
		print("|---|---:|---:|---:|---:|---:|");
		double apiSyncMs = median(sync.get("listwatch"), "syncedMs");
		for (String client : List.of("listwatch", "listwatch-etcd", "listwatch-etcd-grpc")) {
			List<Map<String, String>> r = sync.get(client);
			double retained = median(r, "retainedBytesPerObject");
			print("| " + ETCD_NAMES.get(client) + " | " + f0(median(r, "syncedMs")) + " ("
					+ ratio(median(r, "syncedMs"), apiSyncMs) + ") | " + f0(median(r, "cpuMs")) + " | " + f0(retained)
					+ " | " + f2(retained / sizes[1]) + " | " + ratio(retained, apiRetained) + " |");
		}
		print("");
		print("**Watch events/s.** " + events + " MODIFIED events: " + passes + " passes over the " + pods
				+ " Pods. *Replay*: etcd had them written before (by the live run); each round lists at the revision"
				+ " before them and watches from the next, so etcd sends its history as fast as the watch reads it."
				+ " The fake server streams its own events as fast as the client reads. Median of " + rounds
				+ " rounds after " + warmup + " warm-up round(s) in the same JVM, timed from synced until the"
				+ " handler has seen every Pod's final state. *Live*: one watch while the driver writes the events"
				+ " with " + writers + " threads, timed from the first event to the last (a stop key written after"
				+ " them); CPU = process CPU time (all threads) per 1,000 events.");
		print("");
		print("| source | events/s | client CPU ms / 1k events | etcd CPU ms / 1k events | handler calls per round | vs API server |");
		print("|---|---:|---:|---:|---:|---:|");
		List<Map<String, String>> api = watch.get("listwatch");
		print("| API server path (fake server) | " + f0(apiRate) + " | " + f2(median(api, "cpuMsPer1kEvents")) + " | | "
				+ f0(median(api, "handlerCalls")) + " | 1.00× |");
		for (String client : ETCD_CLIENTS) {
			List<Map<String, String>> replayed = watch.get(client);
			double rate = median(replayed, "eventsPerSec");
			print("| " + ETCD_NAMES.get(client) + ", replay from an old revision | " + f0(rate) + " | "
					+ f2(median(replayed, "cpuMsPer1kEvents")) + " | " + f2(replayEtcdCpuMsPer1k.get(client)) + " | "
					+ f0(median(replayed, "handlerCalls")) + " | " + ratio(rate, apiRate) + " |");
		}
		double gatewayRate = median(gateway, "eventsPerSec");
		print("| etcd's gateway alone, the same replay read and dropped (" + f0(median(gateway, "bytesPerEvent"))
				+ " bytes / event, " + f0(median(gateway, "mbPerSec")) + " MB/s) | " + f0(gatewayRate) + " | | "
				+ f2(median(gateway, "etcdCpuMsPer1kEvents")) + " | | " + ratio(gatewayRate, apiRate) + " |");
		print("| " + ETCD_NAMES.get(liveClient) + ", live while written | " + f0(liveRate) + " | "
				+ f2(number(live, "cpuMsPer1kEvents")) + " | | " + f0(number(live, "handlerCalls")) + " | "
				+ ratio(liveRate, apiRate) + " |");
		print("| (the writer: etcd puts/s, " + writers + " threads) | " + f0(writeRate) + " | | | | "
				+ ratio(writeRate, apiRate) + " |");
		print("");
		print("etcd / API server path: heap per cached object **" + ratio(etcdRetained, apiRetained) + "** ("
				+ f0(etcdRetained) + " vs " + f0(apiRetained) + " bytes), watch events/s **" + ratio(etcdRate, apiRate)
				+ "** (" + f0(etcdRate) + " vs " + f0(apiRate) + "); listwatch over etcd / etcd's gateway alone: **"
				+ ratio(etcdRate, gatewayRate) + "**.");
		print("");
		double gatewayCpu = replayEtcdCpuMsPer1k.get("listwatch-etcd");
		double grpcCpu = replayEtcdCpuMsPer1k.get("listwatch-etcd-grpc");
		print("etcd over gRPC / API server path: watch events/s **" + ratio(grpcRate, apiRate) + "** (" + f0(grpcRate)
				+ " vs " + f0(apiRate) + "; over the gateway " + ratio(etcdRate, apiRate)
				+ "), gRPC / gateway events/s **" + ratio(grpcRate, etcdRate)
				+ "**; etcd CPU per event, gateway / gRPC: **" + ratio(gatewayCpu, grpcCpu) + "** (" + f2(gatewayCpu)
				+ " vs " + f2(grpcCpu) + " ms per 1,000 events); sync of " + pods + " keys over gRPC / " + pods
				+ " Pods from the API server path: **"
				+ ratio(median(sync.get("listwatch-etcd-grpc"), "syncedMs"), apiSyncMs) + "** ("
				+ f0(median(sync.get("listwatch-etcd-grpc"), "syncedMs")) + " vs " + f0(apiSyncMs)
				+ " ms), heap per cached object " + ratio(grpcRetained, apiRetained) + ".");
		print("");
		print("Live (" + ETCD_NAMES.get(liveClient) + "), the watch's first event came " + f0(firstMs)
				+ " ms after the first write started, and the last " + f0(lagMs) + " ms after the last write returned"
				+ ((liveRate <= writeRate * 1.05 && lagMs < 1000)
						? ": the watch kept up, the writer bounds the live rate." : ".")
				+ " etcd's database after the writes: " + f0(dbBytes / 1048576.0) + " MiB.");
		print("");
	}

	/** The etcd clients of section 7, in the order they run. */
	static final List<String> ETCD_CLIENTS = List.of("listwatch-etcd", "listwatch-etcd-grpc");

	static final Map<String, String> ETCD_NAMES = Map.of("listwatch", "API server path (fake server)", "listwatch-etcd",
			"etcd (JSON gateway)", "listwatch-etcd-grpc", "etcd (gRPC)");

	static double number(Map<String, String> result, String key) {
		return result.containsKey(key) ? Double.parseDouble(result.get(key)) : Double.NaN;
	}

	/** etcd's database size, from {@code /v3/maintenance/status}. */
	static long dbSize(LocalEtcd etcd) {
		Matcher m = Pattern.compile("\"dbSize\":\"?(\\d+)").matcher(etcd.call("/v3/maintenance/status", "{}"));
		return m.find() ? Long.parseLong(m.group(1)) : -1;
	}

	// ------------------------------------------------------------------ 4. requests
	// under disconnects

	void requests() throws Exception {
		int pods = i("pods");
		int cuts = i("cuts");
		int perWatch = i("perWatch");
		long events = (long) (cuts + 1) * perWatch;
		print("## 4. Requests with " + cuts + " forced disconnects");
		print("");
		print(pods + " Pods; each of the first " + cuts + " watches is cut (the connection closed mid-response) after "
				+ perWatch + " events, the next one stays open; " + events
				+ " events in all. Counted by the server. Retry"
				+ " delays shortened where the client allows (listwatch 100 ms–1 s, fabric8 100 ms"
				+ " reconnect interval; client-java has no such setting), so that the run takes seconds. ¹ The client"
				+ " resumed from an earlier resourceVersion than the last event the server wrote before the cut (the"
				+ " server then sends the missing events again: nothing is lost, a few events travel twice).");
		print("");
		print("| client | completed | seconds | LISTs | list pages | WATCHes | watches resuming behind the last event sent¹ | relists |");
		print("|---|---|---:|---:|---:|---:|---:|---:|");
		for (String client : clients("clients")) {
			try (FakeApiServer server = new FakeApiServer(
					new FakeApiServer.Scenario(pods, events, perWatch, cuts, false))) {
				Run run = launch("requests", client, List.of("-Dbench.fastRetry=true"), "url=" + server.url(),
						"pods=" + pods, "events=" + events,
						"timeoutSeconds=" + this.opts.getOrDefault("requestsTimeout", "300"));
				run.waitFor(900);
				Map<String, String> c = server.counters();
				serverLog("requests", client, server);
				Map<String, String> r = run.results.isEmpty() ? Map.of() : run.results.get(0);
				int lists = Integer.parseInt(c.get("lists"));
				print("| " + client + " | " + r.getOrDefault("completed", "no result") + " | "
						+ r.getOrDefault("seconds", "-") + " | " + lists + " | " + c.get("listPages") + " | "
						+ c.get("watches") + " | " + c.get("resumeMismatches") + " | " + (lists - 1) + " |");
			}
		}
		print("");
	}

	// ------------------------------------------------------------------ 3. latency on a
	// real API server

	void latency() throws Exception {
		int warmup = i("latencyWarmup");
		int count = i("latencyCount");
		long interval = Long.parseLong(this.opts.get("latencyIntervalMs"));
		List<String> clients = clients("latencyClients");
		Map<String, Run> runs = new LinkedHashMap<>();
		try (LocalApiServer server = new LocalApiServer().start()) {
			String ns = server.createNamespace("bench-latency");
			String path = "/api/v1/namespaces/" + ns + "/configmaps";
			ApiWriter writer = server.writer();
			writer.create(path, ApiWriter.configMap(ns, "lat", "v", "0"));
			for (String client : clients) {
				// three clients at once: 1 GiB each, not three pre-touched 8 GiB heaps on
				// a 24 GiB machine
				runs.put(client, launch("latency", client, List.of("-Xms1g", "-Xmx1g"),
						"kubeconfig=" + server.kubeconfig(), "namespace=" + ns, "warmup=" + warmup, "count=" + count));
			}
			for (Map.Entry<String, Run> e : runs.entrySet()) {
				if (!e.getValue().ready.await(120, TimeUnit.SECONDS)) {
					System.err.println("  " + e.getKey() + " did not sync");
				}
			}
			for (int s = 0; s < warmup + count; s++) {
				long t = System.nanoTime();
				writer.patch(path + "/lat", "{\"metadata\":{\"labels\":{\"s\":\"" + s + "\",\"t\":\"" + t + "\"}}}");
				long next = t + interval * 1_000_000;
				long sleep = next - System.nanoTime();
				if (sleep > 0) {
					Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
				}
			}
			Thread.sleep(1000);
			writer.create(path, ApiWriter.configMap(ns, "stop", "v", "0"));
			for (Run run : runs.values()) {
				run.waitFor(120);
			}
		}
		print("## 3. Latency on a real kube-apiserver (1.34.4, LocalApiServer)");
		print("");
		print("All clients watch the same ConfigMap at once; the driver patches it every " + interval + " ms (" + count
				+ " measured after " + warmup + " warm-up writes), stamping System.nanoTime() (one clock for"
				+ " all processes on Linux) in a label just before the PATCH; the handler subtracts it from its own"
				+ " nanoTime. So latency = PATCH request + etcd + watch fan-out + client decode + cache + handler.");
		print("");
		print("| client | samples | missed | p50 µs | p99 µs | max µs | p99 vs fabric8 |");
		print("|---|---:|---:|---:|---:|---:|---:|");
		Function<String, Double> p99 = (c) -> runs.containsKey(c) && !runs.get(c).results.isEmpty()
				? Double.parseDouble(runs.get(c).results.get(0).get("p99Us")) : Double.NaN;
		for (Map.Entry<String, Run> e : runs.entrySet()) {
			Map<String, String> r = e.getValue().results.isEmpty() ? Map.of() : e.getValue().results.get(0);
			print("| " + e.getKey() + " | " + r.getOrDefault("samples", "no result") + " | "
					+ r.getOrDefault("missed", "-") + " | " + r.getOrDefault("p50Us", "-") + " | "
					+ r.getOrDefault("p99Us", "-") + " | " + r.getOrDefault("maxUs", "-") + " | "
					+ ratio(p99.apply(e.getKey()), p99.apply("fabric8")) + " |");
		}
		print("");
	}

	// ------------------------------------------------------------------ 5. startup cost

	void startup() throws Exception {
		int rounds = i("startupRounds");
		List<String> peers = new ArrayList<>();
		for (String peer : this.opts.get("startupPeers").split(",")) {
			if (!peer.isBlank() && !peer.equals("none")) {
				peers.add(peer.trim());
			}
		}
		// what each row is: client, watches, and whether its server holds the Pods
		record Case(String label, String client, int watches, boolean pods) {
		}
		List<Case> cases = new ArrayList<>();
		cases.add(new Case("listwatch-boot, listwatch disabled", "listwatch-boot", 0, true));
		cases.add(new Case("listwatch-boot, 10 watches, all empty", "listwatch-boot", 10, false));
		cases.add(new Case("listwatch-boot, 10 watches, " + i("pods") + " Pods", "listwatch-boot", 10, true));
		boolean baseline = this.opts.containsKey("baselineJar");
		if (baseline) {
			// another build of the library (baselineJar), in the same rounds
			cases.add(new Case("listwatch-boot on baselineJar, 10 watches, all empty", "listwatch-boot" + BASELINE, 10,
					false));
			cases.add(new Case("listwatch-boot on baselineJar, 10 watches, " + i("pods") + " Pods",
					"listwatch-boot" + BASELINE, 10, true));
		}
		for (String peer : peers) {
			cases.add(new Case(peer + ", 10 informers, " + i("pods") + " Pods", peer, 10, true));
		}
		Map<Case, List<Map<String, String>>> all = new LinkedHashMap<>();
		try (FakeApiServer server = new FakeApiServer(new FakeApiServer.Scenario(i("pods"), 0, 0, 0, true));
				FakeApiServer empty = new FakeApiServer(new FakeApiServer.Scenario(0, 0, 0, 0, true))) {
			// alternating, so that a slow spell of the machine falls on every case
			for (int r = 0; r < rounds; r++) {
				for (Case c : cases) {
					// not pre-touched: touching 8 GiB would be most of a start-up
					Run run = launch("startup", c.client(), List.of("-XX:-AlwaysPreTouch"),
							"url=" + (c.pods() ? server.url() : empty.url()), "watches=" + c.watches());
					run.waitFor(300);
					all.computeIfAbsent(c, (k) -> new ArrayList<>()).addAll(run.results);
				}
			}
		}
		print("## 5. Startup cost of the starter");
		print("");
		print("A non-web Spring Boot application (spring-boot-starter + listwatch), fresh JVM each time, median of "
				+ rounds + ": with listwatch disabled vs. 10 declared watches (pods + 9 empty core resources) against"
				+ " the local server, wait-for-sync on, once with " + i("pods") + " Pods and once with none (so the"
				+ " difference is the sync of the Pods, which wait-for-sync asks for). ms = SpringApplication.run; for"
				+ " the peers (a plain main, no Spring) ms = from building the client to all 10 informers synced, and"
				+ " their added heap = heap then less heap before the client. cpu = CPU time of the whole JVM at"
				+ " that point (JIT and GC threads too; less at the mercy of a busy machine than ms). heap = used"
				+ " after 3× System.gc(). Of a Boot start's ms: refreshed = to the context's lifecycle start (every"
				+ " bean made, no informer started), listwatch = listwatch's lifecycle steps after it (discovery"
				+ " check, the informers' start, wait-for-sync).");
		print("");
		print("| case | ms | refreshed ms | listwatch ms | JVM uptime ms | cpu ms | main thread cpu ms | heap KiB | threads | loaded classes |");
		print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		for (Map.Entry<Case, List<Map<String, String>>> e : all.entrySet()) {
			List<Map<String, String>> r = e.getValue();
			// the breakdown of a Boot start (BootRunner's lifecycle stamps); the peers
			// have none
			boolean boot = r.stream().anyMatch((m) -> m.containsKey("refreshedMs"));
			print("| " + e.getKey().label() + " | " + f0(median(r, "runMs")) + " | "
					+ (boot ? f0(median(r, "refreshedMs")) + " | " + f0(median(r, "listwatchMs")) : " | ") + " | "
					+ f0(median(r, "jvmUptimeMs")) + " | " + f0(median(r, "cpuMs")) + " | "
					+ (boot ? f0(median(r, "mainCpuMs")) : "") + " | " + f0(median(r, "heapKb")) + " | "
					+ f0(median(r, "threads")) + " | " + f0(median(r, "classes")) + " |");
		}
		List<Map<String, String>> base = all.get(cases.get(0));
		List<Map<String, String>> noPods = all.get(cases.get(1));
		List<Map<String, String>> ten = all.get(cases.get(2));
		if (base != null && ten != null && noPods != null) {
			double addedMs = median(ten, "runMs") - median(base, "runMs");
			double syncMs = median(ten, "runMs") - median(noPods, "runMs");
			double addedKb = median(ten, "heapKb") - median(base, "heapKb");
			double podsKb = median(ten, "heapKb") - median(noPods, "heapKb");
			print("");
			print("10 watches add: **" + f0(addedMs) + " ms** to run (of which the sync of the " + i("pods") + " Pods: "
					+ f0(syncMs) + " ms; without them: " + f0(addedMs - syncMs) + " ms), **"
					+ String.format(java.util.Locale.ROOT, "%.1f", addedKb * 1024 / 1e6) + " MB** of heap ("
					+ f0(addedKb) + " KiB; the cached Pods: " + f0(podsKb) + " KiB), "
					+ f0(median(ten, "cpuMs") - median(base, "cpuMs")) + " ms of CPU, "
					+ f0(median(ten, "threads") - median(base, "threads")) + " threads, "
					+ f0(median(ten, "classes") - median(base, "classes")) + " classes.");
			print("Fixed cost of the 10 watches (all empty, less listwatch disabled; target ≤ 150 ms): **"
					+ f0(median(noPods, "runMs") - median(base, "runMs")) + " ms** (median of the rounds' own"
					+ " differences: " + f0(pairedDifference(noPods, base, "runMs")) + " ms), main thread CPU "
					+ f0(median(noPods, "mainCpuMs") - median(base, "mainCpuMs")) + " ms, CPU "
					+ f0(median(noPods, "cpuMs") - median(base, "cpuMs")) + " ms.");
			if (baseline) {
				List<Map<String, String>> before = all.get(cases.get(3));
				List<Map<String, String>> beforePods = all.get(cases.get(4));
				print("On baselineJar (" + this.opts.get("baselineJar") + "), in the same rounds: 10 watches add **"
						+ f0(median(beforePods, "runMs") - median(base, "runMs")) + " ms**, fixed cost **"
						+ f0(median(before, "runMs") - median(base, "runMs")) + " ms** (rounds' own differences: "
						+ f0(pairedDifference(before, base, "runMs")) + " ms), main thread CPU "
						+ f0(median(before, "mainCpuMs") - median(base, "mainCpuMs")) + " ms, CPU "
						+ f0(median(before, "cpuMs") - median(base, "cpuMs")) + " ms.");
			}
			for (int p = 0; p < peers.size(); p++) {
				List<Map<String, String>> peer = all.get(cases.get((baseline ? 5 : 3) + p));
				if (peer != null && !peer.isEmpty()) {
					print(peers.get(p) + "'s 10 informers add: " + f0(median(peer, "runMs")) + " ms ("
							+ ratio(median(peer, "runMs"), addedMs) + " listwatch's), "
							+ f0(median(peer, "addedHeapKb")) + " KiB of heap ("
							+ ratio(median(peer, "addedHeapKb"), addedKb) + ").");
				}
			}
		}
		print("");
	}

}
