package dev.listwatch.bench;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Resource;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.controller.Controller;
import dev.listwatch.controller.ControllerOptions;
import dev.listwatch.controller.ControllerStatus;
import dev.listwatch.controller.Reconciler;
import dev.listwatch.controller.Result;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import io.micrometer.observation.ObservationRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

/**
 * The controller benchmark ({@code controller url= pods= events= rounds= warmup= workers=
 * slowMs= paths=}): a listener path alone and with a {@link Controller} over the same
 * informer, in one JVM, the variants interleaved round by round. The listener paths
 * ({@code paths}): {@code direct}, the {@code listwatch} runner's informer whose
 * publisher calls the handler (as in the throughput benchmark), and {@code boot}, the
 * {@code listwatch-boot} application whose {@code @EventListener} calls it, the
 * controller then over the application's {@code wInformer}.
 * <p>
 * Variants, per path ({@code boot-} in front for the Boot one): {@code listener} (the
 * listener path alone); {@code controller-<n>} (plus a controller with n workers whose
 * reconciler reads the object from the request and its resourceVersion: a fixed tiny
 * amount of work); and on the direct path {@code slow-<n>} (the same reconciler, then a
 * sleep of {@code slowMs}, as an API write would wait). Each round lists, then times from
 * synced until the handler has seen every Pod's final state (the stream), and for a
 * controller until its reconciler has seen every Pod's final state too (the drain). One
 * {@code RESULT bench=controller} line per variant and round.
 */
final class ControllerBench {

	private ControllerBench() {
	}

	/**
	 * One variant: workers 0 for the listener path alone; boot for the Boot application's
	 * {@code @EventListener} path ({@link BootRunner}) instead of the publisher calling
	 * the handler.
	 */
	record Variant(String name, boolean boot, int workers, long sleepMs) {
	}

	static void run(String[] args) throws Exception {
		Map<String, String> o = new HashMap<>();
		for (int i = 1; i < args.length; i++) {
			int eq = args[i].indexOf('=');
			o.put(args[i].substring(0, eq), args[i].substring(eq + 1));
		}
		int rounds = Integer.parseInt(o.get("rounds"));
		int warmup = Integer.parseInt(o.get("warmup"));
		long slowMs = Long.parseLong(o.getOrDefault("slowMs", "1"));
		String[] workers = o.getOrDefault("workers", "1,4,16").split(",");
		List<Variant> variants = new ArrayList<>();
		for (String path : o.getOrDefault("paths", "direct,boot").split(",")) {
			boolean boot = path.equals("boot");
			String prefix = boot ? "boot-" : "";
			variants.add(new Variant(prefix + "listener", boot, 0, 0));
			for (String n : workers) {
				variants.add(new Variant(prefix + "controller-" + n, boot, Integer.parseInt(n), 0));
			}
		}
		// the workers' scaling against a reconcile that waits does not depend on the
		// listener path: the direct one only
		for (String n : (slowMs > 0) ? workers : new String[0]) {
			variants.add(new Variant("slow-" + n, false, Integer.parseInt(n), slowMs));
		}
		// interleaved: every variant once per round, so that a busy spell of the machine
		// spreads over all of them
		for (int round = 0; round < warmup + rounds; round++) {
			for (Variant variant : variants) {
				round(o, variant, round, round < warmup);
			}
		}
		System.out.flush();
		System.exit(0);
	}

	/** A started informer, and what closes it and what it was made with. */
	record Started(Informer<KubernetesObject> informer, AutoCloseable close) {
	}

