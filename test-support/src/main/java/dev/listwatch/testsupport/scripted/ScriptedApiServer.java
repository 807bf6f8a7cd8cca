package dev.listwatch.testsupport.scripted;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * An API server of our own for what a real one will not do on demand: it serves the
 * discovery of {@code /api/v1} (ConfigMaps) and answers each LIST and WATCH of ConfigMaps
 * with the next scripted {@link Reply}: an error status, a body, or a stream of chunks
 * that may be malformed, truncated, oversized or held open. Every request is recorded.
 * Plain HTTP on 127.0.0.1 only.
 */
public final class ScriptedApiServer implements AutoCloseable {

	private static final String DISCOVERY = "{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\",\"resources\":["
			+ "{\"name\":\"configmaps\",\"namespaced\":true,\"kind\":\"ConfigMap\",\"verbs\":[\"list\",\"watch\"]}]}";

	private final HttpServer server;

	private final ExecutorService threads = Executors.newCachedThreadPool((r) -> {
		Thread thread = new Thread(r, "scripted-api-server");
		thread.setDaemon(true);
		return thread;
	});

	private final BlockingQueue<Reply> lists = new LinkedBlockingQueue<>();

	private final BlockingQueue<Reply> watches = new LinkedBlockingQueue<>();

	private final List<Request> requests = new CopyOnWriteArrayList<>();

	private final CountDownLatch closing = new CountDownLatch(1);

