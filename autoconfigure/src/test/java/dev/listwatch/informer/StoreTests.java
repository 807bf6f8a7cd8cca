package dev.listwatch.informer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.listwatch.IndexFunction;
import dev.listwatch.Items;
import dev.listwatch.Lister;
import dev.listwatch.ObjectList;
import dev.listwatch.ObjectMeta;
import dev.listwatch.WatchIndex;
import dev.listwatch.WatchStatus.IndexFailure;
import dev.listwatch.informer.Store.Diff;
import dev.listwatch.informer.Store.Entry;
import dev.listwatch.informer.Store.Update;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

class StoreTests {

	/** A test object: its meta and a payload. */
	record Obj(ObjectMeta meta, String data) {
	}

	static final IndexFunction<Obj> BY_APP = (object, meta) -> {
		String app = meta.labels().get("app");
		return (app != null) ? List.of(app) : List.of();
	};

	static final IndexFunction<Obj> BY_TOKENS = (object, meta) -> List.of(object.data().split(" "));

	private final Store<Obj> store = new Store<>(Map.of("byApp", BY_APP, "byToken", BY_TOKENS));

	private final Lister<Obj> lister = this.store.lister();

	static Obj obj(String namespace, String name, String rv, String labels, String data) {
		return new Obj(new ObjectMeta(namespace, name, "uid-" + name, rv, LabelSelectorTests.labels(labels)), data);
	}

	private Obj put(Obj object) {
		return this.store.upsert(object.meta(), object);
	}

	@Test
	void upsertReturnsPreviousAndGetFindsByKey() {
		Obj a1 = obj("default", "a", "1", "app=web", "x");
		Obj a2 = obj("default", "a", "2", "app=web", "y");
		assertThat(put(a1)).isNull();
		assertThat(put(a2)).isSameAs(a1);
		assertThat(this.store.get("default/a")).isSameAs(a2);
		assertThat(this.store.meta("default/a").resourceVersion()).isEqualTo("2");
		assertThat(this.lister.get("default", "a")).containsSame(a2);
		assertThat(this.lister.get("default/a")).containsSame(a2);
		assertThat(this.lister.get("other", "a")).isEmpty();
		assertThat(this.store.size()).isEqualTo(1);
		assertThat(this.store.keys()).containsExactly("default/a");
	}

	@Test
	void deleteReturnsRemovedAndClearsIndexes() {
		Obj a = obj("default", "a", "1", "app=web", "x y");
		put(a);
		assertThat(this.store.delete("default/a")).isSameAs(a);
		assertThat(this.store.delete("default/a")).isNull();
		assertThat(this.store.size()).isZero();
		assertThat(this.lister.byIndex("byApp", "web")).isEmpty();
		assertThat(this.store.indexValues("byApp")).isEmpty();
		assertThat(this.store.indexValues("byToken")).isEmpty();
		assertThat(this.store.indexValues(WatchIndex.NAMESPACE)).isEmpty();
	}

	@Test
	void clusterScopedObjectsAreKeyedByNameAndFiledUnderEmptyNamespace() {
		Obj node = obj(null, "node-1", "1", "", "x");
		Obj pod = obj("default", "p", "1", "", "x");
		put(node);
		put(pod);
		assertThat(this.store.keys()).containsExactlyInAnyOrder("node-1", "default/p");
		assertThat(this.lister.get(null, "node-1")).containsSame(node);
		assertThat(this.lister.get("", "node-1")).containsSame(node);
		assertThat(this.lister.get("node-1")).containsSame(node);
		assertThat(this.lister.byIndex(WatchIndex.NAMESPACE, "")).containsExactly(node);
		assertThat(this.lister.list(null)).containsExactlyInAnyOrder(node, pod);
		assertThat(this.lister.list("")).containsExactlyInAnyOrder(node, pod);
		assertThat(this.lister.list("default")).containsExactly(pod);
	}

