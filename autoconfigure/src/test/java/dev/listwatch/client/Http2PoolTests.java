package dev.listwatch.client;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP/2 pool's gate, its ping of a silent connection and its replacement.
 */
class Http2PoolTests {

	private static Http2Pool pool(URI server, Duration gateWait) {
		return new Http2Pool(server, () -> HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build(),
				() -> HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(), gateWait);
	}

	/** A pool whose pings time out sooner than the 15 s of production (a black hole). */
	private static Http2Pool pool(URI server, Duration gateWait, Duration pingTimeout) {
		return new Http2Pool(server, () -> HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build(),
				() -> HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(), gateWait, pingTimeout);
	}

	private static URI closedPort() throws Exception {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return URI.create("http://127.0.0.1:" + socket.getLocalPort());
		}
	}

	@Test
	void requestsGoOneAtATimeUntilAConnectionIsUp() throws Exception {
		Http2Pool pool = pool(closedPort(), Duration.ofSeconds(30));
		Http2Pool.Generation generation = pool.current();
		assertThat(pool.enter(generation)).as("the first request holds the gate").isTrue();
		CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> {
			try {
				return pool.enter(generation);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		pool.connected(generation, HttpClient.Version.HTTP_2);
		pool.leave(true);
		assertThat(second.get(10, TimeUnit.SECONDS)).as("once the connection is up, no gate").isFalse();
		assertThat(pool.enter(generation)).isFalse();
		pool.broken(generation);
		assertThat(pool.enter(generation)).as("after a failure, one at a time again").isTrue();
		pool.leave(true);
	}

	@Test
	void aRequestWaitsForTheGateAtMostTheConnectTimeout() throws Exception {
		Http2Pool pool = pool(closedPort(), Duration.ofMillis(50));
		Http2Pool.Generation generation = pool.current();
		assertThat(pool.enter(generation)).isTrue();
		boolean held = CompletableFuture.supplyAsync(() -> {
			try {
				return pool.enter(generation);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}).get(10, TimeUnit.SECONDS);
		assertThat(held).as("went without the gate").isFalse();
		pool.leave(true);
	}

	@Test
	void aConnectionWhosePingFailsIsReplacedOnce() throws Exception {
		Http2Pool pool = pool(closedPort(), Duration.ofSeconds(1));
		Http2Pool.Generation generation = pool.current();
		assertThat(pool.closedEarly(generation).get(30, TimeUnit.SECONDS)).isTrue();
		Http2Pool.Generation next = pool.current();
		assertThat(next).isNotSameAs(generation);
		assertThat(next.number).isEqualTo(generation.number + 1);
		// another response of the old connection closing: the new one is not replaced
		assertThat(pool.closedEarly(generation).get(10, TimeUnit.SECONDS)).isFalse();
		assertThat(pool.current()).isSameAs(next);
		assertThat(pool.pings()).isEqualTo(1);
	}

	@Test
	void aPingUnansweredWithinItsTimeoutGivesTheConnectionUpAndCancelsTheRequestsWaitingOnIt() throws Exception {
		// accepts connections and never answers: a black hole
		try (ServerSocket hole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
			Http2Pool pool = pool(URI.create("http://127.0.0.1:" + hole.getLocalPort()), Duration.ofSeconds(1),
					Duration.ofSeconds(2));
			Http2Pool.Generation generation = pool.current();
			CompletableFuture<Void> waiting = new CompletableFuture<>();
			generation.aborts.add(() -> waiting.cancel(true));
			CompletableFuture<Boolean> first = pool.closedEarly(generation);
			CompletableFuture<Boolean> second = pool.closedEarly(generation);
			assertThat(second.get(10, TimeUnit.SECONDS)).as("one ping at a time").isFalse();
			assertThat(first.get(30, TimeUnit.SECONDS)).isTrue();
			assertThat(pool.pings()).isEqualTo(1);
			assertThat(waiting).isCancelled();
			assertThat(pool.current()).isNotSameAs(generation);
		}
	}

	@Test
	void aConnectionThatAnswersItsPingIsKept() throws Exception {
		HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		server.createContext("/", (exchange) -> {
			// any answer counts, a refusal too
			exchange.sendResponseHeaders(401, -1);
			exchange.close();
		});
		server.start();
		try {
			Http2Pool pool = pool(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
					Duration.ofSeconds(1));
			Http2Pool.Generation generation = pool.current();
			assertThat(pool.closedEarly(generation).get(30, TimeUnit.SECONDS)).isFalse();
			assertThat(pool.pings()).isEqualTo(1);
			assertThat(pool.current()).isSameAs(generation);
		}
		finally {
			server.stop(0);
		}
	}

	@Test
	void aPingCarriesTheCredentialsOfTheLastRequest() throws Exception {
		// as any request to the API server: kube-apiserver may close an HTTP/2
		// connection after an anonymous request
		java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
		HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		server.createContext("/", (exchange) -> {
			seen.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
			exchange.sendResponseHeaders(200, -1);
			exchange.close();
		});
		server.start();
		try {
			Http2Pool pool = pool(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
					Duration.ofSeconds(1));
			pool.authorization("Bearer first");
			pool.authorization(null);
			pool.authorization("Bearer second");
			pool.authorization(null);
			assertThat(pool.closedEarly(pool.current()).get(30, TimeUnit.SECONDS)).isFalse();
			assertThat(seen).containsExactly("Bearer second");
			assertThat(pool.toString()).doesNotContain("second");
		}
		finally {
			server.stop(0);
		}
	}

	@Test
	void aRequestGivenUpWhileWaitingForItsAnswerHasItsConnectionPinged() throws Exception {
		// no response open on the connection to close early: the request's own end
		// (the watchdog's interrupt) pings it, and a black hole is given up
		try (ServerSocket hole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
			Http2Pool pool = pool(URI.create("http://127.0.0.1:" + hole.getLocalPort()), Duration.ofSeconds(1),
					Duration.ofSeconds(2));
			Http2Pool.Generation generation = pool.current();
			ReadAheadRequestFactory factory = new ReadAheadRequestFactory(pool);
			CompletableFuture<Throwable> failure = new CompletableFuture<>();
			Thread requester = new Thread(() -> {
				try {
					factory
						.createRequest(URI.create("http://127.0.0.1:" + hole.getLocalPort() + "/api"),
								org.springframework.http.HttpMethod.GET)
						.execute()
						.close();
					failure.complete(null);
				}
				catch (Throwable ex) {
					failure.complete(ex);
				}
			});
			requester.start();
			org.awaitility.Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> requester.getState() == Thread.State.WAITING);
			requester.interrupt();
			assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(java.io.InterruptedIOException.class);
			assertThat(pool.pings()).isEqualTo(1);
			org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> pool.current() != generation);
		}
	}

	@Test
	void thePingAsksForLivezWhichPriorityAndFairnessExempts() throws Exception {
		// kube-apiserver's suggested flow schema "probes" puts a GET of exactly /livez,
		// /readyz or /healthz in the exempt priority level; /version queues with the
		// client's own traffic
		java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
		HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		server.createContext("/", (exchange) -> {
			seen.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
			exchange.sendResponseHeaders(200, -1);
			exchange.close();
		});
		server.start();
		try {
			Http2Pool pool = pool(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
					Duration.ofSeconds(1));
			assertThat(pool.closedEarly(pool.current()).get(30, TimeUnit.SECONDS)).isFalse();
			assertThat(seen).containsExactly("GET /livez");
		}
		finally {
			server.stop(0);
		}
	}

	@Test
	void aPingAnsweredAfterThreeSecondsKeepsTheConnection() throws Exception {
		// a server under load answers late: client-go gives a ping 15 s
		HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		server.createContext("/", (exchange) -> {
			try {
				Thread.sleep(3000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			exchange.sendResponseHeaders(200, -1);
			exchange.close();
		});
		server.start();
		try {
			Http2Pool pool = pool(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
					Duration.ofSeconds(1));
			Http2Pool.Generation generation = pool.current();
			assertThat(pool.closedEarly(generation).get(30, TimeUnit.SECONDS)).as("given up").isFalse();
			assertThat(pool.current()).isSameAs(generation);
		}
		finally {
			server.stop(0);
		}
	}

	@Test
	void aConnectionWhoseStreamsReceiveBytesIsKeptThoughItsPingGoesUnanswered() throws Exception {
		// the ping waits behind a busy server while a watch on the connection streams:
		// the connection is alive, and nothing on it is aborted
		java.util.concurrent.CountDownLatch end = new java.util.concurrent.CountDownLatch(1);
		HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
		server.createContext("/watch", (exchange) -> {
			exchange.sendResponseHeaders(200, 0);
			try (java.io.OutputStream body = exchange.getResponseBody()) {
				while (!end.await(50, TimeUnit.MILLISECONDS)) {
					body.write("{}\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
					body.flush();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		server.createContext("/", (exchange) -> {
			try {
				end.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			exchange.close();
		});
		server.start();
		try {
			URI base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
			Http2Pool pool = pool(base, Duration.ofSeconds(1), Duration.ofSeconds(2));
			Http2Pool.Generation generation = pool.current();
			ReadAheadRequestFactory factory = new ReadAheadRequestFactory(pool);
			org.springframework.http.client.ClientHttpResponse watch = factory
				.createRequest(URI.create(base + "/watch"), org.springframework.http.HttpMethod.GET)
				.execute();
			Thread reader = new Thread(() -> {
				byte[] buffer = new byte[1024];
				try (java.io.InputStream in = watch.getBody()) {
					while (in.read(buffer) >= 0) {
						// keep reading
					}
				}
				catch (java.io.IOException ex) {
					// closed at the end
				}
			});
			reader.start();
			CompletableFuture<Void> waiting = new CompletableFuture<>();
			generation.aborts.add(() -> waiting.cancel(true));
			assertThat(pool.closedEarly(generation).get(60, TimeUnit.SECONDS)).as("given up").isFalse();
			assertThat(pool.current()).isSameAs(generation);
			assertThat(waiting).isNotCancelled();
			end.countDown();
			watch.close();
			reader.join(10_000);
		}
		finally {
			end.countDown();
			server.stop(0);
		}
	}

}