	public ScriptedApiServer() {
		try {
			this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
		}
		catch (IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
		this.server.setExecutor(this.threads);
		this.server.createContext("/", this::handle);
		this.server.start();
	}

	/**
	 * @return the server's URL, {@code http://127.0.0.1:<port>}
	 */
	public URI url() {
		return URI.create("http://127.0.0.1:" + this.server.getAddress().getPort());
	}

	/**
	 * Queues the reply to the next LIST.
	 * @param reply the reply
	 * @return this server
	 */
	public ScriptedApiServer onList(Reply reply) {
		this.lists.add(reply);
		return this;
	}

	/**
	 * Queues the reply to the next WATCH.
	 * @param reply the reply
	 * @return this server
	 */
	public ScriptedApiServer onWatch(Reply reply) {
		this.watches.add(reply);
		return this;
	}

	/**
	 * @return the LIST and WATCH requests so far, in order
	 */
	public List<Request> requests() {
		return List.copyOf(this.requests);
	}

	/**
	 * @return the LIST requests so far
	 */
	public long lists() {
		return this.requests.stream().filter((r) -> !r.watch()).count();
	}

	/**
	 * @return the WATCH requests so far
	 */
	public long watches() {
		return this.requests.stream().filter(Request::watch).count();
	}

	private void handle(HttpExchange exchange) throws IOException {
		try (exchange) {
			String path = exchange.getRequestURI().getPath();
			String query = exchange.getRequestURI().getRawQuery();
			if (path.equals("/api/v1")) {
				respond(exchange, 200, DISCOVERY);
				return;
			}
			if (!path.endsWith("/configmaps")) {
				respond(exchange, 404, status(404, "NotFound", path + " is not served here"));
				return;
			}
			boolean watch = query != null && (query.contains("watch=1") || query.contains("watch=true"));
			this.requests.add(new Request(watch, path, (query != null) ? query : "", System.nanoTime()));
			Reply reply;
			try {
				// no script left: hold the request open until the test ends, as a quiet
				// server does
				reply = (watch ? this.watches : this.lists).poll(100, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			if (reply == null) {
				if (watch) {
					exchange.getResponseHeaders().set("Content-Type", "application/json");
					exchange.sendResponseHeaders(200, 0);
					awaitClose();
				}
				else {
					respond(exchange, 500, status(500, "InternalError", "no list scripted"));
				}
				return;
			}
			reply.send(exchange, this);
		}
		catch (IOException ex) {
			// the client went away: that is what some tests do
		}
	}

	void awaitClose() {
		try {
			this.closing.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	static void respond(HttpExchange exchange, int code, String body) throws IOException {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		exchange.getResponseHeaders().set("Content-Type", "application/json");
		exchange.sendResponseHeaders(code, bytes.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(bytes);
		}
	}

	/**
	 * A Status object.
	 * @param code the HTTP code
	 * @param reason the reason
	 * @param message the message
	 * @return its JSON
	 */
	public static String status(int code, String reason, String message) {
		return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\""
				+ message + "\",\"reason\":\"" + reason + "\",\"code\":" + code + "}";
	}

	/**
	 * A ConfigMap's JSON.
	 * @param name its name (in namespace {@code ns})
	 * @param resourceVersion its resourceVersion
	 * @param value its data value
	 * @return the JSON
	 */
	public static String configMap(String name, long resourceVersion, String value) {
		return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
				+ "\",\"namespace\":\"ns\",\"uid\":\"uid-" + name + "\",\"resourceVersion\":\"" + resourceVersion
				+ "\"},\"data\":{\"v\":\"" + value + "\"}}";
	}

	/**
	 * A ConfigMapList page.
	 * @param resourceVersion the list's resourceVersion
	 * @param items the items' JSON
	 * @return the JSON
	 */
	public static String list(long resourceVersion, String... items) {
		return "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\""
				+ resourceVersion + "\"},\"items\":[" + String.join(",", items) + "]}";
	}

	/**
	 * A watch event line.
	 * @param type the type
	 * @param object the object's JSON
	 * @return the line
	 */
	public static String event(String type, String object) {
		return "{\"type\":\"" + type + "\",\"object\":" + object + "}\n";
	}

	@Override
	public void close() {
		this.closing.countDown();
		this.server.stop(0);
		this.threads.shutdownNow();
	}

	/**
	 * One recorded request.
	 *
	 * @param watch whether it was a watch
	 * @param path its path
	 * @param query its raw query
	 * @param nanoTime when it arrived ({@link System#nanoTime()})
	 */
	public record Request(boolean watch, String path, String query, long nanoTime) {

		/**
		 * A query parameter.
		 * @param name its name
		 * @return its raw value, or {@code null}
		 */
		public String parameter(String name) {
			for (String pair : this.query.split("&")) {
				if (pair.startsWith(name + "=")) {
					return pair.substring(name.length() + 1);
				}
			}
			return null;
		}

	}

	/**
	 * What the server answers to one request.
	 */
	public interface Reply {

		/**
		 * An error status with a Status body and optional headers.
		 * @param code the code
		 * @param reason the reason
		 * @param retryAfterSeconds a Retry-After header, or {@code null}
		 * @return the reply
		 */
		static Reply error(int code, String reason, Integer retryAfterSeconds) {
			return (exchange, server) -> {
				if (retryAfterSeconds != null) {
					exchange.getResponseHeaders().set("Retry-After", retryAfterSeconds.toString());
				}
				respond(exchange, code, status(code, reason, "scripted " + code));
			};
		}

		/**
		 * A 200 with a body and content type.
		 * @param contentType the content type
		 * @param body the body
		 * @return the reply
		 */
		static Reply body(String contentType, String body) {
			return (exchange, server) -> {
				byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
				exchange.getResponseHeaders().set("Content-Type", contentType);
				exchange.sendResponseHeaders(200, bytes.length);
				try (OutputStream out = exchange.getResponseBody()) {
					out.write(bytes);
				}
			};
		}

		/**
		 * A 200 streamed in chunks, each flushed; then the stream ends, or is held open
		 * until the server closes.
		 * @param holdOpen whether to keep the stream open after the chunks
		 * @param chunks the chunks
		 * @return the reply
		 */
		static Reply stream(boolean holdOpen, String... chunks) {
			List<String> parts = new ArrayList<>(List.of(chunks));
			return (exchange, server) -> {
				exchange.getResponseHeaders().set("Content-Type", "application/json");
				exchange.sendResponseHeaders(200, 0);
				OutputStream out = exchange.getResponseBody();
				for (String part : parts) {
					out.write(part.getBytes(StandardCharsets.UTF_8));
					out.flush();
				}
				if (holdOpen) {
					server.awaitClose();
				}
				out.close();
			};
		}

		/**
		 * A 200 whose body arrives slowly, as over a slow link: the body in {@code parts}
		 * pieces, each flushed {@code gap} after the one before.
		 * @param gap the time between two pieces
		 * @param parts how many pieces
		 * @param body the whole body
		 * @return the reply
		 */
		static Reply trickle(java.time.Duration gap, int parts, String body) {
			byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
			return (exchange, server) -> {
				exchange.getResponseHeaders().set("Content-Type", "application/json");
				exchange.sendResponseHeaders(200, 0);
				try (OutputStream out = exchange.getResponseBody()) {
					int size = (bytes.length + parts - 1) / parts;
					for (int from = 0; from < bytes.length; from += size) {
						if (from > 0 && server.closing.await(gap.toMillis(), TimeUnit.MILLISECONDS)) {
							return;
						}
						out.write(bytes, from, Math.min(size, bytes.length - from));
						out.flush();
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			};
		}

		/**
		 * No answer at all, not even headers, until the server closes: a half-open
		 * connection.
		 * @return the reply
		 */
		static Reply silent() {
			return (exchange, server) -> server.awaitClose();
		}

		/**
		 * Answers the request.
		 * @param exchange the exchange
		 * @param server the server
		 * @throws IOException when the client goes away
		 */
		void send(HttpExchange exchange, ScriptedApiServer server) throws IOException;

	}

}
