package dev.listwatch.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Resource;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.client.RequestBudget;
import dev.listwatch.client.ResourceWriter;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.controller.Controller;
import dev.listwatch.controller.ControllerOptions;
import dev.listwatch.controller.ControllerStatus;
import dev.listwatch.controller.Request;
import dev.listwatch.controller.Result;
import dev.listwatch.controller.ShardsChangedEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.leader.ShardMembership;
import dev.listwatch.leader.ShardMembershipOptions;
import io.micrometer.observation.ObservationRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

/**
 * One replica of the {@code shards} benchmark ({@code shards kubeconfig= namespace=
 * identity= prefix= shards= lease= renew= retry= workers= workMs= work=sleep|patch qps=
 * burst=}), in a JVM of its own: an {@link Informer} on the ConfigMaps of one namespace
 * and a {@link Controller} over it, sharded by {@link Controller#shardBy} on a
 * {@link ShardMembership} of the real API server, wired by hand as the auto-configuration
 * wires them.
 * <p>
 * The reconciler reads the object's label {@code gen} (the driver's change number), then
 * does the work of one API write: a sleep of {@code workMs} ({@code work=sleep}), or a
 * merge PATCH of the label {@code done=<gen>} onto the same ConfigMap unless it is there
 * already ({@code work=patch}; the event of its own write then costs a reconcile that
 * writes nothing).
 * <p>
 * Talks to the driver over stdin and stdout: prints {@code READY} once synced and
 * started, and a {@code RESULT bench=shards-event} line, stamped with
 * {@code System.nanoTime()} (one clock for all processes on Linux), for every change of
 * its shards. Commands: {@code measure <gen> [hold]} waits until the controller is idle,
 * counts the cached keys of the shards it runs, answers {@code shards-armed}, and answers
 * {@code shards-done} once every one of them was reconciled at that change number and the
 * controller is idle again, with when the first and the last of those reconciles ended;
 * with {@code hold}, the reconciles of that change number wait until {@code go}, and
 * {@code shards-held} answers once every cached object carries it (the whole backlog is
 * queued here); {@code leave} stops the controller (its membership drains and releases
 * its shards), answers {@code shards-left} with how long that took, and exits. End of
 * input is a leave.
 */
final class ShardBench {

	private final String identity;

	private final String workMode;

	private final long workMs;

	private final ApiServerClient client;

	private final ResourceWriter<KubernetesObject> writer;

	private final InformerFactory runtime;

	private final Informer<KubernetesObject> informer;

	private final Controller<KubernetesObject> controller;

	private final ShardMembershipOptions options;

	private volatile Measure measure;

	private ShardBench(Map<String, String> o) throws Exception {
		this.identity = o.get("identity");
		this.workMode = o.getOrDefault("work", "sleep");
		this.workMs = Long.parseLong(o.getOrDefault("workMs", "5"));
		String namespace = o.get("namespace");
		Subject.Target target = new Subject.Target(null, o.get("kubeconfig"), "configmaps", namespace, 500);
		JsonMapper mapper = JsonMapper.builder().build();
		this.client = ApiServerClient.create(Cluster.load(ListwatchRunner.settings(target)), RestClient.builder(),
				mapper, Clock.systemUTC());
		// as listwatch.connection.qps and burst set it in a Boot application (50 and 100
		// there); qps=0 for none
		double qps = Double.parseDouble(o.getOrDefault("qps", "0"));
		if (qps > 0) {
			this.client.setRequestBudget(RequestBudget.of(qps, Integer.parseInt(o.getOrDefault("burst", "100"))));
		}
		Resource resource = new Resource("", "v1", "configmaps", "ConfigMap", true, namespace);
		this.writer = this.client.writer(resource, KubernetesObject.class);
		this.runtime = new InformerFactory(Clock.systemUTC(), (event) -> {
		}, 2, Duration.ofSeconds(10));
		this.informer = this.runtime.informer("configmaps", KubernetesObject.class,
				this.client.listerWatcher(resource, KubernetesObject.class, ApiServerClient.Decoding.DEFAULTS),
				ListwatchRunner.options(target), List.of());
		this.options = new ShardMembershipOptions(o.get("prefix"), namespace, this.identity,
				Integer.parseInt(o.get("shards")), Duration.ofMillis(Long.parseLong(o.get("lease"))),
				Duration.ofMillis(Long.parseLong(o.get("renew"))), Duration.ofMillis(Long.parseLong(o.get("retry"))));
		this.controller = new Controller<>("shards", this.informer, this::reconcile,
				ControllerOptions.DEFAULTS.withWorkers(Integer.parseInt(o.get("workers"))), ObservationRegistry.NOOP);
		this.controller.shardBy((listener) -> ShardMembership.create(this.client, mapper, this.options, listener));
		this.controller.setApplicationEventPublisher((event) -> {
			if (event instanceof ShardsChangedEvent changed) {
				// stamped on the controller's event thread, just after the change took
				// effect
				BenchMain.result("shards-event", this.identity, "at", System.nanoTime(), "running",
						list(changed.shards()), "started", list(changed.started()), "stopped", list(changed.stopped()));
			}
		});
	}

