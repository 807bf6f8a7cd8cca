package dev.listwatch.informer;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.listwatch.ListerWatcher;
import dev.listwatch.Status;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.InformerTests.Script;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Listeners added in code (before and after the start, replayed the cache, each on its
 * own queue), namespace sets (one reflector per namespace into one cache, a relist
 * replacing one namespace only), and informers shared by declaration, over scripted
 * lister-watchers.
 */
class SharedInformerTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final InformerFactory factory = new InformerFactory(Clock.systemUTC(), (event) -> {
	}, 2, Duration.ofMinutes(1));

	private final List<Informer<String>> informers = new ArrayList<>();

	@AfterEach
	void stop() {
		this.informers.forEach(Informer::stop);
		this.factory.close();
	}

	@Test
	void aListenerAddedAfterTheSyncReceivesTheCacheAsAddedThenEveryLaterChange() throws Exception {
		Script script = new Script().list("10", "a@1", "b@1");
		Informer<String> informer = informer(script);
		informer.start();
		assertThat(informer.awaitSynced(WAIT)).isTrue();
		Recorder late = new Recorder();
		Informer.Registration registration = informer.addListener(late);
		await().atMost(WAIT).until(registration::hasSynced);
		assertThat(late.events).containsExactlyInAnyOrder("ADDED a@1 initial", "ADDED b@1 initial");
		script.watch().send(InformerTests.event(WatchEvent.Type.MODIFIED, "a@2"));
		script.watch().send(InformerTests.event(WatchEvent.Type.DELETED, "b@3"));
		await().atMost(WAIT).until(() -> late.events.size() == 4);
		assertThat(late.events.subList(2, 4)).containsExactly("MODIFIED a@2", "DELETED b@3");
	}

	@Test
	void aListenerAddedBeforeTheStartReceivesTheInitialListAndThenItHasSynced() throws Exception {
		Script script = new Script().list("10", "a@1");
		Informer<String> informer = informer(script);
		Recorder early = new Recorder();
		Informer.Registration registration = informer.addListener(early);
		assertThat(registration.hasSynced()).isFalse();
		informer.start();
		await().atMost(WAIT).until(registration::hasSynced);
		assertThat(early.events).containsExactly("ADDED a@1 initial");
	}

	@Test
	void aListenerAddedToAStoppedInformerReceivesTheCacheOnlyOnceItStartsAgain() throws Exception {
		Script script = new Script().list("10", "a@1");
		Informer<String> informer = informer(script);
		informer.start();
		assertThat(informer.awaitSynced(WAIT)).isTrue();
		await().atMost(WAIT).until(() -> informer.status().backlog() == 0);
		informer.stop();
		Recorder added = new Recorder();
		Informer.Registration registration = informer.addListener(added);
		assertThat(informer.status().backlog()).as("the replay waits for the start: the ADDED and the sync")
			.isEqualTo(2);
		assertThat(added.events).isEmpty();
		assertThat(registration.hasSynced()).isFalse();
		informer.start();
		await().atMost(WAIT).until(registration::hasSynced);
		assertThat(added.events).containsExactly("ADDED a@1 initial");
	}

	@Test
	void aBlockedListenerDelaysNoOtherAndARemovedOneReceivesNothingMore() throws Exception {
		Script script = new Script().list("10", "a@1");
		Informer<String> informer = informer(script);
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch blocked = new CountDownLatch(1);
		informer.addListener((event) -> {
			blocked.countDown();
			try {
				release.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		Recorder other = new Recorder();
		informer.addListener(other);
		Recorder removed = new Recorder();
		Informer.Registration registration = informer.addListener(removed);
		informer.start();
		assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
		await().atMost(WAIT).until(() -> removed.events.size() == 1);
		registration.remove();
		script.watch().send(InformerTests.event(WatchEvent.Type.MODIFIED, "a@2"));
		await().atMost(WAIT).until(() -> other.events.size() == 2);
		assertThat(other.events).containsExactly("ADDED a@1 initial", "MODIFIED a@2");
		assertThat(informer.status().backlog()).as("the sync and the change wait for the blocked listener")
			.isEqualTo(2);
		release.countDown();
		await().atMost(WAIT).until(() -> informer.status().backlog() == 0);
		assertThat(removed.events).containsExactly("ADDED a@1 initial");
	}

	@Test
	void aNamespaceSetIsOneCacheOverOneWatchPerNamespaceAndARelistReplacesOnlyItsNamespace() throws Exception {
		Script shop = new Script("shop").list("10", "a@1", "b@1");
		Script billing = new Script("billing").list("20", "c@1");
		Informer<String> informer = this.factory.informer("pods", String.class,
				List.<ListerWatcher<String>>of(shop, billing), InformerTests.options(), List.of());
		this.informers.add(informer);
		Recorder recorder = new Recorder();
		informer.addListener(recorder);
		informer.start();
		assertThat(informer.awaitSynced(WAIT)).isTrue();
		assertThat(informer.namespaces()).containsExactly("shop", "billing");
		assertThat(informer.lister().list()).containsExactlyInAnyOrder("a@1", "b@1", "c@1");
		assertThat(informer.lister().list("billing")).containsExactly("c@1");
		await().atMost(WAIT).until(() -> informer.status().state() == WatchStatus.State.WATCHING);
		WatchStatus synced = informer.status();
		assertThat(synced.synced()).isTrue();
		assertThat(synced.lastResourceVersion()).as("not comparable across namespaces").isNull();
		assertThat(synced.namespaces()).containsOnlyKeys("shop", "billing");
		assertThat(synced.namespaces().get("shop").lastResourceVersion()).isEqualTo("10");
		assertThat(synced.namespaces().get("billing").lastResourceVersion()).isEqualTo("20");
		assertThat(synced.namespaces().get("shop").objects()).isEqualTo(2);
		assertThat(synced.watched().namespaces()).containsExactly("shop", "billing");
		assertThat(synced.watched().resource().namespace()).isNull();
		// shop's resourceVersion expires: its relist lacks b; billing is neither listed
		// nor touched
		shop.list("30", "a@1");
		shop.watch()
			.send(new WatchEvent<>(WatchEvent.Type.ERROR, null, null, new Status(410, "Expired", "too old"), false));
		await().atMost(WAIT).until(() -> recorder.events.contains("DELETED b@1 unknown"));
		assertThat(informer.lister().list()).containsExactlyInAnyOrder("a@1", "c@1");
		WatchStatus relisted = informer.status();
		assertThat(relisted.namespaces().get("shop").relists()).isEqualTo(1);
		assertThat(relisted.namespaces().get("billing").relists()).isZero();
		assertThat(relisted.namespaces().get("billing").lists().count()).isEqualTo(1);
		assertThat(relisted.relists()).isEqualTo(1);
		assertThat(billing.listsStarted.get()).isEqualTo(1);
		assertThat(recorder.events).noneMatch((event) -> event.contains("c@1") && !event.endsWith("initial"));
		// billing's watch goes on
		billing.watch().send(InformerTests.eventIn("billing", WatchEvent.Type.ADDED, "d@21"));
		await().atMost(WAIT).until(() -> recorder.events.contains("ADDED d@21"));
		assertThat(informer.lister().list("billing")).containsExactlyInAnyOrder("c@1", "d@21");
	}

	@Test
	void aNamespaceSetNeedsDistinctNamespaces() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.factory.informer("pods", String.class,
				List.<ListerWatcher<String>>of(new Script("shop"), new Script("shop")), InformerTests.options(),
				List.of()))
			.withMessageContaining("namespace shop is given twice");
	}

	@Test
	void aFactoryWithoutDeclarationsRefusesToMakeInformersFromDeclarations() {
		assertThatIllegalStateException()
			.isThrownBy(() -> this.factory.informer("cms", WatchDeclaration.of("v1", "ConfigMap")))
			.withMessageContaining("without Declarations");
	}

	@Test
	void equalDeclarationsShareOneInformerAndAnotherNameForAnotherDeclarationIsRequired() {
		List<String> made = new CopyOnWriteArrayList<>();
		InformerFactory sharing = new InformerFactory(Clock.systemUTC(), (event) -> {
		}, new InformerFactory.Settings(1, Duration.ofMinutes(1), false, InformerTests.options()),
				new InformerFactory.Declarations() {

					@Override
					@SuppressWarnings("unchecked")
					public <T> ListerWatcher<T> listerWatcher(WatchDeclaration<T> declaration,
							@Nullable String namespace) {
						made.add(declaration + " @ " + namespace);
						return (ListerWatcher<T>) new Script((namespace != null) ? namespace : "");
					}

					@Override
					public @Nullable Informer<?> configured(WatchDeclaration<?> declaration) {
						return null;
					}

					@Override
					public void made(Informer<?> informer) {
					}

				});
		List<Informer<String>> started = new ArrayList<>();
		try {
			WatchDeclaration<String> declaration = WatchDeclaration.of("v1", "things")
				.inNamespaces("b", "a")
				.withLabelSelector("app=web")
				.as(String.class);
			Informer<String> first = sharing.informer("things", declaration);
			Informer<String> second = sharing.informer("other-name",
					WatchDeclaration.of("v1", "things")
						.inNamespaces("a", "b", "a")
						.withLabelSelector(" app=web ")
						.as(String.class));
			assertThat(second).isSameAs(first);
			assertThat(first.watch()).isEqualTo("things");
			assertThat(first.namespaces()).containsExactly("a", "b");
			assertThat(made).hasSize(2);
			assertThat(sharing.informer("things", declaration.withResyncPeriod(Duration.ZERO)))
				.as("no resync is the default")
				.isSameAs(first);
			assertThatIllegalStateException()
				.isThrownBy(() -> sharing.informer("things", declaration.withLabelSelector("app=db")))
				.withMessageContaining("'things' is taken");
			Informer<String> other = sharing.informer("db", declaration.withLabelSelector("app=db"));
			assertThat(other).isNotSameAs(first);
			other.start();
			assertThat(other.isRunning()).isTrue();
			started.add(other);
		}
		finally {
			sharing.close();
		}
		assertThat(started.get(0).isRunning()).as("closing the factory stops it").isFalse();
	}

	private Informer<String> informer(Script script) {
		Informer<String> informer = this.factory.informer("things", String.class, script, InformerTests.options(),
				List.of());
		this.informers.add(informer);
		return informer;
	}

	/** Records what a listener receives, as text. */
	private static final class Recorder implements Consumer<ResourceEvent<String>> {

		final List<String> events = new CopyOnWriteArrayList<>();

		@Override
		public void accept(ResourceEvent<String> event) {
			this.events.add(event.type() + " " + event.object() + (event.initialList() ? " initial" : "")
					+ (event.finalStateUnknown() ? " unknown" : ""));
		}

	}

}
