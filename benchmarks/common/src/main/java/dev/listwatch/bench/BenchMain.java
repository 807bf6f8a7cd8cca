package dev.listwatch.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The benchmarks as they run inside a client's JVM: {@code <benchmark> key=value...}.
 * Results go to stdout as lines {@code RESULT key=value ...}, which the driver reads;
 * anything else is log.
 */
public final class BenchMain {

	private BenchMain() {
	}

	public static void run(Subject<?> subject, String[] args) throws Exception {
		Map<String, String> opts = new HashMap<>();
		for (int i = 1; i < args.length; i++) {
			int eq = args[i].indexOf('=');
			opts.put(args[i].substring(0, eq), args[i].substring(eq + 1));
		}
		switch (args[0]) {
			case "throughput" -> throughput(subject, opts);
			case "sync", "nssync" -> sync(subject, opts);
			case "latency" -> latency(subject, opts);
			case "requests" -> requests(subject, opts);
			case "live" -> live(subject, opts);
			default -> throw new IllegalArgumentException("unknown benchmark " + args[0]);
		}
		System.out.flush();
		System.exit(0);
	}

	/** The names of the ten core resources the startup benchmark watches, in order. */
	public static final List<String> STARTUP_RESOURCES = List.of("pods", "configmaps", "secrets", "services",
			"endpoints", "serviceaccounts", "events", "persistentvolumeclaims", "replicationcontrollers",
			"limitranges");

