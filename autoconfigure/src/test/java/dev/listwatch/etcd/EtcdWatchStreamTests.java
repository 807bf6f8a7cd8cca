package dev.listwatch.etcd;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesObject;
import dev.listwatch.WatchEvent;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link EtcdWatchStream} on scripted answers: a watch asked from the revision before the
 * first one it needs leaves that revision's events out, takes a progress answer for a
 * bookmark, and tells a compaction that took only that revision (watch again from the
 * first one needed) from one that took more (410).
 */
class EtcdWatchStreamTests {

	private final List<Long> compactions = new ArrayList<>();

	private final ValueDecoder<KubernetesObject> decoder = new ValueDecoder<>("/p/", KubernetesObject.class,
			JsonMapper.shared(), false, 1 << 20);

	@Test
	void theEventsOfTheRevisionBeforeAreLeftOutAndAProgressAnswerIsABookmark() {
		Scripted answers = new Scripted(created(10), events(10, "a"), events(11, "b"), progress(12));
		EtcdWatchStream<KubernetesObject> stream = stream(answers, 11, 10);
		assertThat(stream.awaitCreated()).isNull();
		WatchEvent<KubernetesObject> b = stream.next();
		assertThat(b.type()).isEqualTo(WatchEvent.Type.ADDED);
		assertThat(b.resourceVersion()).isEqualTo("11");
		WatchEvent<KubernetesObject> bookmark = stream.next();
		assertThat(bookmark.type()).isEqualTo(WatchEvent.Type.BOOKMARK);
		assertThat(bookmark.resourceVersion()).isEqualTo("12");
		assertThat(stream.hasNext()).isFalse();
	}

	@Test
	void aCompactionOfOnlyTheRevisionBeforeWatchesAgainFromTheFirstOneNeeded() {
		Scripted answers = new Scripted(created(20), compacted(11));
		EtcdWatchStream<KubernetesObject> stream = stream(answers, 11, 10);
		assertThat(stream.awaitCreated()).isNull();
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(stream::hasNext)
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(KubernetesApiException.Kind.CONNECTION))
			.withMessageContaining("compacted its history up to revision 11, the first one the watch needs");
		assertThat(this.compactions).containsExactly(11L);
		assertThat(answers.closed).isTrue();
	}

	@Test
	void aCompactionPastTheFirstRevisionNeededIsGone() {
		Scripted answers = new Scripted(created(20), compacted(12));
		EtcdWatchStream<KubernetesObject> stream = stream(answers, 11, 10);
		assertThat(stream.awaitCreated()).isNull();
		WatchEvent<KubernetesObject> error = stream.next();
		assertThat(error.type()).isEqualTo(WatchEvent.Type.ERROR);
		assertThat(error.status().code()).isEqualTo(410);
		assertThat(this.compactions).containsExactly(12L);
	}

	@Test
	void aCompactionOfTheFirstRevisionNeededWhenAskedFromItIsGone() {
		// asked from 11 already (etcd had compacted 10 away before): 11 compacted too is
		// a real gap
		Scripted answers = new Scripted(created(20), compacted(12));
		EtcdWatchStream<KubernetesObject> stream = stream(answers, 11, 11);
		assertThat(stream.awaitCreated()).isNull();
		assertThat(stream.next().status().code()).isEqualTo(410);
	}

	private EtcdWatchStream<KubernetesObject> stream(Scripted answers, long start, long from) {
		return new EtcdWatchStream<>("etcd watch of /p/", answers, this.decoder, new NoTransport(), start, from,
				this.compactions::add, null);
	}

	private static Transport.Answer created(long revision) {
		return new Transport.Answer(revision, true, false, 0, null, List.of(), null);
	}

	private static Transport.Answer progress(long revision) {
		return new Transport.Answer(revision, false, false, 0, null, List.of(), null);
	}

	private static Transport.Answer compacted(long compactRevision) {
		return new Transport.Answer(compactRevision + 5, false, true, compactRevision, null, List.of(), null);
	}

	private static Transport.Answer events(long revision, String name) {
		Transport.KeyValue kv = new Transport.KeyValue(("/p/" + name).getBytes(), "{}".getBytes(), revision, 1);
		return new Transport.Answer(revision, false, false, 0, null, List.of(new Transport.Event(false, kv)), null);
	}

	/** Answers from a script, then the end. */
	static final class Scripted implements Transport.Answers {

		private final Deque<Transport.Answer> script;

		boolean closed;

		Scripted(Transport.Answer... answers) {
			this.script = new ArrayDeque<>(List.of(answers));
		}

		@Override
		public Transport.@Nullable Answer next() {
			return this.closed ? null : this.script.poll();
		}

		@Override
		public void requestProgress() {
		}

		@Override
		public void close() {
			this.closed = true;
		}

	}

	/** A transport that is never called. */
	static class NoTransport implements Transport {

		@Override
		public Range range(byte[] key, byte[] rangeEnd, @Nullable Long limit, long revision, String what) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Answers watch(byte[] key, byte[] rangeEnd, long startRevision, String what) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void tokenRejected() {
			throw new UnsupportedOperationException();
		}

		@Override
		public boolean authenticates() {
			return false;
		}

		@Override
		public void close() {
		}

	}

}
