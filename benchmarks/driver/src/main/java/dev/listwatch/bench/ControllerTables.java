package dev.listwatch.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleBiFunction;
import java.util.function.ToDoubleFunction;

/**
 * The {@code controller} benchmark's side in the driver: one {@code listwatch} runner JVM
 * ({@code ControllerBench}) against the fake server, the listener path alone and with a
 * controller of 1, 4, 16 workers ({@code controllerWorkers}), with a tiny reconciler and
 * with one that sleeps {@code controllerSlowMs}; then the two tables. listwatch only: the
 * peers have no work queue on the Spring side to set beside it.
 */
final class ControllerTables {

	private final Driver driver;

	private ControllerTables(Driver driver) {
		this.driver = driver;
	}

	static void run(Driver driver) throws Exception {
		new ControllerTables(driver).run();
	}

	private void run() throws Exception {
		int pods = this.driver.i("pods");
		long events = Long.parseLong(this.driver.opts.get("events"));
		String workers = this.driver.opts.get("controllerWorkers");
		String slowMs = this.driver.opts.get("controllerSlowMs");
		List<Map<String, String>> results;
		int eventBytes;
		try (FakeApiServer server = new FakeApiServer(new FakeApiServer.Scenario(pods, events, events, 0, true))) {
			Bytes b = new Bytes(8192);
			server.pods().writeEvent(b, "MODIFIED", 1, Pods.eventRv(pods, 1));
			eventBytes = b.size();
			Driver.Run run = this.driver.launch("controller", "listwatch", List.of(), "url=" + server.url(),
					"pods=" + pods, "events=" + events, "rounds=" + this.driver.opts.get("rounds"),
					"warmup=" + this.driver.opts.get("warmup"), "workers=" + workers, "slowMs=" + slowMs,
					"paths=" + this.driver.opts.get("controllerPaths"));
			int exit = run.waitFor(3600);
			if (exit != 0) {
				System.err.println("  controller listwatch exited with " + exit);
			}
			results = run.results;
			this.driver.serverLog("controller", "listwatch", server);
		}
		Map<String, List<Map<String, String>>> byVariant = new LinkedHashMap<>();
		for (Map<String, String> r : results) {
			if (!"true".equals(r.get("warmup"))) {
				byVariant.computeIfAbsent(r.get("variant"), (v) -> new ArrayList<>()).add(r);
			}
		}
		this.driver.print("## 9. Controller: keys through the work queue (listwatch only)");
		this.driver.print("");
		this.driver.print(pods + " Pods, " + events + " MODIFIED events round-robin (" + eventBytes
				+ " bytes each), one"
				+ " watch, as in section 1, in one `listwatch` runner JVM: a listener path alone and with a"
				+ " `Controller` over the same informer (`ControllerOptions.DEFAULTS.withWorkers(n)`, no observation"
				+ " registry). The listener paths: the informer's publisher calls the handler, as the `listwatch`"
				+ " client (`listener`, `controller-n`, `slow-n`), and a Boot application's `@EventListener` calls it,"
				+ " as `listwatch-boot`, the controller over its `wInformer` (`boot-...`). The variants alternate"
				+ " round by round, a fresh informer (list + watch; for boot a fresh context) each. The tiny"
				+ " reconciler reads the object from `request.object()` and parses its resourceVersion; the slow one"
				+ " then sleeps " + slowMs + " ms, as an API write waits. Stream = from synced until the handler has"
				+ " seen every Pod's final state; drained = until the reconciler has too (drain ms = the time"
				+ " between). Median of " + this.driver.opts.get("rounds") + " rounds after "
				+ this.driver.opts.get("warmup") + " warm-up rounds. Changes = the " + pods + " listed Pods + the "
				+ events + " events (1.00 when no key was deduplicated); reconciles per round count the listed"
				+ " keys too; queue wait and work are the controller's own `ControllerStatus` times over its"
				+ " reconciles.");
		this.driver.print("");
		this.driver.print("| variant | workers | reconcile | events/s while streaming | vs listener alone |"
				+ " reconciles/s while streaming | reconciles/s to drained | drain ms | reconciles / round |"
				+ " changes ÷ reconciles | queue wait ms / reconcile | work µs / reconcile |");
		this.driver.print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		for (Map.Entry<String, List<Map<String, String>>> e : byVariant.entrySet()) {
			List<Map<String, String>> r = e.getValue();
			boolean controller = !e.getKey().endsWith("listener");
			double listenerRate = Driver.median(baseline(byVariant, e.getKey()), "eventsPerSec");
			String reconcile = !controller ? ""
					: r.get(0).get("sleepMs").equals("0") ? "tiny" : "sleep " + slowMs + " ms";
			double rate = Driver.median(r, "eventsPerSec");
			this.driver.print("| " + e.getKey() + " | " + r.get(0).get("workers") + " | " + reconcile + " | "
					+ Driver.f0(rate) + " | " + Driver.ratio(rate, listenerRate) + " | "
					+ (controller ? Driver.f0(Driver.median(r, "reconcilesPerSecStreaming")) + " | "
							+ Driver.f0(Driver.median(r, "reconcilesPerSecToDrained")) + " | "
							+ Driver.f1(Driver.median(r, "drainMs")) + " | " + Driver.f0(Driver.median(r, "reconciles"))
							+ " | " + Driver.f2(Driver.median(r, "changesPerReconcile")) + " | "
							+ Driver.f2(Driver.median(r, "queueWaitUs") / 1000) + " | "
							+ Driver.f1(Driver.median(r, "workUs")) + " |" : " | | | | | | |"));
		}
		this.driver.print("");
		scaling(byVariant, "slow");
		scaling(byVariant, "controller");
		scaling(byVariant, "boot-controller");
		cost(byVariant);
	}