	@Test
	void namespaceIndexAndListByNamespace() {
		Obj a = obj("ns1", "a", "1", "app=web", "x");
		Obj b = obj("ns1", "b", "1", "app=db", "x");
		Obj c = obj("ns2", "a", "1", "app=web", "x");
		put(a);
		put(b);
		put(c);
		assertThat(this.lister.list("ns1")).containsExactlyInAnyOrder(a, b);
		assertThat(this.lister.list("ns2")).containsExactly(c);
		assertThat(this.lister.list("ns3")).isEmpty();
		assertThat(this.lister.byIndex("namespace", "ns1")).containsExactlyInAnyOrder(a, b);
		assertThat(this.lister.list("ns1", "app=web")).containsExactly(a);
		assertThat(this.lister.list(null, "app=web")).containsExactlyInAnyOrder(a, c);
		assertThat(this.lister.listByLabels("app in (web,db),app!=db")).containsExactlyInAnyOrder(a, c);
		assertThat(this.lister.listByLabels("")).hasSize(3);
		assertThat(this.lister.list()).containsExactlyInAnyOrder(a, b, c);
		assertThat(this.lister.size()).isEqualTo(3);
		this.store.delete("ns1/a");
		assertThat(this.lister.list("ns1")).containsExactly(b);
		assertThat(this.store.indexValues("namespace")).containsExactlyInAnyOrder("ns1", "ns2");
		this.store.delete("ns2/a");
		assertThat(this.store.indexValues("namespace")).containsExactly("ns1");
	}

	@Test
	void indexFollowsLabelChanges() {
		Obj v1 = obj("default", "a", "1", "app=web", "x");
		put(v1);
		put(obj("default", "b", "1", "app=web", "x"));
		assertThat(this.lister.byIndex("byApp", "web")).hasSize(2);
		Obj v2 = obj("default", "a", "2", "app=db", "x");
		put(v2);
		assertThat(this.lister.byIndex("byApp", "web")).extracting(o -> o.meta().name()).containsExactly("b");
		assertThat(this.lister.byIndex("byApp", "db")).containsExactly(v2);
		Obj v3 = obj("default", "a", "3", "", "x");
		put(v3);
		assertThat(this.lister.byIndex("byApp", "db")).isEmpty();
		assertThat(this.store.indexValues("byApp")).containsExactly("web");
		assertThat(this.lister.listByLabels("app")).extracting(o -> o.meta().name()).containsExactly("b");
		assertThat(this.lister.listByLabels("!app")).containsExactly(v3);
	}

	@Test
	void multiValuedIndexMovesOutOfDroppedValuesOnly() {
		put(obj("default", "a", "1", "", "red green"));
		put(obj("default", "b", "1", "", "green"));
		assertThat(this.lister.byIndex("byToken", "green")).hasSize(2);
		put(obj("default", "a", "2", "", "green blue blue"));
		assertThat(this.lister.byIndex("byToken", "red")).isEmpty();
		assertThat(this.lister.byIndex("byToken", "green")).hasSize(2);
		assertThat(this.lister.byIndex("byToken", "blue")).extracting(o -> o.meta().name()).containsExactly("a");
		this.store.delete("default/b");
		assertThat(this.lister.byIndex("byToken", "green")).extracting(o -> o.meta().name()).containsExactly("a");
		assertThat(this.store.indexValues("byToken")).containsExactlyInAnyOrder("green", "blue");
	}

	@Test
	void namespaceChangeOfSameKeyIsImpossibleButMovesBetweenNamespacesByKey() {
		put(obj("ns1", "a", "1", "", "x"));
		put(obj("ns2", "a", "1", "", "x"));
		assertThat(this.store.keys()).containsExactlyInAnyOrder("ns1/a", "ns2/a");
		this.store.delete("ns1/a");
		assertThat(this.lister.list("ns1")).isEmpty();
		assertThat(this.lister.list("ns2")).hasSize(1);
	}

