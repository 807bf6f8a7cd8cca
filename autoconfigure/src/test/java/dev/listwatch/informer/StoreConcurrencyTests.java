package dev.listwatch.informer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;

import dev.listwatch.IndexFunction;
import dev.listwatch.Items;
import dev.listwatch.Lister;
import dev.listwatch.ObjectMeta;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * One writer and several readers hammer a store; readers check invariants that only a
 * torn state could break. Bounded iterations, no sleeps.
 */
class StoreConcurrencyTests {

	private static final int STABLE = 40;

	private static final int CHURN = 10;

	private static final int ROUNDS = 400;

	private static final int READERS = 3;

	record Obj(ObjectMeta meta) {
	}

	private static final IndexFunction<Obj> BY_GEN = (object, meta) -> List.of(meta.labels().getOrDefault("gen", ""));

	private final ExecutorService executor = Executors.newFixedThreadPool(READERS + 1);

	@AfterEach
	void shutdown() throws InterruptedException {
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
	}

	private static Obj obj(String namespace, String name, long rv, int epoch, int gen) {
		return new Obj(new ObjectMeta(namespace, name, "uid", Long.toString(rv),
				Map.of("epoch", Integer.toString(epoch), "gen", "g" + gen)));
	}

	@Test
	void readersNeverSeeTornStates() throws Exception {
		Store<Obj> store = new Store<>(Map.of("byGen", BY_GEN));
		Lister<Obj> lister = store.lister();
		long[] rv = { 1 };
		hammer((round) -> {
			// a relist: every stable object takes the round as its epoch
			List<ObjectMeta> metas = new ArrayList<>();
			List<Obj> objects = new ArrayList<>();
			for (int i = 0; i < STABLE; i++) {
				Obj object = obj("stable", "s" + i, rv[0]++, round, i % 3);
				metas.add(object.meta());
				objects.add(object);
			}
			store.replace(Items.zip(metas, objects));
			// events: move stable objects between index values (same epoch), churn
			// others
			for (int i = 0; i < STABLE; i++) {
				store.upsert(obj("stable", "s" + i, rv[0], round, (i + round + 1) % 3).meta(),
						obj("stable", "s" + i, rv[0]++, round, (i + round + 1) % 3));
			}
			for (int i = 0; i < CHURN; i++) {
				Obj churn = obj("churn", "c" + i, rv[0]++, round, round % 2);
				store.upsert(churn.meta(), churn);
				if ((i + round) % 2 == 0) {
					store.delete(churn.meta().key());
				}
			}
		}, () -> check(lister));
		assertThat(lister.list("stable")).hasSize(STABLE);
	}

	/**
	 * Runs {@link #ROUNDS} rounds of writes on one thread while {@link #READERS} threads
	 * check invariants until the writer is done; fails if a check fails or a reader never
	 * checked.
	 */
	private void hammer(IntConsumer round, Callable<Integer> check) throws Exception {
		CyclicBarrier start = new CyclicBarrier(READERS + 1);
		AtomicBoolean done = new AtomicBoolean();
		Future<Integer> writer = this.executor.submit(() -> {
			start.await();
			try {
				for (int r = 0; r < ROUNDS; r++) {
					round.accept(r);
				}
			}
			finally {
				done.set(true);
			}
			return ROUNDS;
		});
		List<Future<Long>> readers = new ArrayList<>();
		for (int r = 0; r < READERS; r++) {
			readers.add(this.executor.submit(() -> {
				start.await();
				long checks = 0;
				do {
					checks += check.call();
				}
				while (!done.get());
				return checks;
			}));
		}
		assertThat(writer.get(60, TimeUnit.SECONDS)).isEqualTo(ROUNDS);
		for (Future<Long> reader : readers) {
			assertThat(reader.get(60, TimeUnit.SECONDS)).isPositive();
		}
	}

	/** One pass of invariant checks; throws AssertionError on a torn state. */
	private static int check(Lister<Obj> lister) {
		List<Obj> stable = lister.list("stable");
		if (!stable.isEmpty()) {
			// a relist is all or nothing, and events never change the count of stable
			// objects
			assertThat(stable).hasSize(STABLE);
			assertThat(stable).extracting(o -> o.meta().labels().get("epoch"))
				.containsOnly(stable.get(0).meta().labels().get("epoch"));
			assertThat(stable).extracting(o -> o.meta().namespace()).containsOnly("stable");
		}
		for (int gen = 0; gen < 3; gen++) {
			// the index never lists a stale value (nor a key the map lacks: the counts
			// above would drop)
			String value = "g" + gen;
			assertThat(lister.byIndex("byGen", value))
				.allSatisfy(o -> assertThat(o.meta().labels()).containsEntry("gen", value));
			assertThat(lister.listByLabels("gen=" + value))
				.allSatisfy(o -> assertThat(o.meta().labels()).containsEntry("gen", value));
		}
		assertThat(lister.list("churn")).allSatisfy(o -> assertThat(o.meta().namespace()).isEqualTo("churn"));
		if (!stable.isEmpty()) {
			for (int i = 0; i < STABLE; i += 7) {
				// once the first relist is visible, stable keys never disappear, not even
				// during a swap
				assertThat(lister.get("stable", "s" + i)).isPresent();
			}
		}
		assertThat(lister.size()).isBetween(stable.isEmpty() ? 0 : STABLE, STABLE + CHURN);
		return 1;
	}

