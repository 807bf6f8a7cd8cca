package dev.listwatch.bench;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Lister;
import dev.listwatch.event.ResourceEvent;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.metrics.buffering.StartupTimeline.TimelineEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

/**
 * listwatch as an application uses it: a Spring Boot application with the starter's
 * auto-configuration, one declared watch and a no-op {@code @EventListener}. Also the
 * startup benchmark ({@code startup url= watches=0|10}).
 */
@SpringBootApplication
public class BootRunner implements Subject<KubernetesObject> {

	static volatile Consumer<KubernetesObject> sink = (o) -> {
	};

	/**
	 * The context {@link #start} last ran (the controller benchmark takes the watch's
	 * informer from it).
	 */
	static volatile ConfigurableApplicationContext lastContext;

	public static void main(String[] args) throws Exception {
		if (args[0].equals("startup")) {
			startup(args);
			return;
		}
		BenchMain.run(new BootRunner(), args);
	}

	@Bean
	Listener listener() {
		return new Listener();
	}

	/**
	 * Startup breakdown: a lifecycle step just before listwatch's own (discovery, then
	 * the informers' start) and one just after its wait-for-sync, stamping when the
	 * context got there.
	 */
	@Bean
	static org.springframework.context.SmartLifecycle startupStamps() {
		return new StartupStamp(dev.listwatch.informer.Informer.PHASE - 2, 0);
	}

	@Bean
	static org.springframework.context.SmartLifecycle startupStampsSynced() {
		return new StartupStamp(dev.listwatch.informer.Informer.PHASE + 2, 1);
	}

	/** System.nanoTime() at: 0 = before listwatch's lifecycle steps, 1 = after them. */
	static final long[] stamps = new long[2];

	static final class StartupStamp implements org.springframework.context.SmartLifecycle {

		private final int phase;

		private final int slot;

		private volatile boolean running;

		StartupStamp(int phase, int slot) {
			this.phase = phase;
			this.slot = slot;
		}

		@Override
		public void start() {
			stamps[this.slot] = System.nanoTime();
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return this.phase;
		}

	}

	static class Listener {

		@EventListener
		void on(ResourceEvent<KubernetesObject> event) {
			if (event.type() != ResourceEvent.Type.DELETED) {
				sink.accept(event.object());
			}
		}

	}

	@Override
	public String name() {
		return "listwatch-boot";
	}

	@Override
	public Running start(Target target, Consumer<KubernetesObject> onUpsert) {
		sink = onUpsert;
		List<String> args = new ArrayList<>();
		if (target.server() != null) {
			args.add("--listwatch.connection.server=" + target.server());
		}
		else {
			args.add("--listwatch.kubeconfig=" + target.kubeconfig());
		}
		args.add("--listwatch.watches.w.api-version=v1");
		args.add("--listwatch.watches.w.resource=" + target.resource());
		if (target.namespace() != null) {
			args.add("--listwatch.watches.w.namespace=" + target.namespace());
		}
		if (!target.namespaces().isEmpty()) {
			args.add("--listwatch.watches.w.namespaces=" + String.join(",", target.namespaces()));
		}
		args.add("--listwatch.defaults.page-size=" + target.pageSize());
		args.add("--listwatch.defaults.streaming-list=false");
		args.add("--listwatch.startup.wait-for-sync=false");
		if (Boolean.getBoolean("bench.fastRetry")) {
			args.add("--listwatch.defaults.initial-backoff=100ms");
			args.add("--listwatch.defaults.max-backoff=1s");
			args.add("--listwatch.defaults.backoff-jitter=0.2");
		}
		ConfigurableApplicationContext context = app().run(args.toArray(new String[0]));
		lastContext = context;
		@SuppressWarnings("unchecked")
		Lister<KubernetesObject> lister = context.getBean("wLister", Lister.class);
		return new Running() {

			@Override
			public boolean awaitSynced(Duration timeout) throws Exception {
				long end = System.nanoTime() + timeout.toNanos();
				while (!lister.hasSynced()) {
					if (System.nanoTime() > end) {
						return false;
					}
					Thread.sleep(1);
				}
				return true;
			}

			@Override
			public int cacheSize() {
				return lister.size();
			}

			@Override
			public void close() {
				context.close();
			}

		};
	}

	@Override
	public String resourceVersion(KubernetesObject object) {
		return object.resourceVersion();
	}

	@Override
	public String name(KubernetesObject object) {
		return object.name();
	}

	@Override
	public String label(KubernetesObject object, String key) {
		return object.labels().get(key);
	}

	private static SpringApplication app() {
		SpringApplication app = new SpringApplication(BootRunner.class);
		app.setWebApplicationType(WebApplicationType.NONE);
		app.setBannerMode(org.springframework.boot.Banner.Mode.OFF);
		app.setLogStartupInfo(false);
		return app;
	}