	/** Workers against one worker: reconciles per second to drained, and the drain. */
	private void scaling(Map<String, List<Map<String, String>>> byVariant, String prefix) {
		String[] counts = this.driver.opts.get("controllerWorkers").split(",");
		List<Map<String, String>> one = byVariant.get(prefix + "-" + counts[0]);
		if (one == null || counts.length < 2) {
			return;
		}
		StringBuilder line = new StringBuilder(
				(prefix.equals("slow") ? "Reconciles that wait " + this.driver.opts.get("controllerSlowMs") + " ms"
						: prefix.startsWith("boot") ? "Tiny reconciles behind `@EventListener`" : "Tiny reconciles")
						+ ", reconciles/s to drained against " + counts[0] + " worker(s): ");
		for (int i = 1; i < counts.length; i++) {
			List<Map<String, String>> n = byVariant.get(prefix + "-" + counts[i]);
			if (n != null) {
				line.append(i > 1 ? "; " : "")
					.append(counts[i])
					.append(" workers **")
					.append(Driver.ratio(Driver.median(n, "reconcilesPerSecToDrained"),
							Driver.median(one, "reconcilesPerSecToDrained")))
					.append("** (drain ")
					.append(Driver.f1(Driver.median(n, "drainMs")))
					.append(" against ")
					.append(Driver.f1(Driver.median(one, "drainMs")))
					.append(" ms, changes ÷ reconciles ")
					.append(Driver.f2(Driver.median(n, "changesPerReconcile")))
					.append(" against ")
					.append(Driver.f2(Driver.median(one, "changesPerReconcile")))
					.append(')');
			}
		}
		this.driver.print(line + ".");
		this.driver.print("");
	}

	/**
	 * The listener path alone that a variant is set against: boot's or the direct one.
	 */
	private static List<Map<String, String>> baseline(Map<String, List<Map<String, String>>> byVariant,
			String variant) {
		return byVariant.getOrDefault(variant.startsWith("boot-") ? "boot-listener" : "listener", List.of());
	}

