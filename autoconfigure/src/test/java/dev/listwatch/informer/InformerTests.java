package dev.listwatch.informer;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.listwatch.IndexFunction;
import dev.listwatch.Items;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Resource;
import dev.listwatch.Status;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStream;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.event.WatchSyncedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@link Informer} over a scripted lister-watcher of strings {@code name@rv}: objects
 * it cannot hold are never taken for deleted, it stops and starts again with nothing
 * lost, a stopped watch never writes its cache, and watches stop without waiting for one
 * another.
 */
class InformerTests {

	private static final Duration WAIT = InformerHarness.WAIT;

	@RegisterExtension
	final InformerHarness harness = new InformerHarness();

	@Test
	void itsStatusGoesFromStartingThroughWatchingToStopped() {
		Script script = new Script().list("10", "a@1");
		Informer<String> informer = informer("things", script);
		WatchStatus before = informer.status();
		assertThat(before.watch()).isEqualTo("things");
		assertThat(before.state()).isEqualTo(WatchStatus.State.STARTING);
		assertThat(before.running()).isFalse();
		assertThat(before.synced()).isFalse();
		informer.start();
		assertThat(next(2)).containsExactlyInAnyOrder("ADDED a@1 initial", "SYNCED 1");
		await().atMost(WAIT).until(() -> informer.status().state() == WatchStatus.State.WATCHING);
		WatchStatus watching = informer.status();
		assertThat(watching.running()).isTrue();
		assertThat(watching.synced()).isTrue();
		assertThat(watching.objects()).isEqualTo(1);
		assertThat(watching.lastResourceVersion()).isEqualTo("10");
		assertThat(watching.lists().count()).isEqualTo(1);
		assertThat(watching.syncs().count()).isEqualTo(1);
		assertThat(watching.watched().type()).isEqualTo(String.class.getName());
		informer.stop();
		WatchStatus stopped = informer.status();
		assertThat(stopped.state()).isEqualTo(WatchStatus.State.STOPPED);
		assertThat(stopped.running()).isFalse();
		assertThat(stopped.synced()).as("the cache stays whole").isTrue();
	}

