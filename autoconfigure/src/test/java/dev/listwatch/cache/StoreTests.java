package dev.listwatch.cache;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.listwatch.IndexFunction;
import dev.listwatch.Lister;
import dev.listwatch.ObjectMeta;
import dev.listwatch.WatchIndex;
import dev.listwatch.cache.Store.Diff;
import dev.listwatch.cache.Store.Entry;
import dev.listwatch.cache.Store.Update;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

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
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Store.forWatch("w", List.of(WatchIndex.of("w", "i", BY_APP), WatchIndex.of("w", "i", BY_APP))))
			.withMessageContaining("'i'");
	}

	@Test
	void watchIndexRequiresNames() {
		assertThatIllegalArgumentException().isThrownBy(() -> WatchIndex.of(" ", "i", BY_APP));
		assertThatIllegalArgumentException().isThrownBy(() -> WatchIndex.of("w", "", BY_APP));
		org.assertj.core.api.Assertions.assertThatNullPointerException().isThrownBy(() -> WatchIndex.of("w", "i", null));
		assertThat(WatchIndex.of("configmaps", "byApp", BY_APP).watch()).isEqualTo("configmaps");
	}

	@Test
	void forWatchTakesOnlyThatWatchsIndexes() {
		Store<Obj> built = Store.forWatch("configmaps",
				List.of(WatchIndex.of("configmaps", "byApp", BY_APP), WatchIndex.of("pods", "byToken", BY_TOKENS)));
		assertThat(built.indexNames()).containsExactly("namespace", "byApp");
	}

	@Test
	void failingIndexFunctionLeavesStoreUnchanged() {
		IndexFunction<Obj> picky = (object, meta) -> {
			if (object.data().equals("boom")) {
				throw new IllegalArgumentException("no");
			}
			return List.of(object.data());
		};
		Store<Obj> picked = new Store<>(Map.of("byData", picky));
		Obj ok = obj("default", "a", "1", "", "fine");
		picked.upsert(ok.meta(), ok);
		Obj bad = obj("default", "a", "2", "", "boom");
		assertThatIllegalStateException().isThrownBy(() -> picked.upsert(bad.meta(), bad))
			.withMessageContaining("byData")
			.withMessageContaining("default/a");
		assertThat(picked.get("default/a")).isSameAs(ok);
		assertThat(picked.lister().byIndex("byData", "fine")).containsExactly(ok);
		assertThatIllegalStateException()
			.isThrownBy(() -> picked.replace(List.of(ok.meta(), bad.meta()), List.of(ok, bad)));
		assertThat(picked.get("default/a")).isSameAs(ok);
		assertThat(picked.size()).isEqualTo(1);
	}

	@Test
	void nullIndexValuesAreRejectedAndNullCollectionMeansNone() {
		Store<Obj> nulls = new Store<>(Map.of("none", (o, m) -> null));
		Obj a = obj("default", "a", "1", "", "x");
		nulls.upsert(a.meta(), a);
		assertThat(nulls.indexValues("none")).isEmpty();
		Store<Obj> nullElement = new Store<>(Map.of("bad", (o, m) -> java.util.Arrays.asList("x", null)));
		assertThatIllegalStateException().isThrownBy(() -> nullElement.upsert(a.meta(), a));
		assertThat(nullElement.size()).isZero();
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
		counted.replace(List.of(b.meta()), List.of(b));
		assertThat(counted.indexValues("counted")).as("unchanged keeps what was filed").containsExactly("v2");
		counted.delete("default/b");
		assertThat(counted.indexValues("counted")).isEmpty();
		assertThat(lister.byIndex("counted", "v2")).isEmpty();
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
		counted.replace(List.of(), List.of());
		for (int i = 1; i <= calls.get() + 1; i++) {
			assertThat(counted.lister().byIndex("counted", "v" + i)).isEmpty();
		}
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

	/** Keeps the order of the indexes stable. */
	private static Map<String, IndexFunction<Obj>> index(Map<String, IndexFunction<Obj>> indexes) {
		return new TreeMap<>(indexes);
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
	void replaceRejectsMismatchedLists() {
		Obj a = obj("default", "a", "1", "", "x");
		assertThatIllegalArgumentException().isThrownBy(() -> this.store.replace(List.of(a.meta()), List.of()));
	}

	@Test
	void syncedFlag() {
		assertThat(this.lister.hasSynced()).isFalse();
		this.store.markSynced();
		assertThat(this.lister.hasSynced()).isTrue();
		assertThat(this.store.hasSynced()).isTrue();
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

	private Diff<Obj> replace(Obj... objects) {
		List<ObjectMeta> metas = new ArrayList<>();
		List<Obj> list = new ArrayList<>();
		for (Obj object : objects) {
			metas.add(object.meta());
			list.add(object);
		}
		return this.store.replace(metas, list);
	}

}