	/**
	 * The queue's cost per event: process CPU µs per event from synced to drained, and
	 * the dispatch and worker threads' µs, each variant against its listener path alone
	 * in the same round (paired, then the median).
	 */
	private void cost(Map<String, List<Map<String, String>>> byVariant) {
		this.driver.print("The queue's cost per event: CPU per event from synced until drained (for a listener alone,"
				+ " until the stream's end): the whole process's, and by thread from the Linux thread times (10 ms"
				+ " ticks). Each variant is set against its listener path alone in the same round (the direct path's"
				+ " or boot's), and the median of those per-round differences and ratios is shown, so that a slow"
				+ " spell of the machine that hits one round hits both sides. dispatch = the threads that run the"
				+ " handler (or Spring's multicaster) and the controller's listener, which queues keys; controller ="
				+ " the workers; own threads = dispatch + controller, the queue's own work without the JIT and GC"
				+ " that the process figure also holds; waits = voluntary context switches of all the JVM's threads"
				+ " per 1,000 events, to drained (a thread that waited, mostly until another woke it).");
		this.driver.print("");
		this.driver.print("| variant | CPU µs / event, stream | CPU µs / event, to drained | vs listener alone |"
				+ " queue's cost, process µs / event | queue's cost, own threads µs / event |"
				+ " wall µs / event, to drained | watch µs | dispatch µs | controller µs | gc µs | jit µs |"
				+ " waits / 1k events |");
		this.driver.print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		ToDoubleFunction<Map<String, String>> process = (r) -> number(r, "totalCpuUsPerEvent");
		ToDoubleFunction<Map<String, String>> own = (r) -> number(r, "dispatchTotalUs")
				+ number(r, "controllerTotalUs");
		for (Map.Entry<String, List<Map<String, String>>> e : byVariant.entrySet()) {
			List<Map<String, String>> r = e.getValue();
			List<Map<String, String>> base = baseline(byVariant, e.getKey());
			boolean self = e.getKey().endsWith("listener");
			String ratio = self ? "1.00×" : Driver.f2(paired(r, base, process, (a, b) -> a / b)) + "×";
			String processCost = self ? "" : Driver.f2(paired(r, base, process, (a, b) -> a - b));
			String ownCost = self ? "" : Driver.f2(paired(r, base, own, (a, b) -> a - b));
			this.driver.print("| " + e.getKey() + " | " + Driver.f2(Driver.median(r, "streamCpuUsPerEvent")) + " | "
					+ Driver.f2(Driver.median(r, "totalCpuUsPerEvent")) + " | " + ratio + " | " + processCost + " | "
					+ ownCost + " | " + Driver.f2(Driver.median(r, "wallUsPerEvent")) + " | "
					+ Driver.f2(Driver.median(r, "watchTotalUs")) + " | "
					+ Driver.f2(Driver.median(r, "dispatchTotalUs")) + " | "
					+ Driver.f2(Driver.median(r, "controllerTotalUs")) + " | "
					+ Driver.f2(Driver.median(r, "gcTotalUs")) + " | " + Driver.f2(Driver.median(r, "jitTotalUs"))
					+ " | " + Driver.f0(Driver.median(r, "waitsPer1kEvents")) + " |");
		}
		this.driver.print("");
	}

	private static double number(Map<String, String> r, String key) {
		String v = r.get(key);
		return (v != null) ? Double.parseDouble(v) : Double.NaN;
	}

	/**
	 * The median over rounds of {@code f(measure(variant), measure(listener))}, the
	 * rounds paired by number.
	 */
	private static double paired(List<Map<String, String>> variant, List<Map<String, String>> listener,
			ToDoubleFunction<Map<String, String>> measure, ToDoubleBiFunction<Double, Double> f) {
		Map<String, Double> base = new LinkedHashMap<>();
		for (Map<String, String> r : listener) {
			base.put(r.get("round"), measure.applyAsDouble(r));
		}
		double[] values = variant.stream()
			.filter((r) -> base.containsKey(r.get("round")))
			.mapToDouble((r) -> f.applyAsDouble(measure.applyAsDouble(r), base.get(r.get("round"))))
			.toArray();
		return Stats.median(values);
	}

}
