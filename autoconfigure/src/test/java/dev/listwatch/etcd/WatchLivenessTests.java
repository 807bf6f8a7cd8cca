package dev.listwatch.etcd;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WatchLiveness} on a ticker moved by hand: progress requests after each third of
 * the timeout in silence, the watch given up after all of it, silence counted only while
 * the reader waits.
 */
class WatchLivenessTests {

	private static final long SECOND = 1_000_000_000L;

	private final AtomicLong now = new AtomicLong(1000 * SECOND);

	private final FakeAnswers answers = new FakeAnswers();

	private final WatchLiveness liveness = new WatchLiveness(Duration.ofSeconds(90), this.now::get, null);

	private WatchLiveness.@Nullable Watched watched;

	@Test
	void aSilentWatchIsAskedForProgressTwiceThenGivenUpAtTheTimeout() {
		WatchLiveness.Watched watched = watch("etcd watch of /x/");
		watched.waiting();
		assertThat(checkAt(29)).isEqualTo(1 * SECOND);
		assertThat(this.answers.progressRequests).isZero();
		assertThat(checkAt(30)).isEqualTo(30 * SECOND);
		assertThat(this.answers.progressRequests).isEqualTo(1);
		assertThat(checkAt(45)).isEqualTo(15 * SECOND);
		assertThat(this.answers.progressRequests).isEqualTo(1);
		assertThat(checkAt(60)).isEqualTo(30 * SECOND);
		assertThat(this.answers.progressRequests).isEqualTo(2);
		assertThat(watched.abandoned()).isNull();
		assertThat(this.answers.closed).isFalse();
		assertThat(checkAt(90)).isEqualTo(-1);
		assertThat(this.answers.closed).isTrue();
		assertThat(watched.abandoned()).startsWith("etcd watch of /x/: no answer from etcd for 90000 ms")
			.contains("progress request");
		assertThat(checkAt(120)).isEqualTo(-1);
		assertThat(this.answers.progressRequests).isEqualTo(2);
	}

	@Test
	void anAnswerStartsTheSilenceOver() {
		WatchLiveness.Watched watched = watch("w");
		watched.waiting();
		checkAt(30);
		checkAt(60);
		assertThat(this.answers.progressRequests).isEqualTo(2);
		// etcd answers the second request at 61 s: the reader waits again
		this.now.set(1000 * SECOND + 61 * SECOND);
		watched.heard();
		watched.waiting();
		assertThat(checkAt(90)).isEqualTo(1 * SECOND);
		assertThat(this.answers.closed).isFalse();
		assertThat(checkAt(91)).isEqualTo(30 * SECOND);
		assertThat(this.answers.progressRequests).isEqualTo(3);
		assertThat(checkAt(151)).isEqualTo(-1);
		assertThat(watched.abandoned()).isNotNull();
	}

	@Test
	void aReaderBusyWithWhatItHasIsNotEtcdsSilence() {
		WatchLiveness.Watched watched = watch("w");
		watched.waiting();
		this.now.set(1000 * SECOND + 5 * SECOND);
		watched.heard();
		// a slow handler holds the reader for five minutes
		assertThat(checkAt(300)).isEqualTo(30 * SECOND);
		assertThat(this.answers.progressRequests).isZero();
		assertThat(this.answers.closed).isFalse();
		// it waits again: the silence counts from then
		this.now.set(1000 * SECOND + 301 * SECOND);
		watched.waiting();
		assertThat(checkAt(330)).isEqualTo(1 * SECOND);
		checkAt(331);
		assertThat(this.answers.progressRequests).isEqualTo(1);
		checkAt(361);
		checkAt(391);
		assertThat(watched.abandoned()).isNotNull();
	}

	@Test
	void anEndedWatchIsNoLongerChecked() {
		WatchLiveness.Watched watched = watch("w");
		watched.waiting();
		watched.ended();
		assertThat(checkAt(100)).isEqualTo(-1);
		assertThat(this.answers.progressRequests).isZero();
		assertThat(this.answers.closed).isFalse();
		assertThat(watched.abandoned()).isNull();
	}

	@Test
	void theDefaultTimeoutIsTheInformersIdleTimeout() {
		assertThat(WatchLiveness.DEFAULT_TIMEOUT).isEqualTo(Duration.ofSeconds(90));
	}

	/** Checks the only watch at a number of seconds after the start. */
	private long checkAt(long seconds) {
		this.now.set(1000 * SECOND + seconds * SECOND);
		WatchLiveness.Watched watched = this.watched;
		if (watched == null) {
			throw new IllegalStateException("nothing watched");
		}
		return watched.check(this.now.get());
	}

	private WatchLiveness.Watched watch(String what) {
		WatchLiveness.Watched watched = this.liveness.watch(this.answers, what);
		this.watched = watched;
		return watched;
	}

	/** Answers that record what the liveness asks of them. */
	private final class FakeAnswers implements Transport.Answers {

		int progressRequests;

		boolean closed;

		@Override
		public Transport.@Nullable Answer next() {
			return null;
		}

		@Override
		public void requestProgress() {
			this.progressRequests++;
		}

		@Override
		public void close() {
			throw new AssertionError("a watch given up is abandoned, not closed");
		}

		@Override
		public void abandon() {
			this.closed = true;
		}

	}

}
