package dev.listwatch.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStream;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.ConnectionOptions;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

/**
 * One side of the HTTP/2 benchmark (issue 31, goal 2): {@code watches} watches of
 * ConfigMaps on a real kube-apiserver (one per namespace {@code <prefix>0...}, or one of
 * all namespaces when {@code watches=0}), each from resourceVersion {@code rv}, so that
 * the server replays the events written after it as fast as the client reads them. Each
 * watch is read on a thread of its own, as an informer reads it, and its events are
 * decoded into {@link KubernetesObject}s (no cache, no listeners: the transport and the
 * decoding). Prints one {@code RESULT} line: events per second from the first request to
 * the last expected event, CPU of the whole process per event, the TCP connections of
 * this process to the server (from {@code /proc}: the sockets the kernel holds, not the
 * client's word), the threads and the heap (after GC, the streams still open) the watches
 * added, per watch.
 * <p>
 * {@code main(h2, kubeconfig=, http2=true|false, watches=50, prefix=h2b-, rv=, expect=)}
 */
final class Http2Bench {

	private Http2Bench() {
	}

	static void run(String[] args) throws Exception {
		Map<String, String> opts = new java.util.HashMap<>();
		for (int i = 1; i < args.length; i++) {
			int eq = args[i].indexOf('=');
			opts.put(args[i].substring(0, eq), args[i].substring(eq + 1));
		}
		boolean http2 = Boolean.parseBoolean(opts.get("http2"));
		int watches = Integer.parseInt(opts.get("watches"));
		String prefix = opts.get("prefix");
		String rv = opts.get("rv");
		long expect = Long.parseLong(opts.get("expect"));
		Path home = Files.createTempDirectory("listwatch-bench-home");
		Cluster cluster = Cluster.load(ConnectionOptions.builder()
			.kubeconfig(opts.get("kubeconfig"))
			.environment(Map.of())
			.homeDirectory(home)
			.serviceAccountDirectory(home.resolve("none"))
			.build());
		int port = cluster.server().getPort();
		Snapshot before = Snapshot.take(port);
		long cpu0 = cpuNanos();
		long start = System.nanoTime();
		AtomicLong events = new AtomicLong();
		CountDownLatch done = new CountDownLatch(1);
		List<WatchStream<KubernetesObject>> streams = new ArrayList<>();
		List<Thread> readers = new ArrayList<>();
		try (ApiServerClient client = ApiServerClient.create(cluster, RestClient.builder(), JsonMapper.shared(),
				Clock.systemUTC(), http2)) {
			int n = Math.max(1, watches);
			for (int i = 0; i < n; i++) {
				String namespace = (watches == 0) ? null : prefix + i;
				ListerWatcher<KubernetesObject> lw = client.listerWatcher(
						new ApiServerClient.Target("v1", null, "configmaps", namespace), KubernetesObject.class,
						ApiServerClient.Decoding.DEFAULTS);
				Thread reader = new Thread(() -> {
					ListOptions options = ListOptions.none()
						.withResourceVersion(rv)
						.withAllowWatchBookmarks(true)
						.withTimeout(Duration.ofMinutes(10));
					WatchStream<KubernetesObject> stream = lw.watch(options);
					synchronized (streams) {
						streams.add(stream);
					}
					try {
						while (stream.hasNext()) {
							WatchEvent<KubernetesObject> event = stream.next();
							if (event.type() != WatchEvent.Type.BOOKMARK && events.incrementAndGet() == expect) {
								done.countDown();
							}
						}
					}
					catch (RuntimeException ex) {
						if (done.getCount() > 0) {
							System.out.println("watch failed: " + ex);
						}
					}
				}, "watch-" + i);
				reader.setDaemon(true);
				readers.add(reader);
			}
			readers.forEach(Thread::start);
			if (!done.await(10, TimeUnit.MINUTES)) {
				throw new IllegalStateException("only " + events.get() + " of " + expect + " events arrived");
			}
			double seconds = (System.nanoTime() - start) / 1e9;
			double cpuUsPerEvent = (cpuNanos() - cpu0) / 1e3 / expect;
			Snapshot after = Snapshot.take(port);
			System.out.printf(Locale.ROOT,
					"RESULT http2=%s watches=%d events=%d seconds=%.3f eventsPerSec=%.0f cpuUsPerEvent=%.1f "
							+ "connections=%d threadsPerWatch=%.2f heapKBPerWatch=%.1f threads=%d heapMB=%.1f%n",
					http2, n, events.get(), seconds, expect / seconds, cpuUsPerEvent, after.connections(),
					(after.threads() - before.threads()) / (double) n,
					(after.heapBytes() - before.heapBytes()) / 1024.0 / n, after.threads(),
					after.heapBytes() / 1048576.0);
			synchronized (streams) {
				streams.forEach(WatchStream::close);
			}
		}
	}

	private static long cpuNanos() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

	/** Threads, heap after GC and TCP connections to the server's port. */
	private record Snapshot(int threads, long heapBytes, int connections) {

		static Snapshot take(int port) throws IOException {
			System.gc();
			System.gc();
			MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
			return new Snapshot(Thread.activeCount(), heap.getUsed(), connections(port));
		}

		/**
		 * The established TCP connections of this process to {@code port}: the socket
		 * inodes among this process's descriptors that the kernel's tables show connected
		 * to it.
		 */
		static int connections(int port) throws IOException {
			Set<String> inodes = new HashSet<>();
			try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
				for (Path fd : fds) {
					try {
						String target = Files.readSymbolicLink(fd).toString();
						if (target.startsWith("socket:[")) {
							inodes.add(target.substring(8, target.length() - 1));
						}
					}
					catch (IOException ex) {
						// closed meanwhile
					}
				}
			}
			String remotePort = String.format(Locale.ROOT, ":%04X", port);
			int count = 0;
			for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
				Path path = Path.of(table);
				if (!Files.exists(path)) {
					continue;
				}
				for (String line : Files.readAllLines(path)) {
					String[] f = line.trim().split("\\s+");
					// sl local rem st ... inode(9); st 01 = ESTABLISHED
					if (f.length > 9 && f[2].endsWith(remotePort) && "01".equals(f[3]) && inodes.contains(f[9])) {
						count++;
					}
				}
			}
			return count;
		}

	}

}
