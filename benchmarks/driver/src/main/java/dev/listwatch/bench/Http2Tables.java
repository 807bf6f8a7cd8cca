package dev.listwatch.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;

/**
 * Issue 31, goal 2 (section 11): many watches on HTTP/2 against HTTP/1.1, on the same
 * real kube-apiserver (TLS, so h2 by ALPN), side by side in one run. {@code h2Namespaces}
 * namespaces get {@code h2PerNamespace} ConfigMaps each, written before any client runs;
 * each client JVM ({@link Http2Bench} in {@code listwatch-runner}) then watches from the
 * resourceVersion before the writes, so that the API server replays every event (from
 * etcd: the watch cache is off, so a watch from an old resourceVersion is served, and
 * compaction is off, so it stays servable) as fast as the client reads. Two shapes, each
 * on HTTP/1.1 and on HTTP/2, alternating round by round: a watch per namespace (a
 * namespace set), and one watch of all namespaces over the same events.
 */
final class Http2Tables {

	static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

	static {
		DEFAULTS.put("h2Namespaces", "50");
		DEFAULTS.put("h2PerNamespace", "400");
		DEFAULTS.put("h2Rounds", "2");
		DEFAULTS.put("h2Writers", "16");
	}

	private static final Pattern RESOURCE_VERSION = Pattern.compile("\"resourceVersion\":\"(\\d+)\"");

	private static final String PREFIX = "h2b-";

	private Http2Tables() {
	}

	static void run(Driver d) throws Exception {
		int namespaces = d.i("h2Namespaces");
		int perNamespace = d.i("h2PerNamespace");
		int rounds = d.i("h2Rounds");
		int writers = d.i("h2Writers");
		long expect = (long) namespaces * perNamespace;
		String load0 = Files.readString(Path.of("/proc/loadavg")).trim();
		List<String> shapes = List.of("1.1:" + namespaces, "2:" + namespaces, "1.1:0", "2:0");
		Map<String, List<Map<String, String>>> results = new LinkedHashMap<>();
		shapes.forEach((shape) -> results.put(shape, new ArrayList<>()));
		long writeMillis;
		try (LocalApiServer server = new LocalApiServer(
				LocalApiServer.Options.defaults().withFlags("--watch-cache=false", "--etcd-compaction-interval=0"))
			.start()) {
			ApiWriter writer = server.writer();
			for (int i = 0; i < namespaces; i++) {
				server.createNamespace(PREFIX + i);
			}
			server.createNamespace(PREFIX + "marker");
			String marker = writer.create("/api/v1/namespaces/" + PREFIX + "marker/configmaps",
					ApiWriter.configMap(PREFIX + "marker", "from", "k", "v"));
			Matcher rv = RESOURCE_VERSION.matcher(marker);
			if (!rv.find()) {
				throw new IllegalStateException("no resourceVersion in " + marker);
			}
			long started = System.nanoTime();
			for (int i = 0; i < namespaces; i++) {
				List<String> objects = new ArrayList<>();
				for (int j = 0; j < perNamespace; j++) {
					objects.add(ApiWriter.configMap(PREFIX + i, "cm-" + j, "k", "value-" + j));
				}
				writer.createAll("/api/v1/namespaces/" + PREFIX + i + "/configmaps", objects, writers);
			}
			writeMillis = (System.nanoTime() - started) / 1_000_000;
			Path kubeconfig = server.kubeconfig();
			for (int round = 0; round < rounds; round++) {
				for (String shape : shapes) {
					String[] p = shape.split(":");
					Driver.Run run = d.launch("h2", "h2-watches", List.of(), "kubeconfig=" + kubeconfig,
							"http2=" + "2".equals(p[0]), "watches=" + p[1], "prefix=" + PREFIX, "rv=" + rv.group(1),
							"expect=" + expect);
					int exit = run.waitFor(660);
					if (exit != 0 || run.results.isEmpty()) {
						throw new IllegalStateException("h2 client " + shape + " failed (exit " + exit
								+ "); see benchmarks/target/logs/h2-h2-watches.log");
					}
					results.get(shape).add(run.results.get(0));
				}
			}
		}
		String load1 = Files.readString(Path.of("/proc/loadavg")).trim();
		print(d, namespaces, perNamespace, rounds, writeMillis, expect, load0, load1, results);
	}

	private static void print(Driver d, int namespaces, int perNamespace, int rounds, long writeMillis, long expect,
			String load0, String load1, Map<String, List<Map<String, String>>> results) {
		d.print("## 11. Many watches on HTTP/2 against HTTP/1.1 (listwatch only)");
		d.print("");
		d.print("A real kube-apiserver 1.34.4 and etcd (`LocalApiServer`, TLS, `--watch-cache=false "
				+ "--etcd-compaction-interval=0`) on the same machine; " + namespaces + " namespaces of " + perNamespace
				+ " ConfigMaps each (" + expect + " ADDED events, written in " + writeMillis + " ms before any client"
				+ " runs). Each client JVM (`Http2Bench`) opens its watches from the resourceVersion before the writes"
				+ " and reads every event, each watch on a thread of its own, decoded into `KubernetesObject`s (no"
				+ " cache or listeners). Rows alternate round by round; median of " + rounds + " rounds. events/s: "
				+ "from the first request to the last event; CPU µs/event: the whole client process; connections:"
				+ " the client's established TCP connections to the server, from /proc; threads and heap per watch:"
				+ " what the open watches added (heap after GC, streams open). Load average " + load0
				+ " at the start, " + load1 + " at the end.");
		d.print("");
		d.print("| HTTP | watches | events/s | CPU µs/event | connections | threads/watch | heap KB/watch | rounds (events/s) |");
		d.print("|---|---|---|---|---|---|---|---|");
		for (Map.Entry<String, List<Map<String, String>>> e : results.entrySet()) {
			List<Map<String, String>> rs = e.getValue();
			String[] p = e.getKey().split(":");
			d.print("| " + p[0] + " | " + ("0".equals(p[1]) ? "1 (all namespaces)" : p[1]) + " | "
					+ Driver.f0(median(rs, "eventsPerSec")) + " | " + String.format("%.1f", median(rs, "cpuUsPerEvent"))
					+ " | " + Driver.f0(median(rs, "connections")) + " | "
					+ String.format("%.2f", median(rs, "threadsPerWatch")) + " | "
					+ String.format("%.1f", median(rs, "heapKBPerWatch")) + " | "
					+ String.join(", ", rs.stream().map((r) -> r.get("eventsPerSec")).toList()) + " |");
		}
		d.print("");
		for (String watches : List.of(String.valueOf(namespaces), "0")) {
			double h1 = median(results.get("1.1:" + watches), "eventsPerSec");
			double h2 = median(results.get("2:" + watches), "eventsPerSec");
			double c1 = median(results.get("1.1:" + watches), "cpuUsPerEvent");
			double c2 = median(results.get("2:" + watches), "cpuUsPerEvent");
			d.print("- " + ("0".equals(watches) ? "one watch" : watches + " watches") + ": HTTP/2 at "
					+ String.format("%.2f", h2 / h1) + "× HTTP/1.1's events/s, " + String.format("%.2f", c2 / c1)
					+ "× its CPU per event");
		}
		d.print("");
	}

	private static double median(List<Map<String, String>> rounds, String key) {
		double[] values = rounds.stream().mapToDouble((r) -> Double.parseDouble(r.get(key))).sorted().toArray();
		int n = values.length;
		return (n % 2 == 1) ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
	}

}