	/**
	 * The listener path: the publisher calls {@code handler} for every ADDED and
	 * MODIFIED, as the {@code listwatch} runner's; or a Boot application whose
	 * {@code @EventListener} does, as {@code listwatch-boot}'s.
	 */
	@SuppressWarnings("unchecked")
	private static Started start(Subject.Target target, boolean boot, Consumer<KubernetesObject> handler)
			throws Exception {
		if (boot) {
			Subject.Running running = new BootRunner().start(target, handler);
			return new Started(BootRunner.lastContext.getBean("wInformer", Informer.class), running);
		}
		Cluster cluster = Cluster.load(ListwatchRunner.settings(target));
		ApiServerClient client = ApiServerClient.create(cluster, RestClient.builder(), JsonMapper.builder().build(),
				Clock.systemUTC());
		Resource resource = new Resource("", "v1", "pods", "Pod", true, null);
		InformerFactory runtime = new InformerFactory(Clock.systemUTC(), (event) -> {
			if (event instanceof ResourceEvent<?> e && e.type() != ResourceEvent.Type.DELETED) {
				handler.accept((KubernetesObject) e.object());
			}
		}, 2, Duration.ofSeconds(10));
		Informer<KubernetesObject> informer = runtime.informer("pods", KubernetesObject.class,
				client.listerWatcher(resource, KubernetesObject.class, ApiServerClient.Decoding.DEFAULTS),
				ListwatchRunner.options(target), List.of());
		informer.start();
		return new Started(informer, () -> {
			informer.stop();
			runtime.close();
			client.close();
		});
	}

