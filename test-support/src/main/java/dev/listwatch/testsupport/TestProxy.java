package dev.listwatch.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

/**
 * A real forward proxy on 127.0.0.1 for tests: {@code testcluster/proxy}'s
 * {@code testproxy} (goproxy for HTTP CONNECT and plain requests, in clear or over TLS;
 * go-socks5 for SOCKS5), built by {@code testcluster/build.sh} next to kube-apiserver
 * (built on first use if missing). With a user it demands credentials: Basic
 * {@code Proxy-Authorization}, or SOCKS5's username/password method.
 * <p>
 * {@link #events()} lists what it did, one line each, in order:
 * {@code connect user=<user> target=<host:port>} for a tunnel it opened,
 * {@code request user=<user> url=<url>} for a plain request it forwarded,
 * {@code refused reason=<no-credentials|wrong-credentials> target=<host:port>} for
 * credentials it turned down (a SOCKS5 refusal names no target). It never shows a
 * password. It stops with {@link #close()}, or when this JVM is gone.
 */
public final class TestProxy implements AutoCloseable {

	/** How the proxy is spoken to. */
	public enum Kind {

		/** HTTP in clear. */
		HTTP,

		/** HTTP over TLS. */
		HTTPS,

		/** SOCKS5. */
		SOCKS5

	}

	private final Process process;

	private final Kind kind;

	private final int port;

	private final List<String> events;

	private TestProxy(Process process, Kind kind, int port, List<String> events) {
		this.process = process;
		this.kind = kind;
		this.port = port;
		this.events = events;
	}

	/**
	 * Starts a proxy and waits until it listens.
	 * @param kind how it is spoken to
	 * @param user the user it demands, or {@code null} for none
	 * @param password the password it demands with the user
	 * @param certificate for {@link Kind#HTTPS}: its PEM certificate chain
	 * @param key for {@link Kind#HTTPS}: its PEM private key
	 * @param mapTo an IP address to dial every target at (keeping the port) instead of
	 * resolving its host, or {@code null}: a test can name the API server by a name that
	 * resolves nowhere, so that only the proxy reaches it
	 * @return the running proxy
	 */
	public static TestProxy start(Kind kind, @Nullable String user, @Nullable String password,
			@Nullable Path certificate, @Nullable Path key, @Nullable String mapTo) {
		List<String> command = new ArrayList<>(List.of(ApiServerBinaries.testProxy().toString(), "-kind",
				kind.name().toLowerCase(Locale.ROOT), "-listen", "127.0.0.1:0"));
		if (user != null) {
			command.addAll(List.of("-user", user, "-password", (password != null) ? password : ""));
		}
		if (certificate != null && key != null) {
			command.addAll(List.of("-cert", certificate.toString(), "-key", key.toString()));
		}
		if (mapTo != null) {
			command.addAll(List.of("-map-to", mapTo));
		}
		Process process;
		try {
			process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start " + command.get(0), ex);
		}
		CompletableFuture<Integer> listening = new CompletableFuture<>();
		List<String> events = new CopyOnWriteArrayList<>();
		Thread reader = new Thread(() -> read(process, listening, events), "testproxy-" + kind);
		reader.setDaemon(true);
		reader.start();
		int port;
		try {
			port = listening.get(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			process.destroyForcibly();
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while starting testproxy", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			process.destroyForcibly();
			throw new IllegalStateException("testproxy did not start listening", ex);
		}
		return new TestProxy(process, kind, port, events);
	}

	private static void read(Process process, CompletableFuture<Integer> listening, List<String> events) {
		try (BufferedReader in = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = in.readLine()) != null) {
				if (line.startsWith("listening ")) {
					String address = line.substring(line.lastIndexOf(' ') + 1);
					listening.complete(Integer.parseInt(address.substring(address.lastIndexOf(':') + 1)));
				}
				else {
					events.add(line);
				}
			}
		}
		catch (IOException ex) {
			// the process is gone
		}
		listening.completeExceptionally(new IllegalStateException("testproxy exited before it listened"));
	}

	/**
	 * The port it listens on, on 127.0.0.1.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Its URL, with user information if given.
	 * @param userInfo e.g. {@code user:pa%40ss}, or {@code null} for none
	 * @return e.g. {@code socks5://user:pa%40ss@127.0.0.1:41235}
	 */
	public String url(@Nullable String userInfo) {
		String scheme = switch (this.kind) {
			case HTTP -> "http";
			case HTTPS -> "https";
			case SOCKS5 -> "socks5";
		};
		return scheme + "://" + ((userInfo != null) ? userInfo + "@" : "") + "127.0.0.1:" + this.port;
	}

	/**
	 * What it did so far, one line per tunnel, request or refusal, in order.
	 * @return a snapshot
	 */
	public List<String> events() {
		return List.copyOf(this.events);
	}

	/**
	 * Stops it (its standard input closes, then it is killed if it lingers).
	 */
	@Override
	public void close() {
		try {
			this.process.getOutputStream().close();
		}
		catch (IOException ex) {
			// it is going anyway
		}
		try {
			if (!this.process.waitFor(5, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
		}
		catch (InterruptedException ex) {
			this.process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public String toString() {
		return "TestProxy[" + url(null) + "]";
	}

}
