package dev.listwatch.etcd;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.Status;
import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelProvider;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.ssl.SslBundle;

/**
 * etcd's native gRPC API ({@code etcdserverpb.KV/Range},
 * {@code etcdserverpb.Watch/Watch}, {@code etcdserverpb.Auth/Authenticate}) over
 * grpc-java, with the messages encoded and decoded by {@link Protobuf}: etcd serves it
 * without its JSON gateway's translation, the cost of most of its CPU per watch event.
 * Used when grpc-java and a transport for it (grpc-netty-shaded, grpc-netty or
 * grpc-okhttp) are on the class path; nothing else refers to its gRPC types, so without
 * them it is never loaded.
 * <p>
 * As {@link Gateway}: one channel per endpoint (made when first used); a call goes to one
 * endpoint until it cannot be reached (gRPC's UNAVAILABLE), then to the next, and tries
 * each once; with a user name, the token from {@code Authenticate} goes in the
 * {@code token} metadata of every call, and a call refused as Unauthenticated
 * authenticates again and is sent once more; failures are {@link KubernetesApiException}s
 * whose {@link Status} is {@link Gateway#status(int, String)} of etcd's gRPC code. TLS
 * takes the trust and key managers of the connection's {@link SslBundle}. A watch's
 * answers are read with flow control: a few ahead of the reader, no more. Neither the
 * password nor the token appears in a message or log. Thread-safe.
 */
final class GrpcTransport implements Transport {

	private static final Log logger = LogFactory.getLog(GrpcTransport.class);

	/**
	 * The logger under which gRPC's shaded Netty transport logs each HTTP/2 frame at
	 * DEBUG: headers (the token) and data (the Authenticate request's password).
	 */
	static final String FRAMES_LOGGER = "io.grpc.netty.shaded.io.grpc.netty.NettyClientHandler";

	private static final Metadata.Key<String> TOKEN = Metadata.Key.of("token", Metadata.ASCII_STRING_MARSHALLER);

	/**
	 * The metadata by which a watch asks etcd to be cancelled when its member has no
	 * leader.
	 */
	private static final Metadata.Key<String> HAS_LEADER = Metadata.Key.of("hasleader",
			Metadata.ASCII_STRING_MARSHALLER);

	private static final byte[] PROGRESS_REQUEST = Protobuf.watchProgressRequest();

	/** Answers of a watch read ahead of the reader, at most. */
	private static final int WINDOW = 4;

	private static final MethodDescriptor<byte[], Range> RANGE = unary("etcdserverpb.KV/Range", Protobuf::range);

	private static final MethodDescriptor<byte[], String> AUTHENTICATE = unary("etcdserverpb.Auth/Authenticate",
			Protobuf::token);

	private static final MethodDescriptor<byte[], Answer> WATCH = MethodDescriptor.<byte[], Answer>newBuilder()
		.setType(MethodDescriptor.MethodType.BIDI_STREAMING)
		.setFullMethodName("etcdserverpb.Watch/Watch")
		.setRequestMarshaller(Bytes.INSTANCE)
		.setResponseMarshaller(new Decoding<>(Protobuf::watchResponse))
		.build();

	private final List<URI> endpoints;

	private final ManagedChannel[] channels;

	private final @Nullable SslBundle ssl;

	private final @Nullable String username;

	private final @Nullable String password;

	private final Duration connectTimeout;

	private final AuthToken token = new AuthToken();

	private volatile int current;

	private volatile boolean closed;

	/**
	 * Makes the transport (typed as the interface, so that its callers' code names no
	 * gRPC type).
	 * @param connection where etcd is and how to log in
	 * @return the transport
	 */
	static Transport create(EtcdConnection connection) {
		return new GrpcTransport(connection);
	}

