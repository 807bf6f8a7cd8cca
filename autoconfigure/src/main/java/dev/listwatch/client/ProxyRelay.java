package dev.listwatch.client;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.listwatch.cluster.Cluster;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * A relay on the loopback interface that opens CONNECT tunnels to the API server through
 * an HTTP proxy that wants Basic credentials
 * ({@code proxy-url: http://user:password@proxy}).
 *
 * <p>
 * The JDK HTTP client cannot do that itself: it never sends Basic credentials on a
 * CONNECT ({@code jdk.http.auth.tunneling.disabledSchemes} lists Basic by default, and
 * the JDK reads it once per JVM), and on Java 17 it sends no header of the caller's on a
 * CONNECT at all, so an authenticating proxy answers 407 for ever. The client is
 * therefore pointed at this relay as its proxy; the relay repeats each CONNECT to the
 * real proxy with a pre-emptive {@code Proxy-Authorization: Basic ...}, answers the
 * client with the proxy's status, and then copies bytes both ways. TLS to the API server
 * stays end to end: the relay sees only the CONNECT line and the encrypted stream.
 *
 * <p>
 * The relay listens on 127.0.0.1 only and opens tunnels only to the API server's
 * {@code host:port}; any other request is answered 403. A local process that connects to
 * it can reach the API server through the proxy under listwatch's proxy account (it never
 * learns the credentials); the JDK client offers no way to authenticate itself to the
 * relay. Each open tunnel takes two threads (virtual threads on Java 21+). The
 * credentials are never logged and {@link #toString()} does not show them.
 */
final class ProxyRelay implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ProxyRelay.class);

	/** The most a request or response head may take. */
	private static final int MAX_HEAD = 16 * 1024;

	private final ServerSocket server;

	private final String proxyHost;

	private final int proxyPort;

	private final String proxyAuthorization;

	private final String targetHost;

	private final int targetPort;

	private final int timeoutMillis;

	private final String description;

	private final SimpleAsyncTaskExecutor threads;

	private final Set<Socket> open = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	private ProxyRelay(ServerSocket server, Cluster.Proxy proxy, URI target, Duration timeout) {
		this.server = server;
		this.proxyHost = proxy.host();
		this.proxyPort = proxy.port();
		String pair = proxy.username() + ":" + ((proxy.password() != null) ? proxy.password() : "");
		this.proxyAuthorization = "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
		this.targetHost = unbracketed(target.getHost());
		this.targetPort = (target.getPort() != -1) ? target.getPort() : 443;
		this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
		this.description = "proxy relay " + server.getLocalSocketAddress() + " to " + proxy.withoutCredentials()
				+ " for " + target.getHost() + ":" + this.targetPort;
		this.threads = new SimpleAsyncTaskExecutor("listwatch-proxy-relay-");
		this.threads.setVirtualThreads(Runtime.version().feature() >= 21);
		this.threads.setDaemon(true);
	}

	/**
	 * Starts a relay.
	 * @param proxy the proxy, with credentials
	 * @param target the API server's URL: the only place tunnels go
	 * @param timeout how long connecting to the proxy, and each request or response head,
	 * may take
	 * @return the running relay
	 * @throws UncheckedIOException if no port can be opened on the loopback interface
	 */
	static ProxyRelay start(Cluster.Proxy proxy, URI target, Duration timeout) {
		ServerSocket server;
		try {
			server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(
					"Cannot open the relay for proxy " + proxy.withoutCredentials() + " on the loopback interface", ex);
		}
		ProxyRelay relay = new ProxyRelay(server, proxy, target, timeout);
		relay.threads.execute(relay::accept);
		return relay;
	}

	/**
	 * Where the relay listens: the proxy address to give the HTTP client.
	 * @return the loopback address and port
	 */
	InetSocketAddress address() {
		return (InetSocketAddress) this.server.getLocalSocketAddress();
	}

	/**
	 * Stops accepting and cuts every open tunnel. Idempotent.
	 */
	@Override
	public void close() {
		this.closed = true;
		closeQuietly(this.server);
		for (Socket socket : this.open) {
			closeQuietly(socket);
		}
	}

	private void accept() {
		while (!this.closed) {
			Socket client;
			try {
				client = this.server.accept();
			}
			catch (IOException ex) {
				if (!this.closed) {
					logger.warn("The " + this.description + " stopped accepting (" + ex.getClass().getSimpleName()
							+ "); requests through the proxy will fail");
				}
				return;
			}
			this.open.add(client);
			if (this.closed) {
				closeQuietly(client);
				return;
			}
			this.threads.execute(() -> serve(client));
		}
	}

	private void serve(Socket client) {
		Socket upstream = null;
		try {
			client.setSoTimeout(this.timeoutMillis);
			InputStream clientIn = new BufferedInputStream(client.getInputStream());
			OutputStream clientOut = client.getOutputStream();
			String request = readHead(clientIn);
			String authority = connectAuthority(request);
			if (authority == null) {
				respond(clientOut, "403 Forbidden");
				closeQuietly(client);
				return;
			}
			upstream = new Socket();
			this.open.add(upstream);
			try {
				upstream.connect(new InetSocketAddress(this.proxyHost, this.proxyPort), this.timeoutMillis);
			}
			catch (IOException ex) {
				logger.debug("Cannot connect to the proxy of the " + this.description + " ("
						+ ex.getClass().getSimpleName() + ")");
				respond(clientOut, "502 Bad Gateway");
				close(client, upstream);
				return;
			}
			upstream.setSoTimeout(this.timeoutMillis);
			InputStream upstreamIn = new BufferedInputStream(upstream.getInputStream());
			OutputStream upstreamOut = upstream.getOutputStream();
			upstreamOut.write(("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\nProxy-Authorization: "
					+ this.proxyAuthorization + "\r\n\r\n")
				.getBytes(StandardCharsets.ISO_8859_1));
			upstreamOut.flush();
			String response = readHead(upstreamIn);
			String status = status(response);
			if (status == null || !status.startsWith("2")) {
				logger.debug("The proxy of the " + this.description + " answered the CONNECT with "
						+ ((status != null) ? status : "no HTTP status"));
				respond(clientOut, (status != null) ? status : "502 Bad Gateway");
				close(client, upstream);
				return;
			}
			respond(clientOut, "200 Connection established");
			client.setSoTimeout(0);
			upstream.setSoTimeout(0);
			// a peer gone silently after the other side half-closed must not hold a
			// tunnel for ever
			client.setKeepAlive(true);
			upstream.setKeepAlive(true);
			Tunnel tunnel = new Tunnel(client, upstream);
			Socket to = upstream;
			this.threads.execute(() -> tunnel.pump(upstreamIn, client));
			tunnel.pump(clientIn, to);
		}
		catch (IOException | RuntimeException ex) {
			logger.debug("A tunnel of the " + this.description + " failed (" + ex.getClass().getSimpleName() + ")");
			close(client, upstream);
		}
	}

	/**
	 * The {@code host:port} of a CONNECT to the API server, or {@code null} for any other
	 * request.
	 */
	private @Nullable String connectAuthority(String head) {
		int end = head.indexOf("\r\n");
		String[] parts = ((end >= 0) ? head.substring(0, end) : head).split(" ");
		if (parts.length != 3 || !parts[0].equals("CONNECT") || !parts[2].startsWith("HTTP/1.")) {
			return null;
		}
		String authority = parts[1];
		int colon = authority.lastIndexOf(':');
		if (colon <= 0) {
			return null;
		}
		String host = unbracketed(authority.substring(0, colon));
		String port = authority.substring(colon + 1);
		boolean target = host.toLowerCase(Locale.ROOT).equals(this.targetHost.toLowerCase(Locale.ROOT))
				&& port.equals(Integer.toString(this.targetPort));
		if (!target) {
			logger.debug("The " + this.description + " refused a tunnel to another host");
		}
		return target ? authority : null;
	}

	private static @Nullable String status(String head) {
		int end = head.indexOf("\r\n");
		String line = (end >= 0) ? head.substring(0, end) : head;
		if (!line.startsWith("HTTP/1.")) {
			return null;
		}
		int space = line.indexOf(' ');
		if (space < 0) {
			return null;
		}
		String status = line.substring(space + 1).strip();
		return status.matches("[1-5][0-9][0-9]( .*)?") ? status : null;
	}

	private static void respond(OutputStream out, String status) throws IOException {
		String connection = status.startsWith("2") ? "" : "Content-Length: 0\r\nConnection: close\r\n";
		out.write(("HTTP/1.1 " + status + "\r\n" + connection + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
		out.flush();
	}

	/**
	 * Reads a request or response head up to the empty line, and nothing after it.
	 */
	private static String readHead(InputStream in) throws IOException {
		ByteArrayOutputStream head = new ByteArrayOutputStream();
		int matched = 0;
		while (matched < 4) {
			int b = in.read();
			if (b == -1) {
				throw new IOException("The connection ended within the head");
			}
			head.write(b);
			if (head.size() > MAX_HEAD) {
				throw new IOException("The head is larger than " + MAX_HEAD + " bytes");
			}
			matched = (b == ((matched % 2 == 0) ? '\r' : '\n')) ? matched + 1 : ((b == '\r') ? 1 : 0);
		}
		return head.toString(StandardCharsets.ISO_8859_1);
	}

	private static String unbracketed(String host) {
		return (host.startsWith("[") && host.endsWith("]")) ? host.substring(1, host.length() - 1) : host;
	}

	private void close(Socket client, @Nullable Socket upstream) {
		closeQuietly(client);
		closeQuietly(upstream);
	}

	private void closeQuietly(@Nullable Closeable closeable) {
		if (closeable == null) {
			return;
		}
		if (closeable instanceof Socket socket) {
			this.open.remove(socket);
		}
		try {
			closeable.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

	@Override
	public String toString() {
		return this.description;
	}

	/**
	 * An open tunnel: two pumps; each half-closes its destination at the end of its
	 * source, and the second to end closes both sockets. An error in either closes both.
	 */
	private final class Tunnel {

		private final Socket client;

		private final Socket upstream;

		private final AtomicInteger running = new AtomicInteger(2);

		Tunnel(Socket client, Socket upstream) {
			this.client = client;
			this.upstream = upstream;
		}

		void pump(InputStream from, Socket to) {
			byte[] buffer = new byte[16 * 1024];
			try {
				OutputStream out = to.getOutputStream();
				int n;
				while ((n = from.read(buffer)) != -1) {
					out.write(buffer, 0, n);
					out.flush();
				}
				to.shutdownOutput();
			}
			catch (IOException ex) {
				close(this.client, this.upstream);
			}
			finally {
				if (this.running.decrementAndGet() == 0) {
					close(this.client, this.upstream);
				}
			}
		}

	}

}