	private static void round(Map<String, String> o, Variant variant, int round, boolean warmup) throws Exception {
		int pods = Integer.parseInt(o.get("pods"));
		long events = Long.parseLong(o.get("events"));
		long finalRv = Pods.eventRv(pods, events - pods);
		// the garbage of the last variant is not this one's to collect
		System.gc();
		Thread.sleep(200);
		LongAdder calls = new LongAdder();
		CountDownLatch finals = new CountDownLatch(pods);
		CountDownLatch reconciledFinals = new CountDownLatch(pods);
		Set<String> reconciled = ConcurrentHashMap.newKeySet();
		Reconciler<KubernetesObject> reconciler = (request) -> {
			// the tiny fixed work: the object as cached now, and its resourceVersion
			KubernetesObject object = request.object().orElse(null);
			if (object != null && Long.parseLong(object.resourceVersion()) >= finalRv
					&& reconciled.add(request.key())) {
				reconciledFinals.countDown();
			}
			if (variant.sleepMs() > 0) {
				Thread.sleep(variant.sleepMs());
			}
			return Result.done();
		};
		Subject.Target target = new Subject.Target(o.get("url"), null, "pods", null, 500);
		Consumer<KubernetesObject> handler = (object) -> {
			calls.increment();
			if (Long.parseLong(object.resourceVersion()) >= finalRv) {
				finals.countDown();
			}
		};
		long cpuStart = BenchMain.processCpuNanos();
		ControllerOptions options = ControllerOptions.DEFAULTS.withWorkers(Math.max(1, variant.workers()));
		Started started = start(target, variant.boot(), handler);
		Informer<KubernetesObject> informer = started.informer();
		Controller<KubernetesObject> controller = (variant.workers() > 0)
				? new Controller<>("bench", informer, reconciler, options, ObservationRegistry.NOOP) : null;
		try {
			// as a context starts them: the informer, then (a later phase) the controller
			if (controller != null) {
				controller.start();
			}
			if (!informer.awaitSynced(Duration.ofSeconds(120))) {
				throw new IllegalStateException("not synced");
			}
			long t0 = System.nanoTime();
			long cpu0 = BenchMain.processCpuNanos();
			ThreadCpu threads0 = ThreadCpu.now();
			long switches0 = BenchMain.voluntarySwitches();
			long calls0 = calls.sum();
			ControllerStatus s0 = (controller != null) ? controller.status() : null;
			await(finals, "the handler", calls);
			long t1 = System.nanoTime();
			long cpu1 = BenchMain.processCpuNanos();
			ThreadCpu threads1 = ThreadCpu.now();
			ControllerStatus s1 = (controller != null) ? controller.status() : null;
			long t2 = t1;
			long cpu2 = cpu1;
			ThreadCpu threads2 = threads1;
			ControllerStatus s2 = s1;
			if (controller != null) {
				await(reconciledFinals, "the reconciler", calls);
				t2 = System.nanoTime();
				cpu2 = BenchMain.processCpuNanos();
				threads2 = ThreadCpu.now();
				s2 = controller.status();
			}
			long switches = BenchMain.voluntarySwitches() - switches0;
			List<Object> kv = new ArrayList<>(List.of("variant", variant.name(), "boot", variant.boot(), "workers",
					variant.workers(), "sleepMs", variant.sleepMs(), "round", round, "warmup", warmup, "events", events,
					"eventsPerSec", f0(events / seconds(t1 - t0)), "streamSeconds",
					String.format("%.3f", seconds(t1 - t0)), "streamCpuUsPerEvent", f2((cpu1 - cpu0) / 1e3 / events),
					"totalCpuUsPerEvent", f2((cpu2 - cpu0) / 1e3 / events), "wallUsPerEvent",
					f2((t2 - t0) / 1e3 / events), "waitsPer1kEvents", f1(switches * 1000.0 / events), "handlerCalls",
					calls.sum() - calls0, "syncCpuMs", (cpu0 - cpuStart) / 1_000_000));
			if (controller != null) {
				// the round's totals once nothing is queued or reconciled any more
				ControllerStatus s3 = idle(controller);
				long streamReconciles = s1.reconciles() - s0.reconciles();
				long reconciles = s3.reconciles();
				kv.addAll(List.of("drainMs", f1((t2 - t1) / 1e6), "reconcilesWhileStreaming", streamReconciles,
						"reconcilesPerSecStreaming", f0(streamReconciles / seconds(t1 - t0)),
						"reconcilesPerSecToDrained", f0((s2.reconciles() - s0.reconciles()) / seconds(t2 - t0)), "adds",
						s3.adds(), "reconciles", reconciles, "changesPerReconcile",
						f2((double) (events + pods) / reconciles), "queueWaitUs",
						f1(s3.queueWait().toNanos() / 1e3 / Math.max(1, reconciles)), "workUs",
						f1(s3.work().toNanos() / 1e3 / Math.max(1, reconciles)), "failures", s3.failures()));
			}
			for (String[] role : new String[][] { { "stream", "" }, { "total", "Total" } }) {
				List<Object> byThread = (role[0].equals("stream") ? threads1 : threads2).since(threads0, events);
				for (int i = 0; i + 1 < byThread.size(); i += 2) {
					String key = (String) byThread.get(i);
					if (key.endsWith("Us")) {
						kv.add(key.substring(0, key.length() - 2) + role[1] + "Us");
						kv.add(byThread.get(i + 1));
					}
				}
			}
			BenchMain.result("controller", "listwatch", kv.toArray());
		}
		finally {
			if (controller != null) {
				controller.stop(Duration.ofSeconds(10));
			}
			started.close().close();
		}
	}

	/**
	 * Waits until nothing is queued, waiting or being reconciled, and returns the status
	 * then.
	 */
	private static ControllerStatus idle(Controller<?> controller) throws InterruptedException {
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		ControllerStatus status = controller.status();
		while ((status.depth() > 0 || status.processing() > 0) && System.nanoTime() < end) {
			Thread.sleep(1);
			status = controller.status();
		}
		return status;
	}

	private static void await(CountDownLatch latch, String who, LongAdder calls) throws InterruptedException {
		if (!latch.await(600, TimeUnit.SECONDS)) {
			throw new IllegalStateException(
					latch.getCount() + " final states not seen by " + who + " after " + calls.sum() + " handler calls");
		}
	}

	private static double seconds(long nanos) {
		return nanos / 1e9;
	}

	private static String f0(double v) {
		return String.format("%.0f", v);
	}

	private static String f1(double v) {
		return String.format("%.1f", v);
	}

	private static String f2(double v) {
		return String.format("%.2f", v);
	}

}
