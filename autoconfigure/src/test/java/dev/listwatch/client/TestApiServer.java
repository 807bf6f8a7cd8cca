package dev.listwatch.client;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * A plain-HTTP server on 127.0.0.1 for the client's tests: each path answers what the
 * test set for it last (a 404 Status otherwise), and every request is recorded.
 */
final class TestApiServer implements AutoCloseable {

	private final HttpServer server;

	private final ExecutorService threads = Executors.newCachedThreadPool((r) -> {
		Thread thread = new Thread(r, "test-api-server");
		thread.setDaemon(true);
		return thread;
	});

	private final Map<String, Responder> responders = new ConcurrentHashMap<>();

	private final List<String> requests = new CopyOnWriteArrayList<>();

	private final List<String> authorizations = new CopyOnWriteArrayList<>();

	private final List<String> accepts = new CopyOnWriteArrayList<>();

	TestApiServer() {
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

	URI url() {
		return URI.create("http://127.0.0.1:" + this.server.getAddress().getPort());
	}

	/**
	 * Answers requests to {@code path} (without the query) with {@code body} and status
	 * 200.
	 */
	TestApiServer on(String path, String body) {
		return on(path, (exchange) -> respond(exchange, 200, body.getBytes(StandardCharsets.UTF_8)));
	}

	TestApiServer on(String path, Responder responder) {
		this.responders.put(path, responder);
		return this;
	}

	/** The requests so far: path and query. */
	List<String> requests() {
		return List.copyOf(this.requests);
	}

	/** The Authorization header of each request so far ("null" when none was sent). */
	List<String> authorizations() {
		return List.copyOf(this.authorizations);
	}

	/** The Accept header of each request so far ("null" when none was sent). */
	List<String> accepts() {
		return List.copyOf(this.accepts);
	}

	long requests(String path) {
		return this.requests.stream().filter((r) -> r.equals(path) || r.startsWith(path + "?")).count();
	}

	/** A client for this server on the JDK's HTTP client, without credentials. */
	ApiServerClient client(Clock clock) {
		return client(RestClient.builder(), clock);
	}

	ApiServerClient client(RestClient.Builder builder, Clock clock) {
		return new ApiServerClient(builder.requestFactory(new JdkClientHttpRequestFactory()).build(), url(),
				JsonMapper.shared(), clock);
	}

	private void handle(HttpExchange exchange) throws IOException {
		try (exchange) {
			String path = exchange.getRequestURI().getPath();
			String query = exchange.getRequestURI().getRawQuery();
			this.requests.add(path + ((query != null) ? "?" + query : ""));
			this.authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
			this.accepts.add(String.valueOf(exchange.getRequestHeaders().getFirst("Accept")));
			Responder responder = this.responders.get(path);
			if (responder == null) {
				respond(exchange, 404,
						("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":"
								+ "\"NotFound\",\"code\":404,\"message\":\"" + path + " is not served here\"}")
							.getBytes(StandardCharsets.UTF_8));
				return;
			}
			responder.respond(exchange);
		}
		catch (IOException ex) {
			// the client went away
		}
	}

	static void respond(HttpExchange exchange, int code, byte[] body) throws IOException {
		exchange.getResponseHeaders().set("Content-Type", "application/json");
		exchange.sendResponseHeaders(code, (body.length > 0) ? body.length : -1);
		if (body.length > 0) {
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(body);
			}
		}
	}

	/** Streams {@code chunks} one by one (chunked encoding), flushing each. */
	static Responder chunked(byte[]... chunks) {
		return (exchange) -> {
			exchange.getResponseHeaders().set("Content-Type", "application/json");
			exchange.sendResponseHeaders(200, 0);
			try (OutputStream out = exchange.getResponseBody()) {
				for (byte[] chunk : chunks) {
					out.write(chunk);
					out.flush();
				}
			}
		};
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.threads.shutdownNow();
	}

	/** What a path answers. */
	@FunctionalInterface
	interface Responder {

		void respond(HttpExchange exchange) throws IOException;

	}

}
