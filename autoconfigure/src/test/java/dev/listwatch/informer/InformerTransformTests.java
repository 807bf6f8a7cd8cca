package dev.listwatch.informer;

import java.util.List;
import java.util.Locale;

import dev.listwatch.Items;
import dev.listwatch.ObjectList;
import dev.listwatch.Status;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.listwatch.informer.InformerTests.event;
import static dev.listwatch.informer.InformerTests.meta;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * An informer with a transform ({@link Informer#setTransform}) over a scripted
 * lister-watcher of strings {@code name@rv}: the transform (upper case) applies to lists,
 * relists and events alike, old objects are transformed states, and an object the
 * transform fails for is handled as one that does not bind.
 */
class InformerTransformTests {

	@RegisterExtension
	final InformerHarness harness = new InformerHarness();

	@Test
	void listsRelistsAndEventsAreCachedAndPublishedTransformed() {
		InformerTests.Script script = new InformerTests.Script().list("10", "a@1", "b@1");
		Informer<String> informer = informer(script);
		informer.setTransform(InformerTransformTests::upper);
		informer.start();
		assertThat(next(3)).containsExactlyInAnyOrder("ADDED A@1 initial", "ADDED B@1 initial", "SYNCED 2");
		script.watch().send(event(WatchEvent.Type.MODIFIED, "a@2"));
		assertThat(next(1)).containsExactly("MODIFIED A@2 old=A@1");
		assertThat(informer.lister().get("ns", "a")).contains("A@2");
		// 410: the relist is transformed too
		script.list(new ObjectList<>(Items.zip(List.of(meta("a", "3"), meta("b", "1")), List.of("a@3", "b@1")), "13",
				null, null));
		script.watch()
			.send(new WatchEvent<>(WatchEvent.Type.ERROR, null, null, new Status(410, "Expired", "too old"), false));
		assertThat(next(1)).containsExactly("MODIFIED A@3 old=A@2");
		script.watch().send(event(WatchEvent.Type.DELETED, "b@14"));
		assertThat(next(1)).containsExactly("DELETED B@14");
		assertThat(informer.lister().list()).containsExactly("A@3");
	}

	@Test
	void anObjectTheTransformFailsForIsKeptAtItsLastStateAndNeverTakenForDeleted() {
		InformerTests.Script script = new InformerTests.Script().list("10", "a@1", "b@1", "c@1x");
		Informer<String> informer = informer(script);
		informer.setTransform((object) -> {
			if (object.endsWith("x")) {
				throw new IllegalStateException("secret value " + object);
			}
			return upper(object);
		});
		informer.start();
		assertThat(next(3)).containsExactlyInAnyOrder("ADDED A@1 initial", "ADDED B@1 initial", "SYNCED 2");
		assertThat(informer.status().unbindable()).extracting(UnbindableObject::key).containsExactly("ns/c");
		script.watch().send(event(WatchEvent.Type.MODIFIED, "a@2x"));
		script.watch().send(event(WatchEvent.Type.MODIFIED, "b@3"));
		assertThat(next(1)).as("the watch goes on").containsExactly("MODIFIED B@3 old=B@1");
		assertThat(informer.lister().get("ns", "a")).contains("A@1");
		List<UnbindableObject> unbindable = informer.status().unbindable();
		assertThat(unbindable).extracting(UnbindableObject::key).containsExactly("ns/a", "ns/c");
		assertThat(unbindable.get(0).reason()).contains(IllegalStateException.class.getName()).doesNotContain("secret");
		assertThat(unbindable.get(0).meta().resourceVersion()).isEqualTo("2x");
		// 410: the relist still cannot transform a, nor c: neither is taken for deleted
		script.list(new ObjectList<>(
				Items.zip(List.of(meta("a", "4x"), meta("b", "3"), meta("c", "1x")), List.of("a@4x", "b@3", "c@1x")),
				"13", null, null));
		script.watch()
			.send(new WatchEvent<>(WatchEvent.Type.ERROR, null, null, new Status(410, "Expired", "too old"), false));
		await().atMost(InformerHarness.WAIT)
			.until(() -> informer.status().relists() == 1 && "13".equals(informer.status().lastResourceVersion()));
		assertThat(informer.lister().get("ns", "a")).contains("A@1");
		assertThat(this.harness.published()).noneMatch((event) -> event.startsWith("DELETED"));
		assertThat(informer.status().unbindable()).hasSize(2);
		// it transforms again: one MODIFIED from the last state held
		script.watch().send(event(WatchEvent.Type.MODIFIED, "a@5"));
		assertThat(next(1)).containsExactly("MODIFIED A@5 old=A@1");
		assertThat(informer.status().unbindable()).extracting(UnbindableObject::key).containsExactly("ns/c");
		// deleted in a state it fails for: DELETED with the last state held
		script.watch().send(event(WatchEvent.Type.DELETED, "a@6x"));
		assertThat(next(1)).containsExactly("DELETED A@5");
		assertThat(informer.lister().get("ns", "a")).isEmpty();
	}

	@Test
	void aTransformReturningNullIsAFailureToo() {
		InformerTests.Script script = new InformerTests.Script().list("10", "a@1", "b@1");
		Informer<String> informer = informer(script);
		informer.setTransform((object) -> object.startsWith("a") ? null : object);
		informer.start();
		assertThat(next(2)).containsExactlyInAnyOrder("ADDED b@1 initial", "SYNCED 1");
		assertThat(informer.status().unbindable()).singleElement()
			.satisfies((object) -> assertThat(object.reason()).contains("returned null"));
	}

	@Test
	void theTransformCannotBeSetWhileTheInformerRuns() {
		Informer<String> informer = informer(new InformerTests.Script().list("10", "a@1"));
		informer.start();
		await().atMost(InformerHarness.WAIT).until(() -> informer.status().state() == WatchStatus.State.WATCHING);
		assertThatIllegalStateException().isThrownBy(() -> informer.setTransform(InformerTransformTests::upper))
			.withMessageContaining("before it starts");
	}

	private static String upper(String object) {
		return object.toUpperCase(Locale.ROOT);
	}

	private Informer<String> informer(InformerTests.Script script) {
		return this.harness.stopsAfter(
				this.harness.runtime().informer("things", String.class, script, InformerTests.options(), List.of()));
	}

	private List<String> next(int count) {
		return this.harness.next(count);
	}

}