	/**
	 * The heap in use after three full collections, in bytes (the startup benchmark's
	 * heap).
	 * @return the bytes
	 */
	public static long settledHeap() throws InterruptedException {
		for (int i = 0; i < 3; i++) {
			System.gc();
			Thread.sleep(100);
		}
		return java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

	/**
	 * The CPU time of the whole JVM so far (JIT and GC threads too), in ns; -1 where
	 * unknown.
	 */
	public static long processCpuNanos() {
		return (java.lang.management.ManagementFactory
			.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) ? os.getProcessCpuTime()
					: -1;
	}

	/**
	 * A peer's startup row: {@code watches} informers, started from {@code main} at
	 * {@code t0} and all synced now; the heap they added is the settled heap now less
	 * {@code heapBefore} (the settled heap at {@code t0}).
	 */
	public static void startupResult(String client, int watches, long t0, long heapBefore) throws InterruptedException {
		long synced = System.nanoTime();
		long uptime = java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime();
		long cpu = processCpuNanos();
		long heap = settledHeap();
		result("startup", client, "watches", watches, "runMs", (synced - t0) / 1_000_000, "jvmUptimeMs", uptime,
				"cpuMs", cpu / 1_000_000, "heapKb", heap / 1024, "addedHeapKb", (heap - heapBefore) / 1024, "threads",
				Thread.activeCount(), "classes",
				java.lang.management.ManagementFactory.getClassLoadingMXBean().getLoadedClassCount());
	}

	public static void result(String bench, String client, Object... kv) {
		StringBuilder b = new StringBuilder("RESULT bench=").append(bench).append(" client=").append(client);
		for (int i = 0; i < kv.length; i += 2) {
			b.append(' ').append(kv[i]).append('=').append(kv[i + 1]);
		}
		System.out.println(b);
		System.out.flush();
	}

	private static <T> void throughput(Subject<T> subject, Map<String, String> o) throws Exception {
		String url = o.get("url");
		int pods = Integer.parseInt(o.get("pods"));
		long events = Long.parseLong(o.get("events"));
		int rounds = Integer.parseInt(o.get("rounds"));
		int warmup = Integer.parseInt(o.get("warmup"));
		// finalRv: the first resourceVersion of the last round-robin pass over the
		// objects (every object's final state has one at least this high); given by the
		// driver for etcd
		long finalRv = o.containsKey("finalRv") ? Long.parseLong(o.get("finalRv")) : Pods.eventRv(pods, events - pods);
		// stopRv: objects from this resourceVersion on are no final states (etcd: the
		// live benchmark's stop key)
		long stopRv = o.containsKey("stopRv") ? Long.parseLong(o.get("stopRv")) : Long.MAX_VALUE;
		for (int round = 0; round < warmup + rounds; round++) {
			LongAdder calls = new LongAdder();
			CountDownLatch finals = new CountDownLatch(pods);
			Consumer<T> handler = (object) -> {
				calls.increment();
				long rv = Long.parseLong(subject.resourceVersion(object));
				if (rv >= finalRv && rv < stopRv) {
					finals.countDown();
				}
			};
			long cpu0 = cpu();
			try (Subject.Running running = subject.start(new Subject.Target(url, null, "pods", null, 500), handler)) {
				if (!running.awaitSynced(Duration.ofSeconds(120))) {
					throw new IllegalStateException("not synced");
				}
				long t0 = System.nanoTime();
				long cpuSync = cpu();
				long switchesAtSync = voluntarySwitches();
				ThreadCpu threadsAtSync = ThreadCpu.now();
				long callsAtSync = calls.sum();
				if (!finals.await(600, TimeUnit.SECONDS)) {
					throw new IllegalStateException("only " + (pods - finals.getCount()) + " of " + pods
							+ " final states seen after " + calls.sum() + " handler calls");
				}
				long t1 = System.nanoTime();
				long cpu1 = cpu();
				long switches = voluntarySwitches() - switchesAtSync;
				List<Object> byThread = ThreadCpu.now().since(threadsAtSync, events);
				double seconds = (t1 - t0) / 1e9;
				List<Object> kv = new java.util.ArrayList<>(
						List.of("round", round, "warmup", round < warmup, "eventsPerSec",
								String.format("%.0f", events / seconds), "seconds", String.format("%.3f", seconds),
								"cpuMsPer1kEvents", String.format("%.3f", (cpu1 - cpuSync) / 1e6 / events * 1000),
								"handlerCalls", calls.sum() - callsAtSync, "syncCpuMs", (cpuSync - cpu0) / 1_000_000,
								"waitsPer1kEvents", String.format("%.1f", switches * 1000.0 / events)));
				kv.addAll(byThread);
				result("throughput", subject.name(), kv.toArray());
			}
		}
	}

	/**
	 * A watch while the driver writes: synced from the list at {@code listRv}, prints
	 * {@code READY}, and times from the first event after the list until the object named
	 * {@code stop}, which the driver writes after its {@code events} writes, has reached
	 * the handler. Reports the {@code System.nanoTime()} of both (one clock for all
	 * processes on Linux), so that the driver can set them beside its own write times.
	 */
	private static <T> void live(Subject<T> subject, Map<String, String> o) throws Exception {
		long listRv = Long.parseLong(o.get("listRv"));
		long events = Long.parseLong(o.get("events"));
		AtomicLong first = new AtomicLong();
		LongAdder calls = new LongAdder();
		CountDownLatch stop = new CountDownLatch(1);
		Consumer<T> handler = (object) -> {
			if (Long.parseLong(subject.resourceVersion(object)) > listRv) {
				first.compareAndSet(0, System.nanoTime());
				calls.increment();
				if ("stop".equals(subject.name(object))) {
					stop.countDown();
				}
			}
		};
		try (Subject.Running running = subject.start(new Subject.Target(o.get("url"), null, "pods", null, 500),
				handler)) {
			if (!running.awaitSynced(Duration.ofSeconds(600))) {
				throw new IllegalStateException("not synced");
			}
			long cpu0 = cpu();
			System.out.println("READY");
			System.out.flush();
			if (!stop.await(1800, TimeUnit.SECONDS)) {
				throw new IllegalStateException("no stop after " + calls.sum() + " handler calls");
			}
			long end = System.nanoTime();
			long cpu1 = cpu();
			double seconds = (end - first.get()) / 1e9;
			result("live", subject.name(), "firstNanos", first.get(), "endNanos", end, "eventsPerSec",
					String.format("%.0f", events / seconds), "seconds", String.format("%.3f", seconds),
					"cpuMsPer1kEvents", String.format("%.3f", (cpu1 - cpu0) / 1e6 / events * 1000), "handlerCalls",
					calls.sum());
		}
	}

	private static <T> void sync(Subject<T> subject, Map<String, String> o) throws Exception {
		String url = o.get("url");
		int pods = Integer.parseInt(o.get("pods"));
		int rounds = Integer.parseInt(o.get("rounds"));
		long page = Long.parseLong(o.get("page"));
		// namespaces=N (the nssync benchmark): a namespace set of ns-0 .. ns-<N-1>
		// instead of all namespaces
		int namespaces = Integer.parseInt(o.getOrDefault("namespaces", "0"));
		List<String> set = java.util.stream.IntStream.range(0, namespaces).mapToObj((k) -> "ns-" + k).toList();
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		for (int round = 0; round < rounds; round++) {
			long before = usedAfterGc(memory);
			LongAdder calls = new LongAdder();
			long t0 = System.nanoTime();
			long cpu0 = cpu();
			Subject.Running running = subject.start(new Subject.Target(url, null, "pods", null, page, set),
					(object) -> calls.increment());
			try {
				if (!running.awaitSynced(Duration.ofSeconds(600))) {
					throw new IllegalStateException("not synced");
				}
				long synced = System.nanoTime();
				while (calls.sum() < pods && System.nanoTime() - synced < 600_000_000_000L) {
					Thread.sleep(1);
				}
				long handled = System.nanoTime();
				long cpu1 = cpu();
				long after = usedAfterGc(memory);
				int size = running.cacheSize();
				result("sync", subject.name(), "namespaces", namespaces, "round", round, "syncedMs",
						(synced - t0) / 1_000_000, "handledMs", (handled - t0) / 1_000_000, "cpuMs",
						(cpu1 - cpu0) / 1_000_000, "cached", size, "handlerCalls", calls.sum(),
						"retainedBytesPerObject", (after - before) / Math.max(1, size));
			}
			finally {
				running.close();
			}
		}
	}

	private static <T> void latency(Subject<T> subject, Map<String, String> o) throws Exception {
		int warmup = Integer.parseInt(o.get("warmup"));
		int count = Integer.parseInt(o.get("count"));
		long[] latencies = new long[count];
		AtomicLong recorded = new AtomicLong();
		CountDownLatch stop = new CountDownLatch(1);
		Consumer<T> handler = (object) -> {
			long now = System.nanoTime();
			String name = subject.name(object);
			if ("lat".equals(name)) {
				String s = subject.label(object, "s");
				String t = subject.label(object, "t");
				if (s != null && t != null) {
					int seq = Integer.parseInt(s) - warmup;
					if (seq >= 0 && seq < count) {
						latencies[seq] = now - Long.parseLong(t);
						recorded.incrementAndGet();
					}
				}
			}
			else if ("stop".equals(name)) {
				stop.countDown();
			}
		};
		try (Subject.Running running = subject
			.start(new Subject.Target(null, o.get("kubeconfig"), "configmaps", o.get("namespace"), 500), handler)) {
			if (!running.awaitSynced(Duration.ofSeconds(60))) {
				throw new IllegalStateException("not synced");
			}
			System.out.println("READY");
			System.out.flush();
			stop.await(600, TimeUnit.SECONDS);
		}
		int n = 0;
		long[] seen = new long[count];
		for (long l : latencies) {
			if (l > 0) {
				seen[n++] = l;
			}
		}
		result("latency", subject.name(), "samples", n, "missed", count - n, "p50Us",
				String.format("%.0f", Stats.percentile(seen, n, 50) / 1000), "p99Us",
				String.format("%.0f", Stats.percentile(seen, n, 99) / 1000), "maxUs",
				String.format("%.0f", Stats.percentile(seen, n, 100) / 1000));
	}

	private static <T> void requests(Subject<T> subject, Map<String, String> o) throws Exception {
		String url = o.get("url");
		int pods = Integer.parseInt(o.get("pods"));
		long events = Long.parseLong(o.get("events"));
		long lastRv = Pods.eventRv(pods, events - 1);
		CountDownLatch last = new CountDownLatch(1);
		LongAdder calls = new LongAdder();
		long t0 = System.nanoTime();
		try (Subject.Running running = subject.start(new Subject.Target(url, null, "pods", null, 500), (object) -> {
			calls.increment();
			if (Long.parseLong(subject.resourceVersion(object)) >= lastRv) {
				last.countDown();
			}
		})) {
			running.awaitSynced(Duration.ofSeconds(60));
			boolean done = last.await(Long.parseLong(o.getOrDefault("timeoutSeconds", "300")), TimeUnit.SECONDS);
			long t1 = System.nanoTime();
			Thread.sleep(2000); // requests that follow the last event count too
			result("requests", subject.name(), "completed", done, "seconds", String.format("%.1f", (t1 - t0) / 1e9),
					"handlerCalls", calls.sum(), "cached", running.cacheSize());
		}
	}

	private static long usedAfterGc(MemoryMXBean memory) throws InterruptedException {
		for (int i = 0; i < 3; i++) {
			System.gc();
			Thread.sleep(100);
		}
		return memory.getHeapMemoryUsage().getUsed();
	}

	/**
	 * The voluntary context switches of all the JVM's threads so far (Linux: each is a
	 * thread that waited, mostly to be woken by another: a hand-over), or 0 where /proc
	 * is not there.
	 */
	static long voluntarySwitches() {
		long sum = 0;
		try (java.nio.file.DirectoryStream<java.nio.file.Path> tasks = java.nio.file.Files
			.newDirectoryStream(java.nio.file.Path.of("/proc/self/task"))) {
			for (java.nio.file.Path task : tasks) {
				try {
					for (String line : java.nio.file.Files.readAllLines(task.resolve("status"))) {
						if (line.startsWith("voluntary_ctxt_switches:")) {
							sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
						}
					}
				}
				catch (java.io.IOException | RuntimeException ex) {
					// the thread ended meanwhile
				}
			}
		}
		catch (java.io.IOException ex) {
			return 0;
		}
		return sum;
	}

	private static long cpu() {
		java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
		if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
			return sun.getProcessCpuTime();
		}
		return 0;
	}

}
