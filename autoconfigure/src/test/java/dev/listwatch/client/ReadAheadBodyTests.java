package dev.listwatch.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.sun.net.httpserver.HttpServer;
import dev.listwatch.client.ReadAheadRequestFactory.ReadAheadBody;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The read-ahead response body: it asks for a window of buffers ahead, a read takes what
 * has arrived, bytes that arrived before an error are all read, and a close ends a parked
 * read.
 */
class ReadAheadBodyTests {

	private final AtomicLong requested = new AtomicLong();

	private volatile boolean cancelled;

	private ReadAheadBody subscribed() {
		ReadAheadBody body = new ReadAheadBody();
		body.onSubscribe(subscription());
		return body;
	}

	/** Counts what is asked for, and whether it was cancelled. */
	private Flow.Subscription subscription() {
		return new Flow.Subscription() {

			@Override
			public void request(long n) {
				ReadAheadBodyTests.this.requested.addAndGet(n);
			}

			@Override
			public void cancel() {
				ReadAheadBodyTests.this.cancelled = true;
			}

		};
	}

	private static List<ByteBuffer> buffers(String... texts) {
		List<ByteBuffer> list = new ArrayList<>();
		for (String text : texts) {
			list.add(ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)));
		}
		return list;
	}

	@Test
	void aReadTakesEverythingThatHasArrivedWithoutWaitingForMore() throws IOException {
		ReadAheadBody body = subscribed();
		body.onNext(buffers("ab", "", "cd"));
		body.onNext(buffers("ef"));
		byte[] b = new byte[100];
		assertThat(body.read(b, 0, 100)).isEqualTo(6);
		assertThat(new String(b, 0, 6, StandardCharsets.US_ASCII)).isEqualTo("abcdef");
		body.onNext(buffers("ghij"));
		assertThat(body.read(b, 0, 3)).isEqualTo(3);
		assertThat(body.read()).isEqualTo('j');
		body.onComplete();
		assertThat(body.read(b, 0, 100)).isEqualTo(-1);
	}

	@Test
	void asksForAWindowAheadAndForMoreAsItIsRead() throws IOException {
		ReadAheadBody body = subscribed();
		assertThat(this.requested.get()).isEqualTo(ReadAheadBody.WINDOW);
		byte[] b = new byte[1];
		for (int i = 0; i < 3 * ReadAheadBody.WINDOW; i++) {
			long outstanding = this.requested.get() - i;
			assertThat(outstanding).isBetween((long) ReadAheadBody.WINDOW / 2, (long) ReadAheadBody.WINDOW);
			body.onNext(buffers("x"));
			assertThat(body.read(b, 0, 1)).isEqualTo(1);
		}
	}

	@Test
	void bytesThatArrivedBeforeAnErrorAreReadBeforeIt() throws IOException {
		ReadAheadBody body = subscribed();
		body.onNext(buffers("{\"type\":\"ADDED\"}\n", "{\"ty"));
		body.onError(new IOException("connection reset"));
		assertThat(new String(body.readNBytes(21), StandardCharsets.US_ASCII)).isEqualTo("{\"type\":\"ADDED\"}\n{\"ty");
		assertThatExceptionOfType(IOException.class).isThrownBy(body::read).withMessage("connection reset");
	}

	@Test
	void closingEndsAReadParkedOnTheBodyAndCancels() throws Exception {
		ReadAheadBody body = subscribed();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		Thread reader = new Thread(() -> {
			try {
				body.read(new byte[10], 0, 10);
			}
			catch (Throwable ex) {
				failure.set(ex);
			}
		});
		reader.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> reader.getState() == Thread.State.WAITING);
		body.close();
		reader.join(10_000);
		assertThat(reader.isAlive()).isFalse();
		assertThat(failure.get()).isInstanceOf(IOException.class).hasMessageContaining("closed");
		assertThat(this.cancelled).isTrue();
	}

	@Test
	void aBodyClosedBeforeTheSubscriptionCancelsIt() {
		ReadAheadBody body = new ReadAheadBody();
		body.close();
		body.onSubscribe(subscription());
		assertThat(this.cancelled).isTrue();
		assertThat(this.requested.get()).isZero();
	}

	@Test
	void anInterruptEndsAParkedReadAndStaysSet() throws Exception {
		ReadAheadBody body = subscribed();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		AtomicReference<Boolean> interrupted = new AtomicReference<>();
		Thread reader = new Thread(() -> {
			try {
				body.read();
			}
			catch (Throwable ex) {
				failure.set(ex);
				interrupted.set(Thread.currentThread().isInterrupted());
			}
		});
		reader.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> reader.getState() == Thread.State.WAITING);
		reader.interrupt();
		reader.join(10_000);
		assertThat(failure.get()).isInstanceOf(InterruptedIOException.class);
		assertThat(interrupted.get()).isTrue();
	}

	@Test
	void theFactorySendsHeadersAndReadsStatusHeadersAndBody() throws Exception {
		HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		AtomicReference<String> accept = new AtomicReference<>();
		server.createContext("/", (exchange) -> {
			accept.set(exchange.getRequestHeaders().getFirst("Accept"));
			byte[] body = "x".repeat(200_000).getBytes(StandardCharsets.US_ASCII);
			exchange.getResponseHeaders().add("Retry-After", "7");
			exchange.sendResponseHeaders(429, body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		server.start();
		try {
			ReadAheadRequestFactory factory = new ReadAheadRequestFactory(java.net.http.HttpClient.newHttpClient());
			ClientHttpRequest request = factory
				.createRequest(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/x"), HttpMethod.GET);
			request.getHeaders().add("Accept", "application/json");
			request.getHeaders().add("Connection", "close");
			try (ClientHttpResponse response = request.execute()) {
				assertThat(response.getStatusCode().value()).isEqualTo(429);
				assertThat(response.getStatusText()).isEqualTo("Too Many Requests");
				assertThat(response.getHeaders().getFirst("retry-after")).isEqualTo("7");
				assertThat(response.getBody().readAllBytes()).hasSize(200_000);
			}
			assertThat(accept.get()).isEqualTo("application/json");
		}
		finally {
			server.stop(0);
		}
	}

}