	/**
	 * Startup: the time to a ready context and the heap after it, with 0 or 10 declared
	 * watches.
	 */
	static void startup(String[] argv) throws Exception {
		String url = argv[1].substring("url=".length());
		int watches = Integer.parseInt(argv[2].substring("watches=".length()));
		String[] resources = { "pods", "configmaps", "secrets", "services", "endpoints", "serviceaccounts", "events",
				"persistentvolumeclaims", "replicationcontrollers", "limitranges" };
		List<String> args = new ArrayList<>();
		args.add("--listwatch.connection.server=" + url);
		args.add("--listwatch.defaults.streaming-list=false");
		args.add("--listwatch.startup.wait-for-sync=true");
		for (int i = 0; i < watches; i++) {
			args.add("--listwatch.watches." + resources[i] + ".api-version=v1");
			args.add("--listwatch.watches." + resources[i] + ".resource=" + resources[i]);
		}
		if (watches == 0) {
			args.add("--listwatch.enabled=false");
		}
		long t0 = System.nanoTime();
		SpringApplication app = app();
		int steps = Integer.getInteger("bench.startupSteps", 0);
		org.springframework.boot.context.metrics.buffering.BufferingApplicationStartup recorder = (steps > 0)
				? new org.springframework.boot.context.metrics.buffering.BufferingApplicationStartup(100_000) : null;
		if (recorder != null) {
			app.setApplicationStartup(recorder);
		}
		ConfigurableApplicationContext context = app.run(args.toArray(new String[0]));
		long ready = System.nanoTime();
		if (recorder != null) {
			printSteps(recorder, steps);
			String tree = System.getProperty("bench.startupTree");
			if (tree != null) {
				printTree(recorder, tree);
			}
		}
		long jvmUptime = ManagementFactory.getRuntimeMXBean().getUptime();
		// CPU of all the JVM's threads (JIT and GC included) to here: less at the mercy
		// of a busy machine
		long cpu = processCpuNanos();
		// the main thread's CPU: the start's own work, less what ran beside it
		long mainCpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
		for (int i = 0; i < 3; i++) {
			System.gc();
			Thread.sleep(100);
		}
		long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
		int threads = Thread.activeCount();
		int classes = ManagementFactory.getClassLoadingMXBean().getLoadedClassCount();
		BenchMain.result("startup", "listwatch-boot", "watches", watches, "runMs", (ready - t0) / 1_000_000,
				"refreshedMs", (stamps[0] - t0) / 1_000_000, "listwatchMs", (stamps[1] - stamps[0]) / 1_000_000,
				"jvmUptimeMs", jvmUptime, "cpuMs", cpu / 1_000_000, "mainCpuMs", mainCpu / 1_000_000, "heapKb",
				heap / 1024, "threads", threads, "classes", classes);
		context.close();
		System.exit(0);
	}

	/**
	 * The slowest startup steps Spring recorded, with their tags (for finding where
	 * start-up goes).
	 */
	private static void printSteps(
			org.springframework.boot.context.metrics.buffering.BufferingApplicationStartup recorder, int count) {
		recorder.getBufferedTimeline()
			.getEvents()
			.stream()
			.sorted(java.util.Comparator.comparing(TimelineEvent::getDuration).reversed())
			.limit(count)
			.forEach((e) -> {
				StringBuilder tags = new StringBuilder();
				e.getStartupStep()
					.getTags()
					.forEach((t) -> tags.append(' ').append(t.getKey()).append('=').append(t.getValue()));
				System.out.println("STEP " + e.getDuration().toMillis() + " ms " + e.getStartupStep().getName() + tags);
			});
	}

	/**
	 * Spring's startup steps in the order they started, indented by nesting, with their
	 * own time (less their children's) and their whole time: the steps whose tags contain
	 * {@code filter} (all with an empty filter), and their ancestors.
	 */
	private static void printTree(
			org.springframework.boot.context.metrics.buffering.BufferingApplicationStartup recorder, String filter) {
		List<TimelineEvent> events = recorder.getBufferedTimeline().getEvents();
		java.util.Map<Long, TimelineEvent> byId = new java.util.HashMap<>();
		java.util.Map<Long, Long> children = new java.util.HashMap<>();
		for (var e : events) {
			byId.put(e.getStartupStep().getId(), e);
		}
		for (var e : events) {
			Long parent = e.getStartupStep().getParentId();
			if (parent != null) {
				children.merge(parent, e.getDuration().toNanos(), Long::sum);
			}
		}
		java.util.Set<Long> shown = new java.util.HashSet<>();
		for (var e : events) {
			if (describe(e).contains(filter)) {
				for (Long id = e.getStartupStep().getId(); id != null && shown.add(id); id = byId.containsKey(id)
						? byId.get(id).getStartupStep().getParentId() : null) {
				}
			}
		}
		events.stream()
			.filter((e) -> shown.contains(e.getStartupStep().getId()))
			.sorted(java.util.Comparator.comparing(TimelineEvent::getStartTime))
			.forEach((e) -> {
				int depth = 0;
				for (Long p = e.getStartupStep().getParentId(); p != null
						&& byId.containsKey(p); p = byId.get(p).getStartupStep().getParentId()) {
					depth++;
				}
				long whole = e.getDuration().toNanos();
				long own = whole - children.getOrDefault(e.getStartupStep().getId(), 0L);
				System.out.printf(java.util.Locale.ROOT, "TREE %6.1f %6.1f %s%s%n", own / 1e6, whole / 1e6,
						"  ".repeat(depth), describe(e));
			});
	}

	private static String describe(TimelineEvent e) {
		StringBuilder text = new StringBuilder(e.getStartupStep().getName());
		e.getStartupStep()
			.getTags()
			.forEach((t) -> text.append(' ').append(t.getKey()).append('=').append(t.getValue()));
		return text.toString();
	}

	/** The CPU time of the whole JVM so far, or -1 where the platform does not tell. */
	static long processCpuNanos() {
		return (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
				? os.getProcessCpuTime() : -1;
	}

}
