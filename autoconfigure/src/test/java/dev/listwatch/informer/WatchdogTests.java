package dev.listwatch.informer;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStream;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WatchdogTests {

	private static final long IDLE = Duration.ofSeconds(90).toNanos();

	private final AtomicLong nanos = new AtomicLong();

	private final AtomicBoolean stopping = new AtomicBoolean();

	private final Watchdog<Object> watchdog = new Watchdog<>(this.nanos::get, IDLE, this.stopping::get);

	@Test
	void aSilentStreamIsClosedOnlyOnceTheIdleTimeoutHasPassed() {
		Stream stream = new Stream();
		this.watchdog.opened(stream);
		this.nanos.addAndGet(IDLE);
		assertThat(this.watchdog.check()).isFalse();
		this.watchdog.activity(this.nanos.get());
		this.nanos.addAndGet(IDLE + 1);
		assertThat(this.watchdog.check()).isTrue();
		assertThat(stream.closed).isTrue();
		assertThat(this.watchdog.fired()).isTrue();
		this.watchdog.clear();
		assertThat(this.watchdog.fired()).isFalse();
	}

	@Test
	void anUnansweredRequestIsAbandonedByInterruptingTheReaderWhichGetsItsInterruptCleared() throws Exception {
		CountDownLatch sent = new CountDownLatch(1);
		AtomicReference<Boolean> interruptedInside = new AtomicReference<>();
		AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
		Thread reader = reader(sent, interruptedInside, interruptedAfter);
		assertThat(this.watchdog.check()).isFalse();
		this.nanos.addAndGet(IDLE + 1);
		assertThat(this.watchdog.check()).isTrue();
		reader.join(5000);
		assertThat(interruptedInside.get()).isTrue();
		assertThat(interruptedAfter.get()).as("cleared: the loop goes on").isFalse();
		assertThat(this.watchdog.fired()).isTrue();
		assertThat(this.watchdog.check()).as("abandoned once").isFalse();
	}

	@Test
	void aStopKeepsTheInterruptSoThatTheLoopEnds() throws Exception {
		CountDownLatch sent = new CountDownLatch(1);
		AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
		Thread reader = reader(sent, new AtomicReference<>(), interruptedAfter);
		Stream stream = new Stream();
		this.watchdog.opened(stream);
		this.stopping.set(true);
		this.watchdog.abort();
		reader.join(5000);
		assertThat(interruptedAfter.get()).isTrue();
		assertThat(stream.closed).isTrue();
		assertThat(this.watchdog.fired()).as("a stop is not the watchdog firing").isFalse();
	}

	/**
	 * Starts a reader whose request blocks until interrupted, as the JDK client's does
	 * (the call ends, the interrupt is kept); returns once the request is sent.
	 */
	private Thread reader(CountDownLatch sent, AtomicReference<Boolean> interruptedInside,
			AtomicReference<Boolean> interruptedAfter) throws InterruptedException {
		Thread reader = new Thread(() -> {
			this.watchdog.bindReader();
			this.watchdog.request(() -> {
				sent.countDown();
				try {
					new CountDownLatch(1).await(10, TimeUnit.SECONDS);
					interruptedInside.set(false);
				}
				catch (InterruptedException ex) {
					interruptedInside.set(true);
					Thread.currentThread().interrupt();
				}
				return null;
			});
			interruptedAfter.set(Thread.currentThread().isInterrupted());
		});
		reader.start();
		assertThat(sent.await(5, TimeUnit.SECONDS)).isTrue();
		return reader;
	}

	private static final class Stream implements WatchStream<Object> {

		private volatile boolean closed;

		@Override
		public boolean hasNext() {
			return false;
		}

		@Override
		public WatchEvent<Object> next() {
			throw new java.util.NoSuchElementException();
		}

		@Override
		public void close() {
			this.closed = true;
		}

	}

}
