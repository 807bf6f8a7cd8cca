package dev.listwatch.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Spring's request factory over the JDK {@link HttpClient}, with a response body that
 * reads ahead. Spring's own {@code JdkClientHttpRequestFactory} reads bodies through
 * {@code BodyHandlers.ofInputStream()}, which asks the client for one buffer at a time:
 * on a watch that streams hundreds of megabytes a second the reading thread then waits on
 * the client's selector thread after every 16 KB, and the two hand over and over again.
 * Here the body asks for {@value ReadAheadBody#WINDOW} buffers ahead (at most a few
 * hundred KB per response) and a read takes all that has arrived, so both sides run
 * without waiting for each other.
 * <p>
 * A stream that breaks still yields every byte that arrived before the error is reported,
 * and closing the body from another thread ends a read parked on it.
 */
final class ReadAheadRequestFactory implements ClientHttpRequestFactory {

	private final @Nullable HttpClient client;

	private final @Nullable Http2Pool pool;

	ReadAheadRequestFactory(HttpClient client) {
		this.client = client;
		this.pool = null;
	}

	/**
	 * A factory over HTTP/2 clients that share their connections (see {@link Http2Pool}).
	 * @param pool the clients
	 */
	ReadAheadRequestFactory(Http2Pool pool) {
		this.client = null;
		this.pool = pool;
	}

	@Override
	public ClientHttpRequest createRequest(URI uri, HttpMethod method) {
		return new Request(this.client, this.pool, uri, method);
	}

	/**
	 * Whether a request may be sent again without doing twice what it asks, whatever
	 * became of the first: a read; a write the server refuses once it is done (a
	 * {@code PUT} or {@code PATCH} carrying the object's {@code resourceVersion}, a
	 * {@code DELETE} with a uid or resourceVersion precondition). Never a {@code POST}: a
	 * create with {@code generateName} would make a second object.
	 * @param method the method
	 * @param body the body
	 * @return whether sending it again is safe
	 */
	static boolean replayable(HttpMethod method, byte[] body) {
		if (Request.READS.contains(method)) {
			return true;
		}
		if (body.length == 0 || !(HttpMethod.PUT.equals(method) || HttpMethod.PATCH.equals(method)
				|| HttpMethod.DELETE.equals(method))) {
			return false;
		}
		tools.jackson.databind.JsonNode tree;
		try {
			tree = tools.jackson.databind.json.JsonMapper.shared().readTree(body);
		}
		catch (RuntimeException ex) {
			// not JSON (an apply's YAML): not provably safe
			return false;
		}
		if (HttpMethod.DELETE.equals(method)) {
			return !tree.path("preconditions").path("uid").asString("").isEmpty()
					|| !tree.path("preconditions").path("resourceVersion").asString("").isEmpty();
		}
		if (tree.isArray()) {
			// a JSON patch: safe when it tests the resourceVersion
			for (tools.jackson.databind.JsonNode operation : tree) {
				if ("test".equals(operation.path("op").asString(""))
						&& "/metadata/resourceVersion".equals(operation.path("path").asString(""))) {
					return true;
				}
			}
			return false;
		}
		return !tree.path("metadata").path("resourceVersion").asString("").isEmpty();
	}

	private static final class Request extends BufferedRequest {

		/** Methods that change nothing: sent again after a GOAWAY. */
		private static final Set<HttpMethod> READS = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS);

		private final @Nullable HttpClient client;

		private final @Nullable Http2Pool pool;

		Request(@Nullable HttpClient client, @Nullable Http2Pool pool, URI uri, HttpMethod method) {
			super(uri, method);
			this.client = client;
			this.pool = pool;
		}

		@Override
		protected ClientHttpResponse executeInternal(HttpHeaders headers, byte[] body) throws IOException {
			Http2Pool pool = this.pool;
			if (pool == null) {
				return send(Objects.requireNonNull(this.client), headers, body, null, null);
			}
			pool.authorization(headers.getFirst(HttpHeaders.AUTHORIZATION));
			Http2Pool.Generation first = pool.current();
			boolean held = pool.enter(first);
			// the connection may have been given up while this request waited at the gate
			Http2Pool.Generation generation = pool.current();
			try {
				Response response = send(generation.client, headers, body, pool, generation);
				pool.connected(generation, response.version());
				return response;
			}
			catch (IOException ex) {
				if (Http2Pool.refusedForStreams(ex)) {
					// the connection is up, with as many streams as the server allows
					return send(pool.overflow(), headers, body, null, null);
				}
				pool.broken(generation);
				if (ex instanceof InterruptedIOException || ex instanceof java.net.http.HttpTimeoutException) {
					// given up while waiting for its answer (the watchdog, a timeout):
					// the
					// connection may be half-open with no response open on it to close
					// early, so it is pinged here too
					pool.closedEarly(generation);
				}
				if (Http2Pool.goneAway(ex) && replayable(getMethod(), body)) {
					// Java 17's client fails every stream of a connection that received
					// a GOAWAY, the one the server answered too: kube-apiserver answers a
					// request it cannot authenticate (401) with a GOAWAY after the
					// answer, and the 401 must reach the credentials' refresh. Asked
					// again on HTTP/1.1, the request gets its answer.
					return send(pool.overflow(), headers, body, null, null);
				}
				throw ex;
			}
			finally {
				pool.leave(held);
			}
		}