	@Test
	void readersNeverSeeANamespacesRelistHalfApplied() throws Exception {
		Store<Obj> store = new Store<>(Map.of("byGen", BY_GEN));
		Lister<Obj> lister = store.lister();
		long[] rv = { 1 };
		hammer((round) -> {
			// each namespace in turn: every object takes the round as its epoch, and the
			// names shift, so that each relist adds, changes and deletes
			String namespace = (round % 2 == 0) ? "a" : "b";
			List<ObjectMeta> metas = new ArrayList<>();
			List<Obj> objects = new ArrayList<>();
			for (int i = 0; i < STABLE; i++) {
				Obj object = obj(namespace, "s" + ((i + round) % (STABLE + CHURN)), rv[0]++, round, i % 3);
				metas.add(object.meta());
				objects.add(object);
			}
			store.replace(Items.zip(metas, objects), namespace);
		}, () -> {
			for (String namespace : List.of("a", "b")) {
				List<Obj> objects = lister.list(namespace);
				if (!objects.isEmpty()) {
					assertThat(objects).hasSize(STABLE);
					assertThat(objects).extracting((o) -> o.meta().labels().get("epoch"))
						.containsOnly(objects.get(0).meta().labels().get("epoch"));
				}
			}
			for (int gen = 0; gen < 3; gen++) {
				String value = "g" + gen;
				assertThat(lister.byIndex("byGen", value))
					.allSatisfy((o) -> assertThat(o.meta().labels()).containsEntry("gen", value));
			}
			assertThat(lister.size()).isIn(0, STABLE, 2 * STABLE);
			return 1;
		});
		assertThat(lister.list("a")).hasSize(STABLE);
		assertThat(lister.list("b")).hasSize(STABLE);
		assertThat(lister.byIndex("byGen", "g0")).hasSize(2 * ((STABLE + 2) / 3));
	}

	@Test
	void readsProceedWhileWriterRunsASlowIndexFunction() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		IndexFunction<Obj> slow = (object, meta) -> {
			if (meta.name().equals("slow")) {
				entered.countDown();
				try {
					if (!release.await(30, TimeUnit.SECONDS)) {
						throw new IllegalStateException("never released");
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}
			return List.of(meta.name());
		};
		Store<Obj> store = new Store<>(Map.of("byName", slow));
		Obj fast = obj("default", "fast", 1, 0, 0);
		store.upsert(fast.meta(), fast);
		Obj slowObject = obj("default", "slow", 2, 0, 0);
		Future<Obj> writer = this.executor.submit(() -> store.upsert(slowObject.meta(), slowObject));
		assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
		assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
			assertThat(store.lister().list()).containsExactly(fast);
			assertThat(store.lister().byIndex("byName", "fast")).containsExactly(fast);
			assertThat(store.lister().get("default/slow")).isEmpty();
			assertThat(store.keys()).containsExactly("default/fast");
		});
		release.countDown();
		assertThat(writer.get(30, TimeUnit.SECONDS)).isNull();
		assertThat(store.lister().byIndex("byName", "slow")).containsExactly(slowObject);
	}

	@Test
	void writersFromSeveralThreadsAreSerialised() throws Exception {
		Store<Obj> store = new Store<>(Map.of("byGen", BY_GEN));
		int writers = 3;
		int perWriter = 500;
		CyclicBarrier start = new CyclicBarrier(writers);
		List<Future<?>> futures = new ArrayList<>();
		for (int w = 0; w < writers; w++) {
			int id = w;
			futures.add(this.executor.submit(() -> {
				start.await();
				for (int i = 0; i < perWriter; i++) {
					Obj object = obj("ns" + id, "o" + (i % 50), i, 0, i % 4);
					store.upsert(object.meta(), object);
					if (i % 5 == 0) {
						store.delete(object.meta().key());
					}
				}
				return null;
			}));
		}
		for (Future<?> future : futures) {
			future.get(60, TimeUnit.SECONDS);
		}
		// index and map agree after concurrent writers
		int indexed = 0;
		for (int gen = 0; gen < 4; gen++) {
			String value = "g" + gen;
			List<Obj> filed = store.lister().byIndex("byGen", value);
			assertThat(filed).allSatisfy(o -> assertThat(o.meta().labels()).containsEntry("gen", value));
			indexed += filed.size();
		}
		assertThat(indexed).isEqualTo(store.size());
		int byNamespace = 0;
		for (int w = 0; w < writers; w++) {
			byNamespace += store.lister().list("ns" + w).size();
		}
		assertThat(byNamespace).isEqualTo(store.size());
	}

}