	@Test
	void aListenerOfTheSyncSeesTheListerSyncedAndTheWholeCache() throws InterruptedException {
		java.util.concurrent.atomic.AtomicReference<String> seen = new java.util.concurrent.atomic.AtomicReference<>();
		CountDownLatch heard = new CountDownLatch(1);
		try (InformerFactory factory = new InformerFactory(Clock.systemUTC(), (event) -> {
			if (event instanceof WatchSyncedEvent synced && synced.getSource() instanceof Informer<?> informer) {
				seen.set(informer.lister().hasSynced() + " " + informer.lister().list().size());
				heard.countDown();
			}
		}, 1, Duration.ofMinutes(1))) {
			Informer<String> informer = factory.informer("things", String.class, new Script().list("10", "a@1", "b@1"),
					options(), List.of());
			this.harness.stopsAfter(informer);
			informer.start();
			assertThat(heard.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(seen.get()).isEqualTo("true 2");
			informer.stop();
		}
	}

	@Test
	void anObjectThatStopsBindingKeepsItsLastStateAndIsNeverTakenForDeleted() {
		Script script = new Script().list("10", "a@1", "b@1");
		Informer<String> informer = informer("things", script);
		informer.start();
		assertThat(next(3)).containsExactlyInAnyOrder("ADDED a@1 initial", "ADDED b@1 initial", "SYNCED 2");
		script.watch().send(WatchEvent.unbindable(WatchEvent.Type.MODIFIED, unbindable("a", "11")));
		script.watch().send(event(WatchEvent.Type.MODIFIED, "b@12"));
		assertThat(next(1)).containsExactly("MODIFIED b@12 old=b@1");
		assertThat(informer.lister().get("ns", "a")).contains("a@1");
		assertThat(informer.status().unbindable()).extracting(UnbindableObject::key).containsExactly("ns/a");
		// 410: the relist lists a as unbindable again, b as it is
		script.list(new ObjectList<>(Items.zip(List.of(meta("b", "12")), List.of("b@12")), "13", null, null,
				List.of(unbindable("a", "11"))));
		script.watch()
			.send(new WatchEvent<>(WatchEvent.Type.ERROR, null, null, new Status(410, "Expired", "too old"), false));
		await().atMost(WAIT)
			.until(() -> informer.status().relists() == 1 && "13".equals(informer.status().lastResourceVersion()));
		assertThat(informer.lister().get("ns", "a")).as("the server has it: no DELETED").contains("a@1");
		assertThat(this.harness.published()).noneMatch((event) -> event.startsWith("DELETED"));
		assertThat(informer.status().unbindable().size()).isEqualTo(1);
		// it binds again: one MODIFIED from the last state held
		script.watch().send(event(WatchEvent.Type.MODIFIED, "a@14"));
		assertThat(next(1)).containsExactly("MODIFIED a@14 old=a@1");
		assertThat(informer.status().unbindable()).isEmpty();
		// it stops binding, then is deleted: DELETED with the last state held
		script.watch().send(WatchEvent.unbindable(WatchEvent.Type.MODIFIED, unbindable("a", "15")));
		script.watch().send(WatchEvent.unbindable(WatchEvent.Type.DELETED, unbindable("a", "16")));
		assertThat(next(1)).containsExactly("DELETED a@14");
		assertThat(informer.status().unbindable()).isEmpty();
		assertThat(informer.lister().get("ns", "a")).isEmpty();
	}

	@Test
	void anObjectThatNeverBoundIsReportedButNeitherCachedNorPublished() {
		Script script = new Script().list(new ObjectList<>(Items.zip(List.of(meta("a", "1")), List.of("a@1")), "10",
				null, null, List.of(unbindable("u", "2"))));
		Informer<String> informer = informer("things", script);
		informer.start();
		assertThat(next(2)).containsExactlyInAnyOrder("ADDED a@1 initial", "SYNCED 1");
		assertThat(informer.status().unbindable()).extracting(UnbindableObject::key).containsExactly("ns/u");
		assertThat(informer.lister().get("ns", "u")).isEmpty();
		// gone from the next list: gone from the report, and nothing was ever published
		// for it
		script.list("20", "a@1");
		script.watch()
			.send(new WatchEvent<>(WatchEvent.Type.ERROR, null, null, new Status(410, "Expired", "too old"), false));
		await().atMost(WAIT).until(() -> informer.status().unbindable().size() == 0);
		assertThat(this.harness.published()).noneMatch((event) -> event.contains("u@"));
	}

	@Test
	void stopThenStartResumesFromTheLastResourceVersionWithoutAListAndEventsFlowAgain() {
		Script script = new Script().list("10", "a@1");
		Informer<String> informer = informer("things", script);
		informer.start();
		assertThat(next(2)).containsExactlyInAnyOrder("ADDED a@1 initial", "SYNCED 1");
		script.watch().send(event(WatchEvent.Type.MODIFIED, "a@11"));
		assertThat(next(1)).containsExactly("MODIFIED a@11 old=a@1");
		await().atMost(WAIT).until(() -> "11".equals(informer.status().lastResourceVersion()));
		informer.stop();
		assertThat(informer.isRunning()).isFalse();
		informer.start();
		Stream resumed = script.watch();
		assertThat(script.watchResourceVersions).containsExactly("10", "11");
		await().atMost(WAIT).until(() -> informer.status().state() == WatchStatus.State.WATCHING);
		resumed.send(event(WatchEvent.Type.ADDED, "b@15"));
		resumed.send(event(WatchEvent.Type.MODIFIED, "a@21"));
		assertThat(next(2)).containsExactly("ADDED b@15", "MODIFIED a@21 old=a@11");
		assertThat(script.listsStarted).as("no list after the restart").hasValue(1);
		assertThat(this.harness.published()).filteredOn((event) -> event.startsWith("SYNCED")).hasSize(1);
		assertThat(informer.lister().hasSynced()).isTrue();
		assertThat(informer.status().objects()).isEqualTo(2);
	}

	@Test
	void aStartWithAResyncPendingListsNoOlderThanTheCacheNotAtAnyFreshness() {
		// an Error strikes the watch's thread while it applies an event: a resync is
		// pending when the application stops the watch, which backs off for long
		java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
		Store<String> store = new Store<>(Map.of("size", (IndexFunction<String>) (object, meta) -> {
			if (object.startsWith("huge") && once.compareAndSet(false, true)) {
				throw new OutOfMemoryError("Java heap space (test)");
			}
			return List.of();
		}));
		InformerOptions longBackoff = new InformerOptions(null, null, null, false, Duration.ofMinutes(5),
				Duration.ofMinutes(10), Duration.ofMinutes(3), new InformerOptions.BackoffPolicy(Duration.ofMinutes(10),
						Duration.ofMinutes(10), 2.0, 0.0, Duration.ofMinutes(2)),
				null, true);
		Script script = new Script().list("10", "a@1");
		Informer<String> informer = new Informer<>("things", String.class, single(script), store, longBackoff,
				this.harness.runtime().runtime());
		this.harness.stopsAfter(informer);
		informer.start();
		assertThat(next(2)).containsExactlyInAnyOrder("ADDED a@1 initial", "SYNCED 1");
		script.watch().send(event(WatchEvent.Type.ADDED, "huge@11"));
		await().atMost(WAIT).until(() -> informer.status().restarts(WatchStatus.RestartReason.FATAL) == 1);
		informer.stop();
		script.list("12", "a@1", "huge@11");
		informer.start();
		await().atMost(WAIT).until(() -> script.listOptions.size() == 2);
		ListOptions relist = script.listOptions.get(1);
		assertThat(relist.resourceVersion()).as("the cache's resourceVersion, not 0").isEqualTo("10");
		assertThat(relist.resourceVersionMatch()).isEqualTo(ListOptions.NOT_OLDER_THAN);
		assertThat(next(1)).containsExactly("ADDED huge@11");
		assertThat(script.listOptions.get(0).resourceVersion()).as("the very first list: any freshness").isEqualTo("0");
	}

	@Test
	void anInformerThatRunsOnlyUnderAConditionStartsEachRunFromAFreshSyncAndIsNotSyncedMeanwhile()
			throws InterruptedException {
		// a leader-only watch: each term lists afresh, and a follower's cache never
		// passes for current
		java.util.concurrent.atomic.AtomicBoolean leader = new java.util.concurrent.atomic.AtomicBoolean();
		Script script = new Script().list("10", "a@1");
		Informer<String> informer = informer("things", script);
		informer.runOnlyWhen(leader::get);
		informer.start();
		assertThat(informer.isRunning()).as("not leader: whoever starts it, it stays stopped").isFalse();
		assertThat(script.listsStarted).hasValue(0);
		leader.set(true);
		informer.start();
		assertThat(next(2)).containsExactlyInAnyOrder("ADDED a@1 initial", "SYNCED 1");
		assertThat(informer.lister().hasSynced()).isTrue();
		informer.stop();
		leader.set(false);
		assertThat(informer.lister().hasSynced()).as("stopped: its cache is of the last term").isFalse();
		assertThat(informer.status().synced()).isFalse();
		assertThat(informer.awaitSynced(Duration.ofMillis(50))).isFalse();
		assertThat(informer.lister().get("ns", "a")).as("still readable").contains("a@1");

		// the next term: a list no older than the cache, its difference, then the sync
		// again
		CountDownLatch release = script.hangingList("20", "a@2", "b@1");
		leader.set(true);
		informer.start();
		assertThat(script.listStarted(2)).isTrue();
		assertThat(script.listOptions.get(1).resourceVersion()).isEqualTo("10");
		assertThat(script.listOptions.get(1).resourceVersionMatch()).isEqualTo(ListOptions.NOT_OLDER_THAN);
		assertThat(informer.lister().hasSynced()).as("before this term's list").isFalse();
		release.countDown();
		assertThat(next(3)).containsExactly("ADDED b@1", "MODIFIED a@2 old=a@1", "SYNCED 2");
		assertThat(informer.awaitSynced(WAIT)).isTrue();
		assertThat(informer.lister().hasSynced()).isTrue();
		assertThat(informer.status().synced()).isTrue();
	}

	@Test
	void eventsWaitingForListenersAtAStopArePublishedAfterTheStart() throws InterruptedException {
		CountDownLatch listenerBusy = new CountDownLatch(1);
		CountDownLatch releaseListener = new CountDownLatch(1);
		List<String> seen = new CopyOnWriteArrayList<>();
		InformerFactory slow = new InformerFactory(Clock.systemUTC(), (event) -> {
			if (event instanceof ResourceEvent<?> resourceEvent) {
				seen.add(resourceEvent.key());
				listenerBusy.countDown();
				await().atMost(WAIT).until(() -> releaseListener.getCount() == 0);
			}
		}, 1, Duration.ofMinutes(1));
		try {
			Script script = new Script().list("10", "a@1", "b@1", "c@1");
			Informer<String> informer = new Informer<>("things", String.class, single(script), new Store<>(), options(),
					slow.runtime());
			informer.start();
			assertThat(listenerBusy.await(10, TimeUnit.SECONDS)).isTrue();
			await().atMost(WAIT).until(() -> informer.status().backlog() == 3);
			informer.stop();
			releaseListener.countDown();
			assertThat(informer.status().backlog()).as("kept for the next start").isEqualTo(3);
			informer.start();
			await().atMost(WAIT).until(() -> seen.size() == 3);
			assertThat(seen).containsExactlyInAnyOrder("ns/a", "ns/b", "ns/c");
			informer.stop();
		}
		finally {
			slow.close();
		}
	}

	@Test
	void aWatchStoppedInsideAListNeverWritesItsCache() throws InterruptedException {
		Script script = new Script().list("10", "a@1");
		Informer<String> informer = informer("things", script);
		informer.start();
		assertThat(next(2)).containsExactlyInAnyOrder("ADDED a@1 initial", "SYNCED 1");
		// the relist after a 410 hangs in a request that ignores interrupts
		CountDownLatch release = script.hangingList("20", "b@2");
		script.watch()
			.send(new WatchEvent<>(WatchEvent.Type.ERROR, null, null, new Status(410, "Expired", "too old"), false));
		assertThat(script.listStarted(2)).isTrue();
		CountDownLatch stopped = new CountDownLatch(1);
		informer.stop(stopped::countDown);
		assertThat(stopped.getCount()).as("its thread is still inside the list").isEqualTo(1);
		release.countDown();
		assertThat(stopped.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(informer.lister().get("ns", "a")).as("the cache is as it was").contains("a@1");
		assertThat(informer.lister().get("ns", "b")).isEmpty();
		assertThat(this.harness.published()).noneMatch((event) -> event.contains("b@2") || event.startsWith("DELETED"));
	}

	@Test
	void aRunThatOutlivesTheStopWaitDoesNotMarkTheRunAfterItStopped() throws InterruptedException {
		Script script = new Script().list("10", "a@1");
		Informer<String> informer = informer("things", script);
		informer.start();
		assertThat(next(2)).containsExactlyInAnyOrder("ADDED a@1 initial", "SYNCED 1");
		// the relist after a 410 hangs in a request that ignores interrupts, past the
		// stop's wait
		CountDownLatch release = script.hangingList("20", "a@1");
		script.watch()
			.send(new WatchEvent<>(WatchEvent.Type.ERROR, null, null, new Status(410, "Expired", "too old"), false));
		assertThat(script.listStarted(2)).isTrue();
		CountDownLatch stopped = new CountDownLatch(1);
		informer.stop(stopped::countDown);
		script.list("30", "a@1");
		// waits 10 s for the stuck run, then runs all the same
		informer.start();
		await().atMost(WAIT)
			.until(() -> informer.status().state() == WatchStatus.State.WATCHING
					&& "30".equals(informer.status().lastResourceVersion()));
		release.countDown();
		assertThat(stopped.await(10, TimeUnit.SECONDS)).as("the stuck run ended").isTrue();
		assertThat(informer.status().state()).as("the run that replaced it is watching")
			.isEqualTo(WatchStatus.State.WATCHING);
		assertThat(informer.status().running()).isTrue();
	}

	@Test
	void watchesStopInParallel() throws InterruptedException {
		List<CountDownLatch> releases = new ArrayList<>();
		List<Informer<String>> hung = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			Script script = new Script();
			releases.add(script.hangingList("10", "a@1"));
			Informer<String> informer = informer("things" + i, script);
			informer.start();
			assertThat(script.listStarted(1)).isTrue();
			hung.add(informer);
		}
		AtomicInteger stopped = new AtomicInteger();
		for (Informer<String> informer : hung) {
			// returns at once: each stop waits for nobody, so the lifecycle processor
			// stops them together
			informer.stop(stopped::incrementAndGet);
		}
		assertThat(stopped).hasValue(0);
		assertThat(hung).noneMatch(Informer::isRunning);
		releases.forEach(CountDownLatch::countDown);
		await().atMost(WAIT).until(() -> stopped.get() == 3);
		assertThat(hung).allMatch((informer) -> informer.status().objects() == 0);
	}

	// ---------------------------------------------------------------- helpers

	private static Map<@Nullable String, ListerWatcher<String>> single(ListerWatcher<String> listerWatcher) {
		Map<@Nullable String, ListerWatcher<String>> one = new HashMap<>();
		one.put(null, listerWatcher);
		return one;
	}

	private Informer<String> informer(String name, Script script) {
		Informer<String> informer = new Informer<>(name, String.class, single(script), new Store<>(), options(),
				this.harness.runtime().runtime());
		this.harness.stopsAfter(informer);
		return informer;
	}

	static InformerOptions options() {
		return new InformerOptions(null, null, null, false, Duration.ofMinutes(5), Duration.ofMinutes(10),
				Duration.ofMinutes(3), new InformerOptions.BackoffPolicy(Duration.ofMillis(1), Duration.ofMillis(5),
						2.0, 0.0, Duration.ofMinutes(2)),
				null, true);
	}

	private List<String> next(int count) {
		return this.harness.next(count);
	}

	static ObjectMeta meta(String name, String resourceVersion) {
		return metaIn("ns", name, resourceVersion);
	}

	static ObjectMeta metaIn(String namespace, String name, String resourceVersion) {
		return new ObjectMeta(namespace, name, "uid-" + name, resourceVersion, Map.of());
	}

	static WatchEvent<String> event(WatchEvent.Type type, String object) {
		return eventIn("ns", type, object);
	}

	static WatchEvent<String> eventIn(String namespace, WatchEvent.Type type, String object) {
		String[] nameAndVersion = object.split("@");
		return new WatchEvent<>(type, object, metaIn(namespace, nameAndVersion[0], nameAndVersion[1]), null, false);
	}

	static UnbindableObject unbindable(String name, String resourceVersion) {
		return new UnbindableObject(meta(name, resourceVersion), "/spec/mode", "com.example.Thing",
				"not a valid value of Mode");
	}

	/**
	 * Lists answer from a queue of pages (the last one repeats); each watch is a fresh
	 * stream the test sends to. A hanging list ignores interrupts until released, as a
	 * slow server's may.
	 */
	static final class Script implements ListerWatcher<String> {

		private final String namespace;

		private final LinkedBlockingQueue<Object> lists = new LinkedBlockingQueue<>();

		final AtomicInteger listsStarted = new AtomicInteger();

		final List<ListOptions> listOptions = new CopyOnWriteArrayList<>();

		final List<String> watchResourceVersions = new CopyOnWriteArrayList<>();

		private volatile Object last;

		private volatile Stream current = new Stream();

		Script() {
			this("ns");
		}

		/** A script of one namespace's objects. */
		Script(String namespace) {
			this.namespace = namespace;
		}

		Script list(String resourceVersion, String... objects) {
			List<String> items = List.of(objects);
			List<ObjectMeta> metas = items.stream()
				.map((o) -> metaIn(this.namespace, o.split("@")[0], o.split("@")[1]))
				.toList();
			return list(new ObjectList<>(Items.zip(metas, items), resourceVersion, null, null));
		}

		Script list(ObjectList<String> page) {
			this.lists.add(page);
			return this;
		}

		CountDownLatch hangingList(String resourceVersion, String... objects) {
			CountDownLatch release = new CountDownLatch(1);
			List<String> items = List.of(objects);
			List<ObjectMeta> metas = items.stream().map((o) -> meta(o.split("@")[0], o.split("@")[1])).toList();
			this.lists
				.add(new Hanging(new ObjectList<>(Items.zip(metas, items), resourceVersion, null, null), release));
			return release;
		}

		boolean listStarted(int count) {
			await().atMost(WAIT).until(() -> this.listsStarted.get() >= count);
			return true;
		}

		/** The open watch, once the informer has opened one. */
		Stream watch() {
			await().atMost(WAIT).until(() -> this.current.opened && !this.current.closed);
			return this.current;
		}

		@Override
		@SuppressWarnings("unchecked")
		public ObjectList<String> list(ListOptions options) {
			this.listOptions.add(options);
			this.listsStarted.incrementAndGet();
			Object next = this.lists.poll();
			next = (next != null) ? next : this.last;
			this.last = next;
			if (next instanceof Hanging hanging) {
				while (true) {
					try {
						hanging.release().await();
						return hanging.page();
					}
					catch (InterruptedException ex) {
						// ignores interrupts
					}
				}
			}
			return (ObjectList<String>) next;
		}

		@Override
		public synchronized WatchStream<String> watch(ListOptions options) {
			this.watchResourceVersions.add(options.resourceVersion());
			Stream stream = this.current;
			if (stream.opened) {
				stream = new Stream();
				this.current = stream;
			}
			stream.opened = true;
			return stream;
		}

		@Override
		public Resource resource() {
			return new Resource("", "v1", "things", "Thing", true, this.namespace);
		}

		private record Hanging(ObjectList<String> page, CountDownLatch release) {
		}

	}

	/** A watch stream the test sends events to; silent until closed otherwise. */
	static final class Stream implements WatchStream<String> {

		private final LinkedBlockingQueue<WatchEvent<String>> events = new LinkedBlockingQueue<>();

		private volatile boolean closed;

		private volatile boolean opened;

		private WatchEvent<String> next;

		void send(WatchEvent<String> event) {
			this.events.add(event);
		}

		@Override
		public boolean hasNext() {
			while (this.next == null && !this.closed) {
				try {
					this.next = this.events.poll(20, TimeUnit.MILLISECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			}
			return this.next != null && !this.closed;
		}

		@Override
		public WatchEvent<String> next() {
			if (!hasNext()) {
				throw new NoSuchElementException();
			}
			WatchEvent<String> event = this.next;
			this.next = null;
			return event;
		}

		@Override
		public void close() {
			this.closed = true;
		}

	}

}