		private Response send(HttpClient client, HttpHeaders headers, byte[] body, @Nullable Http2Pool pool,
				Http2Pool.@Nullable Generation generation) throws IOException {
			HttpRequest.Builder request = HttpRequest.newBuilder(getURI())
				.method(getMethod().name(), (body.length == 0) ? HttpRequest.BodyPublishers.noBody()
						: HttpRequest.BodyPublishers.ofByteArray(body));
			headers.forEach((name, values) -> {
				if (BufferedRequest.passed(name)) {
					values.forEach((value) -> request.header(name, value));
				}
			});
			CompletableFuture<HttpResponse<InputStream>> future;
			try {
				future = client.sendAsync(request.build(), (info) -> (pool != null && generation != null)
						? new ReadAheadBody(pool, generation) : new ReadAheadBody());
			}
			catch (RejectedExecutionException ex) {
				throw closed(ex);
			}
			Runnable abort = () -> future.cancel(true);
			if (generation != null) {
				generation.aborts.add(abort);
				if (pool != null && pool.current() != generation) {
					// given up between the send and the registration: the aborts have run
					abort.run();
				}
			}
			try {
				return new Response(future.get());
			}
			catch (CancellationException ex) {
				// the connection was given up while the request waited for its answer
				throw new IOException("the request was cancelled: its HTTP/2 connection did not answer a ping", ex);
			}
			catch (InterruptedException ex) {
				// cancelling abandons the exchange (and its connection); the interrupt
				// stays set
				future.cancel(true);
				Thread.currentThread().interrupt();
				throw new InterruptedIOException("the request was interrupted");
			}
			catch (ExecutionException ex) {
				Throwable cause = Objects.requireNonNull(ex.getCause(), "a future fails with a cause");
				if (cause instanceof UncheckedIOException unchecked) {
					throw unchecked.getCause();
				}
				if (cause instanceof IOException io) {
					throw io;
				}
				if (cause instanceof CancellationException) {
					throw new IOException("the request was cancelled", cause);
				}
				if (cause instanceof RejectedExecutionException rejected) {
					throw closed(rejected);
				}
				if (cause instanceof RuntimeException runtime) {
					throw runtime;
				}
				throw new IOException(String.valueOf(cause.getMessage()), cause);
			}
			finally {
				if (generation != null) {
					generation.aborts.remove(abort);
				}
			}
		}