	private GrpcTransport(EtcdConnection connection) {
		this.endpoints = connection.endpoints();
		this.channels = new ManagedChannel[this.endpoints.size()];
		this.ssl = connection.ssl();
		this.username = connection.username();
		this.password = connection.password();
		this.connectTimeout = connection.connectTimeout();
		if (this.username != null && LogFactory.getLog(FRAMES_LOGGER).isDebugEnabled()) {
			logger.warn("Logger " + FRAMES_LOGGER + " is at DEBUG: gRPC's Netty transport then logs every frame,"
					+ " the etcd password and token included. Set it to INFO.");
		}
	}

	/**
	 * Whether gRPC can be used: grpc-java with a transport that makes channels.
	 * @return whether it can
	 */
	static boolean available() {
		try {
			return ManagedChannelProvider.provider() != null;
		}
		catch (LinkageError | RuntimeException ex) {
			return false;
		}
	}

	@Override
	public Range range(byte[] key, byte[] rangeEnd, @Nullable Long limit, long revision, String what) {
		return call(RANGE, Protobuf.rangeRequest(key, rangeEnd, limit, revision), what);
	}

	@Override
	public Answers watch(byte[] key, byte[] rangeEnd, long startRevision, String what) {
		byte[] request = Protobuf.watchCreateRequest(key, rangeEnd, startRevision);
		return onEndpoints(what, (index, description) -> {
			Metadata headers = headers(index);
			// etcd cancels a watch that asks for a leader when its member loses the
			// leader (as kube-apiserver's watches ask): a member cut off from the others
			// would otherwise keep the watch open, quiet, at a revision that no longer
			// moves
			headers.put(HAS_LEADER, "true");
			Watch watch = new Watch(description, channel(index), headers);
			watch.open(request);
			return watch;
		});
	}

	/** A unary call, to the endpoints in turn. */
	private <R> R call(MethodDescriptor<byte[], R> method, byte[] request, String what) {
		return onEndpoints(what, (index, description) -> unaryCall(channel(index), method, request, headers(index)));
	}

	/**
	 * Makes a call to the endpoints in turn, from the one that answered last: the next
	 * one when an endpoint cannot be reached, the same once more after authenticating
	 * again when etcd refuses the token (an expired or unknown one: etcd restarted).
	 */
	private <R> R onEndpoints(String what, EndpointCall<R> call) {
		boolean reauthenticated = false;
		KubernetesApiException failure = null;
		int start = this.current;
		for (int attempt = 0; attempt < this.endpoints.size(); attempt++) {
			int index = (start + attempt) % this.endpoints.size();
			String description = "etcd " + what + " at " + this.endpoints.get(index);
			try {
				R answer = call.to(index, description);
				this.current = index;
				return answer;
			}
			catch (StatusRuntimeException ex) {
				failure = failed(description, ex);
				if (failure.kind() == KubernetesApiException.Kind.CONNECTION) {
					this.current = (index + 1) % this.endpoints.size();
					continue;
				}
				if (failure.status() != null && failure.status().code() == 401 && this.username != null
						&& !reauthenticated) {
					reauthenticated = true;
					this.token.forget();
					attempt--;
					continue;
				}
				throw failure;
			}
		}
		throw failure;
	}

	/** One call to the endpoint of an index. */
	@FunctionalInterface
	private interface EndpointCall<R> {

		R to(int index, String description);

	}

	/**
	 * The exception of a failed call: UNAVAILABLE (the endpoint cannot be reached, or the
	 * connection broke) is a connection failure, any other code etcd's refusal.
	 */
	private static KubernetesApiException failed(String description, StatusRuntimeException ex) {
		io.grpc.Status status = ex.getStatus();
		String message = (status.getDescription() != null) ? status.getDescription() : status.getCode().name();
		if (status.getCode() == io.grpc.Status.Code.UNAVAILABLE) {
			Throwable cause = status.getCause();
			return new KubernetesApiException(KubernetesApiException.Kind.CONNECTION, description + " failed: "
					+ message + ((cause != null) ? " (" + cause.getClass().getSimpleName() + ")" : ""), ex);
		}
		return KubernetesApiException.of(description, Gateway.status(status.getCode().value(), message), null);
	}

