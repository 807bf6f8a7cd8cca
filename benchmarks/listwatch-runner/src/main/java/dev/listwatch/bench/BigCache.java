package dev.listwatch.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.IntSupplier;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Lister;
import dev.listwatch.ListerWatcher;
import dev.listwatch.Resource;
import dev.listwatch.WatchIndex;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

/**
 * The {@code bigcache} benchmark inside listwatch's JVM: one watch of all Pods synced in
 * pages, compressed or not ({@code -Dbench.compress=true}:
 * {@code Decoding.withCompressObjects}), with a user index by the
 * {@code app.kubernetes.io/instance} label; then the heap it retains and the rates of
 * {@link Lister} reads over a fixed workload, each run once to warm up and then 3 times
 * timed (the median):
 * <ul>
 * <li>{@code get}: {@code get(namespace, name)} of random cached Pods;
 * <li>{@code label}: {@code listByLabels("app.kubernetes.io/instance=web-7")} (a scan of
 * the whole cache, 1 Pod in 50 selected);
 * <li>{@code namespace}: {@code list("ns-3")} (the namespace index, 1 Pod in 20);
 * <li>{@code index}: {@code byIndex("instance", "web-7")} (the user index, 1 Pod in 50);
 * <li>{@code json}: {@code get(namespace, name).json()} of random Pods (the body read
 * whole: inflated, when compressed).
 * </ul>
 * {@code main("bigcache", url=, pods=, page=, reads=)}.
 */
final class BigCache {

	private BigCache() {
	}