		/** The transport's threads were stopped: the client was closed. */
		private static IOException closed(RejectedExecutionException ex) {
			return new IOException("the API server client is closed", ex);
		}

	}

	private static final class Response implements ClientHttpResponse {

		private final HttpResponse<InputStream> response;

		private final HttpHeaders headers = new HttpHeaders();

		Response(HttpResponse<InputStream> response) {
			this.response = response;
			response.headers().map().forEach((name, values) -> {
				if (!name.startsWith(":")) {
					this.headers.addAll(name, values);
				}
			});
		}

		@Override
		public HttpStatusCode getStatusCode() {
			return HttpStatusCode.valueOf(this.response.statusCode());
		}

		HttpClient.Version version() {
			return this.response.version();
		}

		@Override
		public String getStatusText() {
			HttpStatus status = HttpStatus.resolve(this.response.statusCode());
			return (status != null) ? status.getReasonPhrase() : "";
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

		@Override
		public InputStream getBody() {
			// a proxy's refusal of a CONNECT (407, 403, ...) comes back without a body
			InputStream body = this.response.body();
			return (body != null) ? body : InputStream.nullInputStream();
		}

		@Override
		public void close() {
			// a body read to its end has given its connection back already; any other is
			// cut
			try {
				getBody().close();
			}
			catch (IOException ex) {
				// nothing to do: the connection is gone either way
			}
		}

	}

	/**
	 * The body subscriber and the stream it feeds. The client's threads call the
	 * subscriber methods (one at a time); one thread reads; any thread may close.
	 */
	static final class ReadAheadBody extends InputStream implements HttpResponse.BodySubscriber<InputStream> {

		/** Buffer lists asked for ahead (the JDK client's buffers are 16 KB). */
		static final int WINDOW = 16;

		private static final List<ByteBuffer> END = Collections.emptyList();

		private final LinkedBlockingQueue<List<ByteBuffer>> arrived = new LinkedBlockingQueue<>();

		private final CompletableFuture<Flow.Subscription> subscription = new CompletableFuture<>();

		private final @Nullable Http2Pool pool;

		private final Http2Pool.@Nullable Generation generation;

		private volatile boolean complete;

		private volatile @Nullable Throwable failure;

		private volatile boolean closed;

		// the reading thread's own state

		private Iterator<ByteBuffer> list = Collections.emptyIterator();

		private @Nullable ByteBuffer current;

		private int taken;

		private boolean ended;

		ReadAheadBody() {
			this.pool = null;
			this.generation = null;
		}

		/**
		 * A body of a stream over a shared HTTP/2 connection, which tells the pool when
		 * the stream fails, or is closed after a silence.
		 */
		ReadAheadBody(Http2Pool pool, Http2Pool.Generation generation) {
			this.pool = pool;
			this.generation = generation;
		}

		// ---- the subscriber side

		@Override
		public CompletionStage<InputStream> getBody() {
			return CompletableFuture.completedStage(this);
		}

		@Override
		public void onSubscribe(Flow.Subscription s) {
			if (!this.subscription.complete(s)) {
				s.cancel();
				return;
			}
			if (this.closed) {
				s.cancel();
			}
			else {
				s.request(WINDOW);
			}
		}

		@Override
		public void onNext(List<ByteBuffer> buffers) {
			Http2Pool.Generation generation = this.generation;
			if (generation != null) {
				// the connection is alive: a ping that waits on a busy server gives
				// it up only after a silence
				generation.received();
			}
			this.arrived.add(buffers);
		}

		@Override
		public void onError(Throwable error) {
			this.failure = error;
			this.complete = true;
			Http2Pool pool = this.pool;
			if (pool != null && !this.closed) {
				pool.broken(Objects.requireNonNull(this.generation));
			}
			this.arrived.add(END);
		}

		@Override
		public void onComplete() {
			this.complete = true;
			this.arrived.add(END);
		}

		// ---- the stream side

		@Override
		public int read() throws IOException {
			byte[] one = new byte[1];
			int n = read(one, 0, 1);
			return (n < 0) ? -1 : (one[0] & 0xff);
		}

		/**
		 * Copies what has arrived, up to {@code len} bytes; waits only when nothing has.
		 */
		@Override
		public int read(byte[] b, int off, int len) throws IOException {
			Objects.checkFromIndexSize(off, len, b.length);
			ensureOpen();
			if (len == 0) {
				return 0;
			}
			int n = 0;
			while (n < len) {
				ByteBuffer buffer = this.current;
				if (buffer == null || !buffer.hasRemaining()) {
					buffer = nextBuffer(n == 0);
					if (buffer == null) {
						break;
					}
					this.current = buffer;
				}
				int count = Math.min(buffer.remaining(), len - n);
				buffer.get(b, off + n, count);
				n += count;
			}
			if (n > 0) {
				return n;
			}
			ensureOpen();
			Throwable error = this.failure;
			if (error != null) {
				throw (error instanceof IOException io) ? io : new IOException(error.getMessage(), error);
			}
			return -1;
		}

		@Override
		public int available() {
			ByteBuffer buffer = this.current;
			return (buffer != null) ? buffer.remaining() : 0;
		}

		/**
		 * The next buffer with bytes, or {@code null} at the end, or when none has
		 * arrived and {@code wait} is false.
		 */
		private @Nullable ByteBuffer nextBuffer(boolean wait) throws IOException {
			while (true) {
				while (this.list.hasNext()) {
					ByteBuffer buffer = this.list.next();
					if (buffer.hasRemaining()) {
						return buffer;
					}
				}
				if (this.ended) {
					return null;
				}
				List<ByteBuffer> next;
				if (wait) {
					try {
						next = this.arrived.take();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						throw new InterruptedIOException("a read of the response was interrupted");
					}
				}
				else {
					next = this.arrived.poll();
					if (next == null) {
						return null;
					}
				}
				if (next == END) {
					this.ended = true;
					return null;
				}
				this.list = next.iterator();
				// ask for more once half the window is used
				if (++this.taken >= WINDOW / 2) {
					this.subscription.join().request(this.taken);
					this.taken = 0;
				}
			}
		}

		private void ensureOpen() throws IOException {
			if (this.closed) {
				throw new IOException("the response body is closed");
			}
		}

		/** Stops the response; a read parked on it ends (with an IOException). */
		@Override
		public void close() {
			if (this.closed) {
				return;
			}
			this.closed = true;
			Http2Pool pool = this.pool;
			if (pool != null && !this.complete) {
				// closed before its end: the watchdog may have given it up, and the
				// connection it shares may be half-open
				pool.closedEarly(Objects.requireNonNull(this.generation));
			}
			Flow.Subscription s = this.subscription.getNow(null);
			if (s != null) {
				s.cancel();
			}
			// wake a reader parked in take(); it then sees the stream closed
			this.arrived.add(END);
		}

	}

}