	private static <R> R unaryCall(ManagedChannel channel, MethodDescriptor<byte[], R> method, byte[] request,
			Metadata headers) {
		ClientCall<byte[], R> call = channel.newCall(method,
				CallOptions.DEFAULT.withDeadlineAfter(Gateway.ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
		CompletableFuture<R> result = new CompletableFuture<>();
		call.start(new ClientCall.Listener<>() {

			private @Nullable R answer;

			@Override
			public void onMessage(R message) {
				this.answer = message;
			}

			@Override
			public void onClose(io.grpc.Status status, Metadata trailers) {
				R answer = this.answer;
				if (status.isOk() && answer != null) {
					result.complete(answer);
				}
				else {
					result.completeExceptionally(
							(status.isOk() ? io.grpc.Status.INTERNAL.withDescription("no answer") : status)
								.asRuntimeException());
				}
			}

		}, headers);
		call.request(2);
		call.sendMessage(request);
		call.halfClose();
		try {
			return result.get();
		}
		catch (InterruptedException ex) {
			call.cancel("interrupted", null);
			Thread.currentThread().interrupt();
			throw io.grpc.Status.UNAVAILABLE.withDescription("interrupted").asRuntimeException();
		}
		catch (ExecutionException ex) {
			throw (StatusRuntimeException) ex.getCause();
		}
	}

	/** The headers of a call: the token, authenticating first when there is none yet. */
	private Metadata headers(int index) {
		Metadata headers = new Metadata();
		if (this.username == null) {
			return headers;
		}
		String token = this.token.get(() -> authenticate(index));
		if (!token.isEmpty()) {
			headers.put(TOKEN, token);
		}
		return headers;
	}

	private String authenticate(int index) {
		URI endpoint = this.endpoints.get(index);
		String user = (this.username != null) ? this.username : "";
		try {
			String token = unaryCall(channel(index), AUTHENTICATE,
					Protobuf.authenticateRequest(user, (this.password != null) ? this.password : ""), new Metadata());
			if (token.isEmpty()) {
				throw io.grpc.Status.INTERNAL.withDescription("etcd answered the authentication without a token")
					.asRuntimeException();
			}
			return token;
		}
		catch (StatusRuntimeException ex) {
			io.grpc.Status status = ex.getStatus();
			String message = (status.getDescription() != null) ? status.getDescription() : status.getCode().name();
			if (message.contains("authentication is not enabled")) {
				logger.warn("etcd at " + endpoint + " does not have authentication enabled; listwatch.etcd.username "
						+ "and password are not used");
				return "";
			}
			if (status.getCode() == io.grpc.Status.Code.UNAVAILABLE) {
				throw ex;
			}
			Status translated = Gateway.status(status.getCode().value(), message);
			String fix = "; check listwatch.etcd.username and listwatch.etcd.password";
			throw KubernetesApiException.of("etcd authentication of user '" + user + "' at " + endpoint,
					new Status((translated.code() == 400) ? 401 : translated.code(), "Unauthorized",
							translated.message() + fix),
					null);
		}
	}

	private ManagedChannel channel(int index) {
		ManagedChannel channel;
		synchronized (this.channels) {
			if (this.closed) {
				throw io.grpc.Status.UNAVAILABLE.withDescription("the etcd client is closed").asRuntimeException();
			}
			channel = this.channels[index];
			if (channel != null && channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
				// the reflector's backoff paces the attempts, not the channel's
				// own (which grows to 2 minutes): connect again now
				channel.resetConnectBackoff();
			}
			if (channel == null) {
				URI endpoint = this.endpoints.get(index);
				boolean tls = "https".equalsIgnoreCase(endpoint.getScheme());
				int port = (endpoint.getPort() > 0) ? endpoint.getPort() : (tls ? 443 : 80);
				channel = Grpc.newChannelBuilderForAddress(endpoint.getHost(), port, credentials(tls))
					.directExecutor()
					.maxInboundMessageSize(Integer.MAX_VALUE)
					.keepAliveTime(30, TimeUnit.SECONDS)
					.keepAliveTimeout(10, TimeUnit.SECONDS)
					.userAgent("listwatch")
					.build();
				this.channels[index] = channel;
			}
		}
		awaitConnecting(channel);
		return channel;
	}

	/**
	 * Waits while the channel connects, up to the connect timeout, so that an endpoint
	 * that does not answer (a host that is down, a dropped SYN) fails as one that cannot
	 * be reached and the next endpoint is tried, as the gateway's connect timeout does. A
	 * channel that failed to connect fails the call at once (UNAVAILABLE).
	 */
	private void awaitConnecting(ManagedChannel channel) {
		long deadline = System.nanoTime() + this.connectTimeout.toNanos();
		ConnectivityState state = channel.getState(true);
		while (state == ConnectivityState.IDLE || state == ConnectivityState.CONNECTING) {
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				throw io.grpc.Status.UNAVAILABLE.withDescription("no connection within " + this.connectTimeout)
					.asRuntimeException();
			}
			CountDownLatch changed = new CountDownLatch(1);
			channel.notifyWhenStateChanged(state, changed::countDown);
			try {
				changed.await(left, TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw io.grpc.Status.UNAVAILABLE.withDescription("interrupted").asRuntimeException();
			}
			state = channel.getState(true);
		}
	}

	private ChannelCredentials credentials(boolean tls) {
		if (!tls) {
			return InsecureChannelCredentials.create();
		}
		SslBundle ssl = this.ssl;
		if (ssl == null) {
			return TlsChannelCredentials.create();
		}
		TlsChannelCredentials.Builder builder = TlsChannelCredentials.newBuilder()
			.trustManager(ssl.getManagers().getTrustManagers());
		if (ssl.getStores().getKeyStore() != null) {
			builder.keyManager(ssl.getManagers().getKeyManagers());
		}
		return builder.build();
	}

	@Override
	public void tokenRejected() {
		this.token.forget();
	}

	@Override
	public boolean authenticates() {
		return this.username != null;
	}

	@Override
	public void close() {
		synchronized (this.channels) {
			this.closed = true;
			for (ManagedChannel channel : this.channels) {
				if (channel != null) {
					channel.shutdownNow();
				}
			}
		}
	}

	@Override
	public String toString() {
		return "etcd " + this.endpoints + " (gRPC)" + ((this.username != null) ? " as " + this.username : "");
	}

	private static <R> MethodDescriptor<byte[], R> unary(String name, Function<byte[], R> decoder) {
		return MethodDescriptor.<byte[], R>newBuilder()
			.setType(MethodDescriptor.MethodType.UNARY)
			.setFullMethodName(name)
			.setRequestMarshaller(Bytes.INSTANCE)
			.setResponseMarshaller(new Decoding<>(decoder))
			.build();
	}

	/** Requests go out as the bytes {@link Protobuf} encoded. */
	private enum Bytes implements MethodDescriptor.Marshaller<byte[]> {

		INSTANCE;

		@Override
		public InputStream stream(byte[] value) {
			return new ByteArrayInputStream(value);
		}

		@Override
		public byte[] parse(InputStream stream) {
			return read(stream);
		}

	}

	/** Answers are decoded by {@link Protobuf} (on gRPC's thread, as they arrive). */
	private record Decoding<R>(Function<byte[], R> decoder) implements MethodDescriptor.Marshaller<R> {

		@Override
		public InputStream stream(R value) {
			throw new UnsupportedOperationException("answers are only read");
		}

		@Override
		public R parse(InputStream stream) {
			return this.decoder.apply(read(stream));
		}

	}

	private static byte[] read(InputStream stream) {
		try (stream) {
			return stream.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * One watch: a bidirectional call that sent its create request, and the answers etcd
	 * sends, queued for the reader (the watch's thread) as they arrive, at most
	 * {@link #WINDOW} ahead of it.
	 */
	private static final class Watch extends ClientCall.Listener<Answer> implements Answers {

		private static final Object CLOSED = new Object();

		private final String what;

		private final ClientCall<byte[], Answer> call;

		private final ManagedChannel channel;

		private final Metadata headers;

		/**
		 * Answers, then the call's end: an {@code io.grpc.Status} (or {@link #CLOSED}).
		 */
		private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();

		private @Nullable Answer first;

		private boolean ended;

		private volatile boolean closed;

		/** Sends of the request stream after the create request: one at a time. */
		private final Object sending = new Object();

		Watch(String what, ManagedChannel channel, Metadata headers) {
			this.what = what;
			this.channel = channel;
			this.call = channel.newCall(WATCH, CallOptions.DEFAULT);
			this.headers = headers;
		}

		/**
		 * Starts the call, sends the create request and waits for etcd's first answer.
		 * @throws StatusRuntimeException when the call fails before it
		 */
		void open(byte[] request) {
			this.call.start(this, this.headers);
			this.call.request(WINDOW);
			this.call.sendMessage(request);
			Object first;
			try {
				first = this.queue.poll(Gateway.ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				close();
				throw io.grpc.Status.UNAVAILABLE.withDescription("interrupted").asRuntimeException();
			}
			if (first == null) {
				close();
				throw io.grpc.Status.UNAVAILABLE
					.withDescription("no answer within " + Duration.ofMillis(Gateway.ANSWER_TIMEOUT.toMillis()))
					.asRuntimeException();
			}
			if (first instanceof io.grpc.Status status) {
				this.ended = true;
				throw (status.isOk() ? io.grpc.Status.UNAVAILABLE.withDescription("ended before etcd answered")
						: status)
					.asRuntimeException();
			}
			this.call.request(1);
			this.first = (Answer) first;
		}

		@Override
		public void onMessage(Answer message) {
			this.queue.add(message);
		}

		@Override
		public void onClose(io.grpc.Status status, Metadata trailers) {
			this.queue.add(status);
		}

		@Override
		public @Nullable Answer next() {
			Answer first = this.first;
			if (first != null) {
				this.first = null;
				return first;
			}
			if (this.ended || this.closed) {
				return null;
			}
			Object next;
			try {
				next = this.queue.take();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				close();
				return null;
			}
			if (next instanceof Answer answer) {
				this.call.request(1);
				return answer;
			}
			this.ended = true;
			if (next == CLOSED || this.closed) {
				return null;
			}
			io.grpc.Status status = (io.grpc.Status) next;
			if (status.isOk()) {
				return null;
			}
			String message = (status.getDescription() != null) ? status.getDescription() : status.getCode().name();
			if (status.getCode() == io.grpc.Status.Code.UNAVAILABLE
					|| status.getCode() == io.grpc.Status.Code.CANCELLED) {
				throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION,
						this.what + " broke off: " + message, status.asRuntimeException());
			}
			if (status.getCode() == io.grpc.Status.Code.INTERNAL && status.getCause() != null) {
				throw new KubernetesApiException(KubernetesApiException.Kind.DECODE, this.what
						+ ": etcd sent an answer that is not a WatchResponse: " + status.getCause().getMessage(), null);
			}
			return Answer.failed(Gateway.status(status.getCode().value(), message));
		}

		@Override
		public void requestProgress() {
			if (this.closed) {
				return;
			}
			synchronized (this.sending) {
				try {
					this.call.sendMessage(PROGRESS_REQUEST);
				}
				catch (RuntimeException ex) {
					// the call has ended: the reader hears of it
				}
			}
		}

		/**
		 * Ends the watch and moves the channel to idle: calls made after it connect anew
		 * (the half-open connection would take them, and answer none), while calls under
		 * way on the old connection go on until they end, or are given up too.
		 */
		@Override
		public void abandon() {
			// idle first: the reader, woken by the close, opens the next watch at once
			this.channel.enterIdle();
			close();
		}

		@Override
		public void close() {
			if (this.closed) {
				return;
			}
			this.closed = true;
			this.call.cancel("the watch was closed", null);
			this.queue.add(CLOSED);
		}

		@Override
		public String toString() {
			return this.what;
		}

	}

}