	static void run(String[] args) throws Exception {
		Map<String, String> o = new HashMap<>();
		for (int i = 1; i < args.length; i++) {
			int eq = args[i].indexOf('=');
			o.put(args[i].substring(0, eq), args[i].substring(eq + 1));
		}
		int pods = Integer.parseInt(o.get("pods"));
		long page = Long.parseLong(o.get("page"));
		int reads = Integer.parseInt(o.getOrDefault("reads", "1000000"));
		boolean compress = Boolean.getBoolean("bench.compress");
		long before = usedAfterGc();
		long t0 = System.nanoTime();
		long cpu0 = cpu();
		Subject.Target target = new Subject.Target(o.get("url"), null, "pods", null, page);
		Cluster cluster = Cluster.load(ListwatchRunner.settings(target));
		ApiServerClient client = ApiServerClient.create(cluster, RestClient.builder(), JsonMapper.builder().build(),
				Clock.systemUTC());
		Resource resource = new Resource("", "v1", "pods", "Pod", true, null);
		ListerWatcher<KubernetesObject> listerWatcher = client.listerWatcher(resource, KubernetesObject.class,
				ApiServerClient.Decoding.DEFAULTS.withCompressObjects(compress));
		InformerFactory runtime = new InformerFactory(Clock.systemUTC(), (event) -> {
		}, 2, Duration.ofSeconds(10));
		InformerOptions options = new InformerOptions(null, null, page, false, Duration.ofMinutes(5),
				Duration.ofMinutes(10), Duration.ofMinutes(3), InformerOptions.BackoffPolicy.CLIENT_GO, null, true);
		WatchIndex<KubernetesObject> instance = WatchIndex.of("pods", "instance", (object, meta) -> {
			String value = meta.labels().get("app.kubernetes.io/instance");
			return (value != null) ? List.of(value) : null;
		});
		Informer<KubernetesObject> informer = runtime.informer("pods", KubernetesObject.class, listerWatcher, options,
				List.of(instance));
		informer.start();
		try {
			if (!informer.awaitSynced(Duration.ofSeconds(1200))) {
				throw new IllegalStateException("not synced");
			}
			long synced = System.nanoTime();
			long cpu1 = cpu();
			long after = usedAfterGc();
			if (Boolean.getBoolean("bench.histogram")) {
				// -Dbench.histogram=true: where the retained bytes go (the live objects'
				// classes)
				Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
						Long.toString(ProcessHandle.current().pid()), "GC.class_histogram")
					.redirectErrorStream(true)
					.start();
				String histogram = new String(jcmd.getInputStream().readAllBytes());
				histogram.lines().limit(30).forEach(System.out::println);
			}
			Lister<KubernetesObject> lister = informer.lister();
			int size = lister.size();
			if (size != pods) {
				throw new IllegalStateException(size + " Pods cached, not " + pods);
			}
			SplittableRandom random = new SplittableRandom(42);
			int[] picks = new int[Math.min(reads, 1 << 20)];
			for (int i = 0; i < picks.length; i++) {
				picks[i] = random.nextInt(pods);
			}
			String[] names = new String[pods];
			String[] namespaces = new String[pods];
			for (int i = 0; i < pods; i++) {
				names[i] = Pods.name(i);
				namespaces[i] = Pods.namespace(i);
			}
			int mask = picks.length - 1;
			double gets = rate(reads, () -> {
				int found = 0;
				for (int i = 0; i < reads; i++) {
					int p = picks[i & mask];
					found += lister.get(namespaces[p], names[p]).isPresent() ? 1 : 0;
				}
				return found;
			});
			int scans = Math.max(1, (int) (2_000_000L / pods));
			double labels = rate(scans, () -> {
				int found = 0;
				for (int i = 0; i < scans; i++) {
					found += lister.listByLabels("app.kubernetes.io/instance=web-7").size();
				}
				return found;
			});
			int nsLists = Math.max(1, (int) (20_000_000L / pods));
			double namespace = rate(nsLists, () -> {
				int found = 0;
				for (int i = 0; i < nsLists; i++) {
					found += lister.list("ns-" + (i % Pods.NAMESPACES)).size();
				}
				return found;
			});
			int indexLists = Math.max(1, (int) (50_000_000L / pods));
			double index = rate(indexLists, () -> {
				int found = 0;
				for (int i = 0; i < indexLists; i++) {
					found += lister.byIndex("instance", "web-" + (i % 50)).size();
				}
				return found;
			});
			int bodies = Math.max(1, reads / 20);
			double json = rate(bodies, () -> {
				int chars = 0;
				for (int i = 0; i < bodies; i++) {
					int p = picks[i & mask];
					chars += lister.get(namespaces[p], names[p]).orElseThrow().json().length();
				}
				return chars;
			});
			BenchMain.result("bigcache", "listwatch", "compress", compress, "cached", size, "syncedMs",
					(synced - t0) / 1_000_000, "cpuMs", (cpu1 - cpu0) / 1_000_000, "retainedBytesPerObject",
					(after - before) / size, "retainedMB", String.format("%.1f", (after - before) / 1e6), "getsPerSec",
					String.format("%.0f", gets), "labelListsPerSec", String.format("%.1f", labels),
					"namespaceListsPerSec", String.format("%.1f", namespace), "indexListsPerSec",
					String.format("%.1f", index), "jsonReadsPerSec", String.format("%.0f", json));
		}
		finally {
			informer.stop();
			runtime.close();
			client.close();
		}
		System.out.flush();
		System.exit(0);
	}

	/**
	 * Runs a workload of {@code count} operations once to warm up, then 3 times timed:
	 * the median of the operations per second.
	 */
	private static double rate(int count, IntSupplier workload) {
		int check = workload.getAsInt();
		double[] rates = new double[3];
		for (int i = 0; i < rates.length; i++) {
			long t0 = System.nanoTime();
			int again = workload.getAsInt();
			long t1 = System.nanoTime();
			if (again != check) {
				throw new IllegalStateException("the workload changed: " + check + " then " + again);
			}
			rates[i] = count / ((t1 - t0) / 1e9);
		}
		java.util.Arrays.sort(rates);
		return rates[1];
	}

	private static long usedAfterGc() throws InterruptedException {
		for (int i = 0; i < 3; i++) {
			System.gc();
			Thread.sleep(100);
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

	private static long cpu() {
		if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
			return os.getProcessCpuTime();
		}
		return 0;
	}

}