	@Test
	void unknownIndexIsAnError() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.lister.byIndex("nope", "x"))
			.withMessageContaining("nope")
			.withMessageContaining("namespace");
		assertThat(this.lister.indexNames()).containsExactlyInAnyOrder("namespace", "byApp", "byToken");
		assertThat(this.lister.indexNames()).first().isEqualTo("namespace");
	}

	@Test
	void malformedSelectorIsAnError() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.lister.listByLabels("app in (web"))
			.withMessageContaining("app in (web");
	}

	@Test
	void reservedAndDuplicateIndexNamesAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Store<Obj>(Map.of("namespace", BY_APP)));
		assertThatIllegalArgumentException().isThrownBy(() -> WatchIndex.of("w", "namespace", BY_APP));
		assertThatIllegalArgumentException().isThrownBy(
				() -> Store.forWatch("w", List.of(WatchIndex.of("w", "i", BY_APP), WatchIndex.of("w", "i", BY_APP))))
			.withMessageContaining("'i'");
	}

	@Test
	void watchIndexRequiresNames() {
		assertThatIllegalArgumentException().isThrownBy(() -> WatchIndex.of(" ", "i", BY_APP));
		assertThatIllegalArgumentException().isThrownBy(() -> WatchIndex.of("w", "", BY_APP));
		org.assertj.core.api.Assertions.assertThatNullPointerException()
			.isThrownBy(() -> WatchIndex.of("w", "i", null));
		assertThat(WatchIndex.of("configmaps", "byApp", BY_APP).watch()).isEqualTo("configmaps");
	}

	@Test
	void forWatchTakesOnlyThatWatchsIndexes() {
		Store<Obj> built = Store.forWatch("configmaps",
				List.of(WatchIndex.of("configmaps", "byApp", BY_APP), WatchIndex.of("pods", "byToken", BY_TOKENS)));
		assertThat(built.indexNames()).containsExactly("namespace", "byApp");
	}

	@Test
	void indexFunctionThatThrowsOnUpsertLeavesObjectCachedButUnfiledInThatIndexOnly() {
		Store<Obj> picked = new Store<>(index(Map.of("byData", picky(), "byApp", BY_APP)));
		Obj ok = obj("default", "a", "1", "app=web", "fine");
		Obj other = obj("default", "b", "1", "app=web", "fine");
		picked.upsert(ok.meta(), ok);
		picked.upsert(other.meta(), other);
		assertThat(picked.indexFailures()).isZero();
		assertThat(picked.lastIndexFailure()).isNull();
		Obj bad = obj("default", "a", "2", "app=db", "boom secret-value");
		assertThat(picked.upsert(bad.meta(), bad)).isSameAs(ok);
		assertThat(picked.get("default/a")).isSameAs(bad);
		assertThat(picked.lister().byIndex("byData", "fine")).containsExactly(other);
		assertThat(picked.indexValues("byData")).containsExactly("fine");
		assertThat(picked.lister().byIndex("byApp", "db")).containsExactly(bad);
		assertThat(picked.lister().byIndex("byApp", "web")).containsExactly(other);
		assertThat(picked.lister().list("default")).containsExactlyInAnyOrder(bad, other);
		assertFailure(picked, 1, "byData", "default/a", IllegalArgumentException.class);
		// the next state of the object indexes fine and is filed; the failure stays
		// counted
		Obj good = obj("default", "a", "3", "app=db", "fine");
		picked.upsert(good.meta(), good);
		assertThat(picked.lister().byIndex("byData", "fine")).containsExactlyInAnyOrder(good, other);
		assertThat(picked.indexFailures()).isEqualTo(1);
		assertThat(picked.delete("default/a")).isSameAs(good);
		assertThat(picked.lister().byIndex("byData", "fine")).containsExactly(other);
	}

	@Test
	void indexFunctionThatThrowsOnReplaceLeavesObjectCachedButUnfiledInThatIndexOnly() {
		Store<Obj> picked = new Store<>(index(Map.of("byData", picky(), "byApp", BY_APP)));
		Obj ok = obj("default", "a", "1", "app=web", "fine");
		Obj bad = obj("other", "b", "1", "app=web", "boom secret-value");
		Diff<Obj> diff = picked.replace(Items.zip(List.of(ok.meta(), bad.meta()), List.of(ok, bad)));
		assertThat(diff.added()).extracting(Entry::object).containsExactly(ok, bad);
		assertThat(picked.size()).isEqualTo(2);
		assertThat(picked.get("other/b")).isSameAs(bad);
		assertThat(picked.lister().byIndex("byData", "fine")).containsExactly(ok);
		assertThat(picked.indexValues("byData")).containsExactly("fine");
		assertThat(picked.lister().byIndex("byApp", "web")).containsExactlyInAnyOrder(ok, bad);
		assertThat(picked.lister().list("other")).containsExactly(bad);
		assertFailure(picked, 1, "byData", "other/b", IllegalArgumentException.class);
		assertThat(picked.delete("other/b")).isSameAs(bad);
		assertThat(picked.lister().byIndex("byApp", "web")).containsExactly(ok);
		assertThat(picked.indexValues("byData")).containsExactly("fine");
	}

	@Test
	void indexFunctionThatThrowsAnErrorOfUserCodeIsAFailure() {
		IndexFunction<Obj> linkage = (object, meta) -> {
			if (object.data().equals("x")) {
				throw new NoClassDefFoundError("com/example/Missing secret-value");
			}
			return List.of(object.data());
		};
		IndexFunction<Obj> recursive = new IndexFunction<>() {

			@Override
			public List<String> values(Obj object, ObjectMeta meta) {
				return object.data().equals("deep") ? values(object, meta) : List.of(object.data());
			}

		};
		Store<Obj> erring = new Store<>(index(Map.of("linkage", linkage, "recursive", recursive)));
		Obj a = obj("default", "a", "1", "", "x");
		erring.upsert(a.meta(), a);
		assertThat(erring.get("default/a")).isSameAs(a);
		assertThat(erring.lister().byIndex("recursive", "x")).containsExactly(a);
		assertThat(erring.indexValues("linkage")).isEmpty();
		assertFailure(erring, 1, "linkage", "default/a", NoClassDefFoundError.class);
		Obj deep = obj("default", "b", "1", "", "deep");
		erring.upsert(deep.meta(), deep);
		assertThat(erring.get("default/b")).isSameAs(deep);
		assertThat(erring.lister().byIndex("linkage", "deep")).containsExactly(deep);
		assertThat(erring.indexValues("recursive")).containsExactly("x");
		assertFailure(erring, 2, "recursive", "default/b", StackOverflowError.class);
	}

	@Test
	void outOfMemoryErrorOfAnIndexFunctionPropagatesAndLeavesStoreUnchanged() {
		Store<Obj> starved = new Store<>(index(Map.of("starved", (object, meta) -> {
			throw new OutOfMemoryError("test");
		})));
		Obj a = obj("default", "a", "1", "", "x");
		assertThatExceptionOfType(OutOfMemoryError.class).isThrownBy(() -> starved.upsert(a.meta(), a));
		assertThatExceptionOfType(OutOfMemoryError.class)
			.isThrownBy(() -> starved.replace(Items.zip(List.of(a.meta()), List.of(a))));
		assertThat(starved.size()).isZero();
		assertThat(starved.indexFailures()).isZero();
	}

	@Test
	void nullIndexValueIsAFailureAndNullCollectionMeansNone() {
		Store<Obj> nulls = new Store<>(index(Map.of("none", (o, m) -> null)));
		Obj a = obj("default", "a", "1", "", "x");
		nulls.upsert(a.meta(), a);
		assertThat(nulls.indexValues("none")).isEmpty();
		assertThat(nulls.indexFailures()).isZero();
		Store<Obj> nullElement = new Store<>(index(Map.of("bad", (o, m) -> Arrays.asList("x", null), "byApp", BY_APP)));
		Obj b = obj("default", "b", "1", "app=web", "x");
		nullElement.upsert(b.meta(), b);
		assertThat(nullElement.get("default/b")).isSameAs(b);
		assertThat(nullElement.indexValues("bad")).isEmpty();
		assertThat(nullElement.lister().byIndex("byApp", "web")).containsExactly(b);
		assertFailure(nullElement, 1, "bad", "default/b", NullPointerException.class);
	}

	@Test
	void nondeterministicIndexFunctionIsUnfiledFromWhatWasFiled() {
		AtomicInteger calls = new AtomicInteger();
		IndexFunction<Obj> counting = (object, meta) -> List.of("v" + calls.incrementAndGet());
		Store<Obj> counted = new Store<>(index(Map.of("counted", counting)));
		Lister<Obj> lister = counted.lister();
		Obj a1 = obj("default", "a", "1", "", "x");
		Obj b = obj("default", "b", "1", "", "x");
		counted.upsert(a1.meta(), a1); // v1
		counted.upsert(b.meta(), b); // v2
		Obj a2 = obj("default", "a", "2", "", "x");
		counted.upsert(a2.meta(), a2);
		String a2Value = "v" + calls.get();
		assertThat(counted.indexValues("counted")).containsExactlyInAnyOrder("v2", a2Value);
		assertThat(lister.byIndex("counted", "v1")).isEmpty();
		assertThat(lister.byIndex("counted", a2Value)).containsExactly(a2);
		counted.delete("default/a");
		assertThat(counted.indexValues("counted")).containsExactly("v2");
		for (int i = 1; i <= calls.get() + 2; i++) {
			assertThat(lister.byIndex("counted", "v" + i)).isEqualTo(("v" + i).equals("v2") ? List.of(b) : List.of());
		}
		counted.replace(Items.zip(List.of(b.meta()), List.of(b)));
		assertThat(counted.indexValues("counted")).as("unchanged keeps what was filed").containsExactly("v2");
		counted.delete("default/b");
		assertThat(counted.indexValues("counted")).isEmpty();
		assertThat(lister.byIndex("counted", "v2")).isEmpty();
		assertThat(counted.indexFailures()).isZero();
	}

	@Test
	void readsNeverThrowAfterANondeterministicFunctionChangesItsMind() {
		AtomicInteger calls = new AtomicInteger();
		IndexFunction<Obj> counting = (object, meta) -> List.of("v" + calls.incrementAndGet());
		Store<Obj> counted = new Store<>(index(Map.of("counted", counting)));
		Obj a = obj("default", "a", "1", "", "x");
		counted.upsert(a.meta(), a);
		counted.delete("default/a");
		assertThat(counted.lister().byIndex("counted", "v1")).isEmpty();
		assertThat(counted.indexValues("counted")).isEmpty();
		Obj b1 = obj("default", "b", "1", "", "x");
		Obj b2 = obj("default", "b", "2", "", "x");
		counted.upsert(b1.meta(), b1);
		counted.upsert(b2.meta(), b2);
		counted.replace(Items.zip(List.of(), List.of()));
		for (int i = 1; i <= calls.get() + 1; i++) {
			assertThat(counted.lister().byIndex("counted", "v" + i)).isEmpty();
		}
	}

	@Test
	void relistRetriesAnObjectTheIndexFailedForAndFilesItOnceItIndexesFine() {
		AtomicBoolean failing = new AtomicBoolean(true);
		IndexFunction<Obj> flaky = (object, meta) -> {
			if (failing.get()) {
				throw new IllegalStateException("flaky " + object.data());
			}
			return List.of(object.data());
		};
		Store<Obj> flakyStore = new Store<>(index(Map.of("flaky", flaky, "byApp", BY_APP)));
		Obj a = obj("default", "a", "1", "app=web", "red");
		Obj b = obj("default", "b", "1", "app=web", "blue");
		flakyStore.upsert(a.meta(), a);
		assertFailure(flakyStore, 1, "flaky", "default/a", IllegalStateException.class);
		failing.set(false);
		flakyStore.upsert(b.meta(), b);
		assertThat(flakyStore.indexValues("flaky")).containsExactly("blue");
		Diff<Obj> diff = flakyStore.replace(Items.zip(List.of(a.meta(), b.meta()), List.of(a, b)));
		assertThat(diff.isEmpty()).isTrue();
		assertThat(diff.unchanged()).isEqualTo(2);
		assertThat(flakyStore.get("default/a")).isSameAs(a);
		assertThat(flakyStore.lister().byIndex("flaky", "red")).containsExactly(a);
		assertThat(flakyStore.lister().byIndex("flaky", "blue")).containsExactly(b);
		assertThat(flakyStore.lister().byIndex("byApp", "web")).containsExactlyInAnyOrder(a, b);
		Obj a2 = obj("default", "a", "2", "app=web", "green");
		flakyStore.replace(Items.zip(List.of(a2.meta(), b.meta()), List.of(a2, b)));
		assertThat(flakyStore.indexValues("flaky")).containsExactlyInAnyOrder("green", "blue");
		assertThat(flakyStore.indexFailures()).isEqualTo(1);
		flakyStore.delete("default/a");
		assertThat(flakyStore.indexValues("flaky")).containsExactly("blue");
	}

	@Test
	void relistAfterAFailureFilesTheNewStateOfTheKey() {
		Store<Obj> picked = new Store<>(index(Map.of("byData", picky())));
		Obj bad = obj("default", "a", "1", "", "boom");
		picked.upsert(bad.meta(), bad);
		assertFailure(picked, 1, "byData", "default/a", IllegalArgumentException.class);
		Obj good = obj("default", "a", "2", "", "fine");
		Diff<Obj> diff = picked.replace(Items.zip(List.of(good.meta()), List.of(good)));
		assertThat(diff.modified()).hasSize(1);
		assertThat(picked.lister().byIndex("byData", "fine")).containsExactly(good);
		assertThat(picked.indexFailures()).isEqualTo(1);
		Obj bad2 = obj("default", "a", "3", "", "boom");
		picked.replace(Items.zip(List.of(bad2.meta()), List.of(bad2)));
		assertThat(picked.get("default/a")).isSameAs(bad2);
		assertThat(picked.indexValues("byData")).isEmpty();
		assertThat(picked.indexFailures()).isEqualTo(2);
	}

	@Test
	void entryKeepsItsAccessorsAndValueEquality() {
		Obj a = obj("default", "a", "1", "app=web", "x");
		put(a);
		Entry<Obj> entry = this.store.entry("default/a");
		assertThat(entry.meta()).isSameAs(a.meta());
		assertThat(entry.object()).isSameAs(a);
		assertThat(entry.key()).isEqualTo("default/a");
		assertThat(entry).isEqualTo(new Entry<>(a.meta(), a)).hasSameHashCodeAs(new Entry<>(a.meta(), a));
		assertThat(this.store.entries()).containsExactly(new Entry<>(a.meta(), a));
	}

	/** Throws, with a message holding the object's data, for data containing "boom". */
	private static IndexFunction<Obj> picky() {
		return (object, meta) -> {
			if (object.data().contains("boom")) {
				throw new IllegalArgumentException("cannot index " + object.data());
			}
			return List.of(object.data());
		};
	}

	/** Keeps the order of the indexes stable. */
	private static Map<String, IndexFunction<Obj>> index(Map<String, IndexFunction<Obj>> indexes) {
		return new TreeMap<>(indexes);
	}

	private static void assertFailure(Store<Obj> store, long count, String index, String key,
			Class<? extends Throwable> error) {
		assertThat(store.indexFailures()).isEqualTo(count);
		assertThat(store.lastIndexFailure()).isEqualTo(new IndexFailure(index, key, error.getName()));
		assertThat(store.lastIndexFailure().toString()).doesNotContain("secret")
			.doesNotContain("boom")
			.doesNotContain("flaky ")
			.doesNotContain("cannot");
	}

	@Test
	void replaceReportsAddedModifiedDeletedAndUnchanged() {
		Obj keep = obj("default", "keep", "1", "app=web", "x");
		Obj change1 = obj("default", "change", "1", "app=web", "x");
		Obj gone = obj("default", "gone", "3", "app=web", "x");
		Obj gone2 = obj(null, "a-gone", "3", "", "x");
		put(keep);
		put(change1);
		put(gone);
		put(gone2);

		Obj keepAgain = obj("default", "keep", "1", "app=web", "x");
		Obj change2 = obj("default", "change", "2", "app=db", "x");
		Obj added = obj("other", "new", "5", "app=web", "x");
		Diff<Obj> diff = replace(keepAgain, change2, added);

		assertThat(diff.added()).extracting(Entry::object).containsExactly(added);
		assertThat(diff.modified()).hasSize(1);
		Update<Obj> update = diff.modified().get(0);
		assertThat(update.oldEntry().object()).isSameAs(change1);
		assertThat(update.newEntry().object()).isSameAs(change2);
		assertThat(diff.deleted()).extracting(Entry::object).containsExactly(gone2, gone);
		assertThat(diff.unchanged()).isEqualTo(1);
		assertThat(diff.isEmpty()).isFalse();

		assertThat(this.store.get("default/keep")).as("unchanged keeps the cached instance").isSameAs(keep);
		assertThat(this.store.keys()).containsExactlyInAnyOrder("default/keep", "default/change", "other/new");
		assertThat(this.lister.byIndex("byApp", "web")).containsExactlyInAnyOrder(keep, added);
		assertThat(this.lister.byIndex("byApp", "db")).containsExactly(change2);
		assertThat(this.lister.list("other")).containsExactly(added);
		assertThat(this.store.indexValues("namespace")).containsExactlyInAnyOrder("default", "other");

		assertThat(replace(keep, change2, added).isEmpty()).isTrue();
	}

	@Test
	void replaceWithoutResourceVersionCountsAsModified() {
		Obj a = obj("default", "a", null, "", "x");
		put(a);
		Diff<Obj> diff = replace(obj("default", "a", null, "", "y"));
		assertThat(diff.modified()).hasSize(1);
		assertThat(diff.unchanged()).isZero();
	}

	@Test
	void replaceOnEmptyStoreAddsAllAndDuplicateKeysKeepTheLast() {
		Obj first = obj("default", "a", "1", "app=web", "x");
		Obj second = obj("default", "a", "2", "app=db", "x");
		Obj b = obj("default", "b", "1", "", "x");
		Diff<Obj> diff = replace(first, b, second);
		assertThat(diff.added()).extracting(Entry::object).containsExactly(b, second);
		assertThat(this.store.get("default/a")).isSameAs(second);
		assertThat(this.lister.byIndex("byApp", "web")).isEmpty();
		assertThat(this.lister.byIndex("byApp", "db")).containsExactly(second);
	}

	@Test
	void replaceWithNothingDeletesEverything() {
		put(obj("default", "a", "1", "", "x"));
		Diff<Obj> diff = replace();
		assertThat(diff.deleted()).hasSize(1);
		assertThat(this.store.size()).isZero();
		assertThat(this.lister.list("default")).isEmpty();
	}

	@Test
	void anItemWithoutAnObjectCannotBeMade() {
		Obj a = obj("default", "a", "1", "", "x");
		assertThatNullPointerException().isThrownBy(() -> new ObjectList.Item<Obj>(a.meta(), null))
			.withMessageContaining("object");
	}

	@Test
	void listerHasSyncedReadsTheWatchStatus() {
		assertThat(this.lister.hasSynced()).isFalse();
		java.util.concurrent.atomic.AtomicBoolean synced = new java.util.concurrent.atomic.AtomicBoolean();
		this.store.syncedBy(synced::get);
		assertThat(this.lister.hasSynced()).isFalse();
		synced.set(true);
		assertThat(this.lister.hasSynced()).isTrue();
	}

	@Test
	void returnedListsAreUnmodifiableSnapshots() {
		put(obj("default", "a", "1", "app=web", "x"));
		List<Obj> before = this.lister.list();
		put(obj("default", "b", "1", "app=web", "x"));
		assertThat(before).hasSize(1);
		assertThat(this.lister.byIndex("byApp", "web")).hasSize(2);
		org.assertj.core.api.Assertions.assertThatThrownBy(() -> this.lister.list().clear())
			.isInstanceOf(UnsupportedOperationException.class);
		org.assertj.core.api.Assertions.assertThatThrownBy(() -> this.lister.byIndex("byApp", "web").clear())
			.isInstanceOf(UnsupportedOperationException.class);
		org.assertj.core.api.Assertions.assertThatThrownBy(() -> this.lister.byIndex("byApp", "nothing").add(null))
			.isInstanceOf(UnsupportedOperationException.class);
	}

	@Test
	void aNamespaceReplaceReportsAndChangesThatNamespaceOnly() {
		Obj keep = obj("shop", "keep", "1", "app=web", "x");
		Obj change1 = obj("shop", "change", "1", "app=web", "x");
		Obj gone = obj("shop", "gone", "1", "app=web", "x");
		Obj b1 = obj("billing", "b1", "1", "app=web", "x");
		Obj b2 = obj("billing", "b2", "1", "app=db", "y");
		Obj cluster = obj(null, "node", "1", "app=web", "x");
		for (Obj object : List.of(keep, change1, gone, b1, b2, cluster)) {
			put(object);
		}
		Entry<Obj> b1Entry = this.store.entry("billing/b1");
		Obj change2 = obj("shop", "change", "2", "app=db", "z");
		Obj added = obj("shop", "new", "1", "app=web", "x");
		Obj keepAgain = obj("shop", "keep", "1", "app=web", "x");

		Diff<Obj> diff = replaceIn("shop", keepAgain, change2, added);

		assertThat(diff.added()).extracting(Entry::object).containsExactly(added);
		assertThat(diff.modified()).singleElement().satisfies((update) -> {
			assertThat(update.oldEntry().object()).isSameAs(change1);
			assertThat(update.newEntry().object()).isSameAs(change2);
		});
		assertThat(diff.deleted()).extracting(Entry::object).containsExactly(gone);
		assertThat(diff.unchanged()).isEqualTo(1);
		assertThat(this.store.get("shop/keep")).as("unchanged keeps the cached instance").isSameAs(keep);
		assertThat(this.store.entry("billing/b1")).as("another namespace's entry is left as it is").isSameAs(b1Entry);
		assertThat(this.store.keys()).containsExactlyInAnyOrder("shop/keep", "shop/change", "shop/new", "billing/b1",
				"billing/b2", "node");
		assertThat(this.lister.list("shop")).containsExactlyInAnyOrder(keep, change2, added);
		assertThat(this.lister.list("billing")).containsExactlyInAnyOrder(b1, b2);
		assertThat(this.lister.byIndex("byApp", "web")).containsExactlyInAnyOrder(keep, added, b1, cluster);
		assertThat(this.lister.byIndex("byApp", "db")).containsExactlyInAnyOrder(change2, b2);
		assertThat(this.lister.byIndex("byToken", "z")).containsExactly(change2);
		assertThat(this.lister.byIndex("byToken", "y")).containsExactly(b2);
		assertThat(this.store.indexValues(WatchIndex.NAMESPACE)).containsExactlyInAnyOrder("shop", "billing", "");
		assertThat(this.store.countIn("shop")).isEqualTo(3);

		Diff<Obj> emptied = replaceIn("billing");
		assertThat(emptied.deleted()).extracting(Entry::object).containsExactly(b1, b2);
		assertThat(emptied.added()).isEmpty();
		assertThat(this.lister.list("billing")).isEmpty();
		assertThat(this.lister.byIndex("byApp", "db")).containsExactly(change2);
		assertThat(this.lister.list()).containsExactlyInAnyOrder(keep, change2, added, cluster);
		assertThat(this.store.indexValues(WatchIndex.NAMESPACE)).containsExactlyInAnyOrder("shop", "");
		assertThat(replaceIn("shop", keep, change2, added).isEmpty()).isTrue();
	}

	@Test
	void aNamespaceReplaceKeepsTheLastOfADuplicateKeyAndRetriesAFailedIndexOfItsOwnObjectsOnly() {
		AtomicBoolean failing = new AtomicBoolean(true);
		AtomicInteger calls = new AtomicInteger();
		IndexFunction<Obj> flaky = (object, meta) -> {
			calls.incrementAndGet();
			if (failing.get()) {
				throw new IllegalStateException("flaky " + object.data());
			}
			return List.of(object.data());
		};
		Store<Obj> flakyStore = new Store<>(Map.of("flaky", flaky));
		Obj a = obj("shop", "a", "1", "", "red");
		Obj b = obj("billing", "b", "1", "", "blue");
		flakyStore.upsert(a.meta(), a);
		flakyStore.upsert(b.meta(), b);
		assertThat(flakyStore.indexFailures()).isEqualTo(2);
		failing.set(false);
		calls.set(0);
		Obj first = obj("shop", "c", "1", "", "green");
		Obj second = obj("shop", "c", "2", "", "white");
		Diff<Obj> diff = flakyStore
			.replace(Items.zip(List.of(first.meta(), a.meta(), second.meta()), List.of(first, a, second)), "shop");
		assertThat(diff.added()).extracting(Entry::object).containsExactly(second);
		assertThat(diff.unchanged()).isEqualTo(1);
		assertThat(calls).as("a's index again (it failed), then c's last state; not billing's b").hasValue(2);
		assertThat(flakyStore.get("shop/a")).isSameAs(a);
		assertThat(flakyStore.lister().byIndex("flaky", "red")).containsExactly(a);
		assertThat(flakyStore.lister().byIndex("flaky", "white")).containsExactly(second);
		assertThat(flakyStore.indexValues("flaky")).containsExactlyInAnyOrder("red", "white");
		assertThat(flakyStore.indexFailures()).isEqualTo(2);
	}

	@Test
	void eachNamespacesFirstSyncFilesItsOwnObjectsOnly() {
		String[] namespaces = { "a", "b", "c", "d" };
		long before = this.store.filings();
		for (int n = 0; n < namespaces.length; n++) {
			List<Obj> objects = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				objects.add(obj(namespaces[n], "o" + i, "1", "app=web", "x"));
			}
			Diff<Obj> diff = replaceIn(namespaces[n], objects.toArray(new Obj[0]));
			assertThat(diff.added()).hasSize(50);
			assertThat(diff.deleted()).isEmpty();
			assertThat(this.store.size()).isEqualTo(50 * (n + 1));
			assertThat(this.store.filings() - before).as("objects filed after namespace %s's first sync", namespaces[n])
				.isEqualTo(50L * (n + 1));
		}
		assertThat(this.lister.byIndex("byApp", "web")).hasSize(200);
		long synced = this.store.filings();
		Obj changed = obj("b", "o7", "2", "app=db", "x");
		List<Obj> relist = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			relist.add((i == 7) ? changed : this.store.get("b/o" + i));
		}
		Diff<Obj> diff = replaceIn("b", relist.toArray(new Obj[0]));
		assertThat(diff.modified()).hasSize(1);
		assertThat(diff.unchanged()).isEqualTo(49);
		assertThat(this.store.filings() - synced).as("a relist files what it changed").isEqualTo(1);
		assertThat(this.lister.byIndex("byApp", "db")).containsExactly(changed);
		assertThat(this.lister.byIndex("byApp", "web")).hasSize(199);
	}

	private Diff<Obj> replace(Obj... objects) {
		List<ObjectMeta> metas = new ArrayList<>();
		List<Obj> list = new ArrayList<>();
		for (Obj object : objects) {
			metas.add(object.meta());
			list.add(object);
		}
		return this.store.replace(Items.zip(metas, list));
	}

	private Diff<Obj> replaceIn(String namespace, Obj... objects) {
		List<ObjectMeta> metas = new ArrayList<>();
		for (Obj object : objects) {
			metas.add(object.meta());
		}
		return this.store.replace(Items.zip(metas, List.of(objects)), namespace);
	}

}