	static void run(String[] args) throws Exception {
		Map<String, String> o = new HashMap<>();
		for (int i = 1; i < args.length; i++) {
			int eq = args[i].indexOf('=');
			o.put(args[i].substring(0, eq), args[i].substring(eq + 1));
		}
		new ShardBench(o).serve();
	}

	private void serve() throws Exception {
		this.informer.start();
		// as a context starts them: the informer, then (a later phase) the controller,
		// whose start starts the membership
		BenchMain.result("shards-start", this.identity, "at", System.nanoTime(), "lease", this.options.leaseName());
		this.controller.start();
		if (!this.informer.awaitSynced(Duration.ofSeconds(120))) {
			throw new IllegalStateException("not synced");
		}
		System.out.println("READY");
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = in.readLine()) != null) {
			String[] words = line.trim().split(" ");
			if (words[0].equals("measure")) {
				arm(Integer.parseInt(words[1]), words.length > 2 && words[2].equals("hold"));
			}
			else if (words[0].equals("go")) {
				this.measure.gate.countDown();
			}
			else if (words[0].equals("leave")) {
				break;
			}
		}
		leave();
	}

	/**
	 * The work of one key: the object as cached now, its change number, and one API
	 * write's worth of time.
	 */
	private Result reconcile(Request<KubernetesObject> request) throws Exception {
		KubernetesObject object = request.object().orElse(null);
		if (object == null) {
			return Result.done();
		}
		String gen = object.labels().getOrDefault("gen", "0");
		Measure current = this.measure;
		boolean measured = current != null && current.gen == Integer.parseInt(gen);
		if (measured) {
			// held until the driver says go (a backlog round); open otherwise
			current.gate.await();
		}
		long started = System.nanoTime();
		if (this.workMode.equals("patch")) {
			if (!gen.equals(object.labels().get("done"))) {
				this.writer.patch(object.namespace(), object.name(),
						ResourceWriter.Patch.merge("{\"metadata\":{\"labels\":{\"done\":\"" + gen + "\"}}}"));
			}
		}
		else if (this.workMs > 0) {
			Thread.sleep(this.workMs);
		}
		if (measured) {
			current.reconciled(request.key(), System.nanoTime() - started);
		}
		return Result.done();
	}

	/**
	 * Waits until nothing is queued or reconciled, then counts this replica's keys: the
	 * cached keys of the shards it runs.
	 */
	private void arm(int gen, boolean hold) throws InterruptedException {
		ControllerStatus status = idle();
		SortedSet<Integer> running = this.controller.shardMembership().orElseThrow().status().running();
		Set<String> mine = this.informer.lister()
			.keys()
			.stream()
			.filter((key) -> running.contains(this.options.shardOf(key)))
			.collect(Collectors.toSet());
		Measure next = new Measure(gen, mine, status, hold);
		this.measure = next;
		BenchMain.result("shards-armed", this.identity, "gen", gen, "expected", mine.size(), "running", list(running),
				"depth", status.depth(), "processing", status.processing());
		if (mine.isEmpty()) {
			next.finish();
		}
		if (hold) {
			Thread held = new Thread(() -> awaitChanged(gen), "shards-held");
			held.setDaemon(true);
			held.start();
		}
	}

	/**
	 * Answers {@code shards-held} once every cached object carries the change number: the
	 * whole backlog is queued (or held by a worker) here.
	 */
	private void awaitChanged(int gen) {
		String label = String.valueOf(gen);
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
		try {
			while (System.nanoTime() < end) {
				List<KubernetesObject> all = this.informer.lister().list();
				if (all.stream().allMatch((o) -> label.equals(o.labels().get("gen")))) {
					BenchMain.result("shards-held", this.identity, "gen", gen, "at", System.nanoTime(), "cached",
							all.size());
					return;
				}
				Thread.sleep(5);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Waits until nothing is queued or reconciled (at most a minute); the status then.
	 */
	private ControllerStatus idle() throws InterruptedException {
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		ControllerStatus status = this.controller.status();
		while ((status.depth() > 0 || status.processing() > 0) && System.nanoTime() < end) {
			Thread.sleep(5);
			status = this.controller.status();
		}
		return status;
	}

	private void leave() throws InterruptedException {
		long at = System.nanoTime();
		boolean inTime = this.controller.stop(Duration.ofSeconds(30));
		long stopped = System.nanoTime();
		BenchMain.result("shards-left", this.identity, "at", at, "stoppedAt", stopped, "ms",
				String.format("%.1f", (stopped - at) / 1e6), "inTime", inTime);
		this.informer.stop();
		this.runtime.close();
		this.client.close();
		System.out.flush();
		System.exit(0);
	}

	private static String list(Collection<Integer> shards) {
		return shards.isEmpty() ? "-" : shards.stream().map(String::valueOf).collect(Collectors.joining(","));
	}

	/** One measured change of every key: this replica's part of it. */
	private final class Measure {

		final int gen;

		final Set<String> expected;

		final Set<String> done = ConcurrentHashMap.newKeySet();

		final AtomicInteger mineDone = new AtomicInteger();

		final AtomicLong first = new AtomicLong(Long.MAX_VALUE);

		final AtomicLong last = new AtomicLong();

		final ControllerStatus before;

		final long cpu0 = BenchMain.processCpuNanos();

		final AtomicInteger finished = new AtomicInteger();

		final LongAdder work = new LongAdder();

		final LongAdder worked = new LongAdder();

		/** What the reconciles of this change wait for: open unless held. */
		final CountDownLatch gate;

		Measure(int gen, Set<String> expected, ControllerStatus before, boolean hold) {
			this.gen = gen;
			this.expected = expected;
			this.before = before;
			this.gate = new CountDownLatch(hold ? 1 : 0);
		}

		/**
		 * A reconcile of a key at this change number ended now, after its work took
		 * {@code workNanos} (the held wait of a backlog round not included).
		 */
		void reconciled(String key, long workNanos) {
			this.work.add(workNanos);
			this.worked.increment();
			if (!this.done.add(key)) {
				return;
			}
			long now = System.nanoTime();
			this.first.accumulateAndGet(now, Math::min);
			this.last.accumulateAndGet(now, Math::max);
			if (this.expected.contains(key) && this.mineDone.incrementAndGet() == this.expected.size()) {
				finish();
			}
		}

		/**
		 * Every key of this replica was reconciled at this change: answers once the
		 * controller is idle again, so that the counts hold every reconcile of the round
		 * (the last one's own, and those its writes caused).
		 */
		void finish() {
			if (this.finished.getAndIncrement() > 0) {
				return;
			}
			Thread report = new Thread(() -> {
				try {
					report(idle());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}, "shards-report");
			report.setDaemon(true);
			report.start();
		}

		private void report(ControllerStatus after) {
			long cpu = BenchMain.processCpuNanos() - this.cpu0;
			long reconciles = after.reconciles() - this.before.reconciles();
			BenchMain.result("shards-done", ShardBench.this.identity, "gen", this.gen, "keys", this.done.size(),
					"expected", this.expected.size(), "first",
					(this.first.get() == Long.MAX_VALUE) ? 0 : this.first.get(), "last", this.last.get(), "reconciles",
					reconciles, "worked", this.worked.sum(), "workUs",
					String.format("%.1f", this.work.sum() / 1e3 / Math.max(1, this.worked.sum())), "cpuMs",
					String.format("%.0f", cpu / 1e6), "failures", after.failures() - this.before.failures());
		}

	}

}
