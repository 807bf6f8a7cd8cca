package dev.listwatch.etcd;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A watch resumed against an etcd member whose revision is below the one the watch has
 * seen: a member a few revisions behind (a follower lagging after a leader failover,
 * catching up) is waited for, briefly, as kube-apiserver waits for its watch cache (3 s),
 * and the watch opens on it without a relist; an etcd far behind (restored from a
 * backup), or one that does not catch up in time, is refused as a too large
 * resourceVersion, for the reflector to relist. etcd is scripted: one real member cannot
 * be made to lag on demand. The waits are recorded, not slept.
 */
class EtcdBehindTests {

	private final ValueDecoder<KubernetesObject> decoder = new ValueDecoder<>("/p/", KubernetesObject.class,
			JsonMapper.shared(), false, 1 << 20);

	private final List<Long> pauses = new ArrayList<>();

	@Test
	void aMemberAFewRevisionsBehindIsWaitedForAndTheWatchOpensOnItWithoutARelist() {
		// the watch has seen revision 100; the member it reaches next is at 97, then 99,
		// then has caught up and sends the events after 100
		ScriptedEtcd etcd = new ScriptedEtcd(97, 99, 100);
		WatchStream<KubernetesObject> stream = lw(etcd).watch(ListOptions.none().withResourceVersion("100"));
		assertThat(stream.hasNext()).isTrue();
		WatchEvent<KubernetesObject> event = stream.next();
		assertThat(event.type()).isEqualTo(WatchEvent.Type.ADDED);
		assertThat(Objects.requireNonNull(event.meta()).resourceVersion()).isEqualTo("101");
		assertThat(etcd.asked).containsExactly(100L, 100L, 100L);
		assertThat(this.pauses).hasSize(2);
		assertThat(this.pauses.stream().mapToLong(Long::longValue).sum()).isLessThanOrEqualTo(3000);
		assertThat(etcd.open).isEqualTo(1);
	}

	@Test
	void anEtcdFarBehindIsRefusedAtOnceAsATooLargeResourceVersion() {
		// restored from a backup: thousands of revisions below what the watch has seen
		ScriptedEtcd etcd = new ScriptedEtcd(5000);
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> lw(etcd).watch(ListOptions.none().withResourceVersion("100000")))
			.satisfies((ex) -> assertThat(Objects.requireNonNull(ex.status()).code()).isEqualTo(504))
			.withMessageContaining("Too large resource version: 100001, current: 5000");
		assertThat(etcd.asked).hasSize(1);
		assertThat(this.pauses).isEmpty();
		assertThat(etcd.open).isZero();
	}

	@Test
	void aMemberThatDoesNotCatchUpWithinThreeSecondsIsRefusedAfterTheWait() {
		// a few revisions behind, and it stays there: restored from a recent backup
		ScriptedEtcd etcd = new ScriptedEtcd(97, 97, 97, 97, 97, 97, 97, 97, 97, 97, 97, 97);
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> lw(etcd).watch(ListOptions.none().withResourceVersion("100")))
			.satisfies((ex) -> assertThat(Objects.requireNonNull(ex.status()).code()).isEqualTo(504))
			.withMessageContaining("Too large resource version: 101, current: 97");
		long waited = this.pauses.stream().mapToLong(Long::longValue).sum();
		assertThat(waited).isBetween(2500L, 3000L);
		assertThat(etcd.asked).hasSize(this.pauses.size() + 1);
		assertThat(etcd.open).isZero();
	}

	@Test
	void aClientWithAShortWatchTimeoutWaitsAThirdOfItAtMost() {
		// the informer gives a request up after the client's timeout and a third: a
		// longer wait would be abandoned and retried, and a restored etcd never refused
		ScriptedEtcd etcd = new ScriptedEtcd(97, 97, 97, 97, 97, 97, 97, 97, 97, 97, 97, 97);
		WatchLiveness liveness = new WatchLiveness(Duration.ofSeconds(1), System::nanoTime, null);
		EtcdListerWatcher<KubernetesObject> lw = new EtcdListerWatcher<>(etcd, null, "/p/", this.decoder, liveness,
				this.pauses::add);
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> lw.watch(ListOptions.none().withResourceVersion("100")))
			.withMessageContaining("Too large resource version: 101, current: 97");
		assertThat(this.pauses).isNotEmpty();
		assertThat(this.pauses.stream().mapToLong(Long::longValue).sum()).isLessThanOrEqualTo(333);
	}

	private EtcdListerWatcher<KubernetesObject> lw(ScriptedEtcd etcd) {
		return new EtcdListerWatcher<>(etcd, null, "/p/", this.decoder, null, this.pauses::add);
	}

	/**
	 * An etcd member whose revision, at each watch opened, is the next of a script; a
	 * watch created at or past the revision asked for sends one event after it.
	 */
	static final class ScriptedEtcd extends EtcdWatchStreamTests.NoTransport {

		private final Deque<Long> revisions = new ArrayDeque<>();

		final List<Long> asked = new ArrayList<>();

		int open;

		ScriptedEtcd(long... revisions) {
			super(false);
			for (long revision : revisions) {
				this.revisions.add(revision);
			}
		}

		@Override
		public Answers watch(byte[] key, byte[] rangeEnd, long startRevision, String what) {
			this.asked.add(startRevision);
			long current = this.revisions.isEmpty() ? 0 : this.revisions.poll();
			Transport.Answer created = new Transport.Answer(current, true, false, 0, null, List.of(), null);
			if (current < startRevision) {
				return new EtcdWatchStreamTests.Scripted(created);
			}
			this.open++;
			Transport.KeyValue kv = new Transport.KeyValue("/p/a".getBytes(), "{}".getBytes(), current + 1, 1);
			return new EtcdWatchStreamTests.Scripted(created, new Transport.Answer(current + 1, false, false, 0, null,
					List.of(new Transport.Event(false, kv)), null));
		}

	}

}
