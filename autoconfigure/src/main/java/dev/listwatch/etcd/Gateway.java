package dev.listwatch.etcd;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.SSLContext;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.Status;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * etcd's JSON gateway ({@code /v3/...}, served on etcd's client URLs next to gRPC): unary
 * calls over the JDK HTTP client, a watch as a {@link StreamedCall} (its request body
 * stays open for progress requests, which the JDK client cannot do), the endpoints in
 * turn, and the auth token.
 * <p>
 * Endpoints: requests go to one endpoint until it cannot be reached, then to the next; a
 * call tries each endpoint once before it fails. Auth: with a user name, the token from
 * {@code /v3/auth/authenticate} goes in the {@code Authorization} header of every call; a
 * call that etcd answers with "invalid auth token" (an expired simple token, a restarted
 * etcd) authenticates again and is sent once more. Failures are
 * {@link KubernetesApiException}s whose {@link Status} translates etcd's gRPC code (see
 * {@link #status(int, String)}); neither the password nor the token ever appears in a
 * message or log. Thread-safe.
 */
final class Gateway implements Transport {

	static final String AUTHENTICATE = "/v3/auth/authenticate";

	static final String RANGE = "/v3/kv/range";

	static final String WATCH = "/v3/watch";

	private static final Log logger = LogFactory.getLog(Gateway.class);

	private static final AtomicInteger gateways = new AtomicInteger();

	private static final int THREADS = 2;

	private final List<URI> endpoints;

	private final HttpClient http;

	private final ThreadPoolExecutor executor;

	private final JsonMapper mapper;

	private final @Nullable String username;

	private final @Nullable String password;

	/**
	 * How long a request waits for its answer to begin (a watch: etcd's created answer),
	 * as the informer's idle watchdog waits by default: an etcd watch's idle timeout is
	 * raised to cover etcd's progress notifications, so its requests get this bound of
	 * their own, and a half-open connection does not hold one for as long.
	 */
	static final java.time.Duration ANSWER_TIMEOUT = java.time.Duration.ofSeconds(90);

	private final java.time.Duration connectTimeout;

	private final AuthToken token = new AuthToken();

	/** The TLS context of {@code https} endpoints, or {@code null} for the JVM's. */
	private final @Nullable SSLContext tls;

	private volatile int current;

	Gateway(EtcdConnection connection, JsonMapper mapper) {
		this.endpoints = connection.endpoints();
		this.mapper = mapper;
		this.username = connection.username();
		this.password = connection.password();
		this.connectTimeout = connection.connectTimeout();
		String prefix = "listwatch-etcd-" + gateways.incrementAndGet() + "-";
		AtomicInteger count = new AtomicInteger();
		this.executor = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				(runnable) -> {
					Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
		this.executor.allowCoreThreadTimeOut(true);
		HttpClient.Builder builder = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.followRedirects(HttpClient.Redirect.NEVER)
			.connectTimeout(connection.connectTimeout())
			.executor(this.executor);
		this.tls = (connection.ssl() != null) ? connection.ssl().createSslContext() : null;
		if (this.tls != null) {
			builder.sslContext(this.tls);
		}
		this.http = builder.build();
	}

	@Override
	public Range range(byte[] key, byte[] rangeEnd, @Nullable Long limit, long revision, String what) {
		ObjectNode body = this.mapper.createObjectNode().put("key", base64(key)).put("range_end", base64(rangeEnd));
		if (limit != null) {
			body.put("limit", limit);
		}
		if (revision > 0) {
			body.put("revision", revision);
		}
		JsonNode answer = call(RANGE, body, what);
		JsonNode kvs = answer.path("kvs");
		List<KeyValue> values = new ArrayList<>(kvs.size());
		for (JsonNode kv : kvs) {
			values.add(keyValue(kv));
		}
		return new Range(number(answer.path("header").path("revision")), values, answer.path("more").asBoolean(false),
				number(answer.path("count")));
	}

	@Override
	public Answers watch(byte[] key, byte[] rangeEnd, long startRevision, String what) {
		ObjectNode create = this.mapper.createObjectNode()
			.put("key", base64(key))
			.put("range_end", base64(rangeEnd))
			.put("progress_notify", true);
		if (startRevision > 0) {
			create.put("start_revision", startRevision);
		}
		ObjectNode body = this.mapper.createObjectNode();
		body.set("create_request", create);
		byte[] bytes = this.mapper.writeValueAsBytes(body);
		Reply reply = send(what, (endpoint, authorization) -> {
			StreamedCall call = StreamedCall.open(endpoint.resolve(WATCH), bytes, authorization, this.tls,
					this.connectTimeout, ANSWER_TIMEOUT);
			return new Reply(call.status(), call.body(), call.uri(), call);
		});
		StreamedCall call = Objects.requireNonNull(reply.call(), "a watch is a streamed call");
		return new Frames("etcd " + what + " at " + reply.uri().resolve("/"), call, this.mapper);
	}

	private static KeyValue keyValue(JsonNode kv) {
		return new KeyValue(Base64.getDecoder().decode(kv.path("key").asString("")),
				Base64.getDecoder().decode(kv.path("value").asString("")), number(kv.path("mod_revision")),
				number(kv.path("version")));
	}

	/**
	 * An int64 of the gateway's JSON, which writes them as strings (and leaves out
	 * zeros).
	 */
	static long number(JsonNode node) {
		if (node.isNumber()) {
			return node.asLong();
		}
		String text = node.asString("");
		return text.isEmpty() ? 0 : Long.parseLong(text);
	}

	private static String base64(byte[] bytes) {
		return Base64.getEncoder().encodeToString(bytes);
	}

	/**
	 * Sends a unary call and reads its answer.
	 * @param path the gateway path, for example {@code /v3/kv/range}
	 * @param body the request
	 * @param what what the call does, for messages, for example {@code range of /config/}
	 * @return the answer
	 * @throws KubernetesApiException when no endpoint can be reached, or etcd refuses the
	 * call
	 */
	JsonNode call(String path, ObjectNode body, String what) {
		byte[] bytes = this.mapper.writeValueAsBytes(body);
		Reply reply = send(what, (endpoint, authorization) -> {
			HttpResponse<InputStream> response = exchange(endpoint.resolve(path), bytes, authorization);
			return new Reply(response.statusCode(), response.body(), response.uri(), null);
		});
		try (InputStream in = reply.body()) {
			return this.mapper.readTree(in);
		}
		catch (IOException | JacksonException ex) {
			throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION,
					"etcd " + what + " at " + reply.uri().resolve("/") + " broke off: " + ex.getClass().getSimpleName(),
					ex);
		}
	}

	/**
	 * Sends a call to the endpoints in turn, from the one that answered last: the next
	 * one when an endpoint cannot be reached, the same once more after authenticating
	 * again when etcd refuses the token.
	 * @param what what the call does, for messages
	 * @param attempt sends the call to one endpoint
	 * @return the reply, status 200: the caller reads and closes its body
	 * @throws KubernetesApiException when no endpoint can be reached, or etcd refuses the
	 * call
	 */
	private Reply send(String what, Attempt call) {
		boolean reauthenticated = false;
		KubernetesApiException failure = null;
		int start = this.current;
		for (int attempt = 0; attempt < this.endpoints.size(); attempt++) {
			int index = (start + attempt) % this.endpoints.size();
			URI endpoint = this.endpoints.get(index);
			String description = "etcd " + what + " at " + endpoint;
			Reply response;
			try {
				response = call.to(endpoint, authorization(endpoint));
			}
			catch (IOException ex) {
				failure = new KubernetesApiException(KubernetesApiException.Kind.CONNECTION, description + " failed: "
						+ ex.getClass().getSimpleName() + ((ex.getMessage() != null) ? " " + ex.getMessage() : ""), ex);
				this.current = (index + 1) % this.endpoints.size();
				continue;
			}
			if (response.status() == 200) {
				this.current = index;
				return response;
			}
			Status status = error(response.status(), response.body());
			if (response.call() != null) {
				response.call().close();
			}
			if (status.code() == 401 && this.username != null && !reauthenticated) {
				// an expired or unknown token (etcd restarted): authenticate again, then
				// once more
				reauthenticated = true;
				this.token.forget();
				attempt--;
				continue;
			}
			throw KubernetesApiException.of(description, status, null);
		}
		throw failure;
	}

	private HttpResponse<InputStream> exchange(URI uri, byte[] body, @Nullable String authorization)
			throws IOException {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri)
			.timeout(ANSWER_TIMEOUT)
			.POST(HttpRequest.BodyPublishers.ofByteArray(body))
			.header("Content-Type", "application/json")
			.header("Accept", "application/json");
		if (authorization != null) {
			request.header("Authorization", authorization);
		}
		try {
			return this.http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException("interrupted", ex);
		}
	}

	/** The token for a call, authenticating first when there is none yet. */
	private @Nullable String authorization(URI endpoint) throws IOException {
		if (this.username == null) {
			return null;
		}
		String token = this.token.get(() -> authenticate(endpoint));
		return token.isEmpty() ? null : token;
	}

	private String authenticate(URI endpoint) throws IOException {
		ObjectNode body = this.mapper.createObjectNode().put("name", this.username).put("password", this.password);
		HttpResponse<InputStream> response = exchange(endpoint.resolve(AUTHENTICATE),
				this.mapper.writeValueAsBytes(body), null);
		if (response.statusCode() != 200) {
			Status status = error(response.statusCode(), response.body());
			if (status.message() != null && status.message().contains("authentication is not enabled")) {
				logger.warn("etcd at " + endpoint + " does not have authentication enabled; listwatch.etcd.username "
						+ "and password are not used");
				return "";
			}
			String fix = "; check listwatch.etcd.username and listwatch.etcd.password";
			throw KubernetesApiException.of("etcd authentication of user '" + this.username + "' at " + endpoint,
					new Status((status.code() == 400) ? 401 : status.code(), "Unauthorized", status.message() + fix),
					null);
		}
		try (InputStream in = response.body()) {
			JsonNode answer = this.mapper.readTree(in);
			String token = answer.path("token").asString("");
			if (token.isEmpty()) {
				throw new IOException("etcd answered the authentication without a token");
			}
			return token;
		}
		catch (JacksonException ex) {
			throw new IOException("etcd's answer to the authentication is not JSON", ex);
		}
	}

	/**
	 * The status of a failed call, from the gateway's {@code {"code": <gRPC code>,
	 * "message": ...}}.
	 */
	private Status error(int httpStatus, InputStream body) {
		String message = "HTTP " + httpStatus;
		int code = -1;
		try (InputStream in = body) {
			JsonNode answer = this.mapper.readTree(in.readNBytes(64 * 1024));
			JsonNode error = answer.has("error") && answer.get("error").isObject() ? answer.get("error") : answer;
			code = error.path("code").asInt(error.path("grpc_code").asInt(-1));
			message = error.path("message").asString(message);
		}
		catch (IOException | JacksonException ex) {
			// not the gateway's JSON: the HTTP status says what there is to say
		}
		return (code >= 0) ? status(code, message) : new Status(httpStatus, null, message);
	}

	/**
	 * The Kubernetes status that stands for an etcd failure, so that the reflector acts
	 * on it as on the API server's: a compacted revision (the resourceVersion is too old)
	 * is 410 Expired, a revision etcd has not reached (a restored etcd) 410 Gone: both
	 * relist. Otherwise by gRPC code: Unauthenticated 401, PermissionDenied 403,
	 * InvalidArgument 400, NotFound 404, ResourceExhausted 429, Unavailable 503,
	 * DeadlineExceeded 504, anything else 500.
	 * @param grpcCode the gRPC status code etcd answered with
	 * @param message etcd's message
	 * @return the status, its message prefixed with {@code etcd: }
	 */
	static Status status(int grpcCode, String message) {
		String lower = message.toLowerCase(Locale.ROOT);
		String text = "etcd: " + message;
		if (lower.contains("required revision has been compacted")) {
			return new Status(410, "Expired", text);
		}
		if (lower.contains("required revision is a future revision")) {
			return new Status(410, "Gone", text);
		}
		return switch (grpcCode) {
			case 16 -> new Status(401, "Unauthorized", text);
			case 7 -> new Status(403, "Forbidden", text);
			case 3 -> new Status(400, "BadRequest", text);
			case 5 -> new Status(404, "NotFound", text);
			case 8 -> new Status(429, "TooManyRequests", text);
			case 14 -> new Status(503, "ServiceUnavailable", text);
			case 4 -> new Status(504, "Timeout", text);
			default -> new Status(500, "InternalError", text);
		};
	}

	/**
	 * The status of a watch that etcd cancelled, from its {@code cancel_reason} (for
	 * example
	 * {@code rpc error: code = Unauthenticated desc = etcdserver: invalid auth token}).
	 * @param reason the reason, or {@code null}
	 * @return the status
	 */
	static Status cancelled(@Nullable String reason) {
		String text = (reason != null && !reason.isBlank()) ? reason : "the watch was cancelled";
		int code = 2;
		String[][] codes = { { "Unauthenticated", "16" }, { "PermissionDenied", "7" }, { "InvalidArgument", "3" },
				{ "NotFound", "5" }, { "ResourceExhausted", "8" }, { "Unavailable", "14" },
				{ "DeadlineExceeded", "4" } };
		for (String[] candidate : codes) {
			if (text.contains("code = " + candidate[0])) {
				code = Integer.parseInt(candidate[1]);
			}
		}
		return status(code, text);
	}

	/**
	 * Forgets the token (a watch was cancelled for an invalid one), so the next call
	 * authenticates.
	 */
	@Override
	public void tokenRejected() {
		this.token.forget();
	}

	@Override
	public boolean authenticates() {
		return this.username != null;
	}

	java.time.Duration connectTimeout() {
		return this.connectTimeout;
	}

	@Override
	public void close() {
		this.executor.shutdownNow();
	}

	@Override
	public String toString() {
		return "etcd " + this.endpoints + ((this.username != null) ? " as " + this.username : "");
	}

	/**
	 * The reply of one endpoint to a call.
	 *
	 * @param status the HTTP status
	 * @param body the body
	 * @param uri the URL the call went to
	 * @param call the streamed call the reply belongs to (a watch's), or {@code null}
	 */
	private record Reply(int status, InputStream body, URI uri, @Nullable StreamedCall call) {

	}

	/** Sends a call to one endpoint. */
	@FunctionalInterface
	private interface Attempt {

		/**
		 * Sends the call.
		 * @param endpoint the endpoint
		 * @param authorization the token, or {@code null}
		 * @return its reply
		 * @throws IOException when the endpoint cannot be reached, or the exchange broke
		 */
		Reply to(URI endpoint, @Nullable String authorization) throws IOException;

	}

	/**
	 * The answers of a watch over the gateway: a streamed HTTP response of
	 * {@code {"result": WatchResponse}} objects (or {@code {"error": ...}}).
	 */
	private static final class Frames implements Answers {

		private static final byte[] PROGRESS_REQUEST = "{\"progress_request\":{}}"
			.getBytes(java.nio.charset.StandardCharsets.UTF_8);

		private final String what;

		private final StreamedCall call;

		private final InputStream body;

		private final JsonParser parser;

		/**
		 * Reads one object of the stream at a time: more follow, which are not trailing
		 * garbage.
		 */
		private final ObjectReader frames;

		private volatile boolean closed;

		Frames(String what, StreamedCall call, JsonMapper mapper) {
			this.what = what;
			this.call = call;
			this.body = call.body();
			this.parser = mapper.createParser(body);
			this.frames = mapper.readerFor(JsonNode.class).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
		}

		@Override
		public @Nullable Answer next() {
			JsonNode frame;
			try {
				if (this.parser.nextToken() == null) {
					return null;
				}
				frame = this.frames.readValue(this.parser);
			}
			catch (JacksonException ex) {
				if (this.closed) {
					return null;
				}
				if (ex instanceof JacksonIOException) {
					throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION, this.what + " broke off: "
							+ ((ex.getCause() != null) ? ex.getCause() : ex.getClass().getSimpleName()), ex);
				}
				throw new KubernetesApiException(KubernetesApiException.Kind.DECODE, this.what
						+ ": the gateway sent something that is not JSON"
						+ ((ex.getLocation() != null) ? " (at byte " + ex.getLocation().getByteOffset() + ")" : ""),
						null);
			}
			if (frame == null) {
				return null;
			}
			if (frame.has("error")) {
				JsonNode error = frame.get("error");
				return Answer.failed(status(error.path("grpc_code").asInt(error.path("code").asInt(2)),
						error.path("message").asString("the gateway failed")));
			}
			JsonNode result = frame.path("result");
			JsonNode events = result.path("events");
			List<Event> list = new ArrayList<>(events.size());
			for (JsonNode event : events) {
				list.add(new Event("DELETE".equals(event.path("type").asString("PUT")), keyValue(event.path("kv"))));
			}
			return new Answer(number(result.path("header").path("revision")), result.path("created").asBoolean(false),
					result.path("canceled").asBoolean(false), number(result.path("compact_revision")),
					result.path("cancel_reason").asString(null), list, null);
		}

		@Override
		public void requestProgress() {
			if (this.closed) {
				return;
			}
			try {
				this.call.send(PROGRESS_REQUEST);
			}
			catch (IOException | RuntimeException ex) {
				// the connection is closed or broken: the reader hears of it
			}
		}

		@Override
		public void close() {
			if (this.closed) {
				return;
			}
			this.closed = true;
			this.call.close();
		}

		@Override
		public String toString() {
			return this.what;
		}

	}

}
