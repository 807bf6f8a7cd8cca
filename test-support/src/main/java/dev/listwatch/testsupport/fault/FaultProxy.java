package dev.listwatch.testsupport.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy on {@code 127.0.0.1} in front of a local API server, for tests that break
 * the connections of a client on demand. It forwards bytes as they are (TLS passes
 * through untouched, so a kubeconfig only needs its {@code server:} pointed at
 * {@link #url()}; see {@link #kubeconfigFor(Path, Path)}), keeps its port across
 * {@link #refuse()} and {@link #resume()}, and can:
 * <ul>
 * <li>{@link #cutAll() cut} every open connection, or {@link #cutRandom(Random, double)
 * some at random}, with a TCP reset;</li>
 * <li>{@link #cutAfterBytes(Random, int) cut connections after a few more bytes} from the
 * server, so that the cut falls inside an event;</li>
 * <li>{@link #stallAll() stall} open connections: they stop forwarding in both directions
 * but stay open, as a half-open TCP connection or an idle-killing load balancer leaves
 * them;</li>
 * <li>{@link #refuse() refuse} new connections (stop listening) and {@link #resume()
 * resume};</li>
 * <li>{@link #closeIdleAfter(Duration) close connections idle} for a while, as cloud load
 * balancers and proxies do (an orderly close of both sides, not a reset).</li>
 * </ul>
 * Only loopback addresses are used; at most {@value #MAX_CONNECTIONS} connections are
 * open at once (more are refused); every thread is a daemon. {@link #close()} closes
 * everything. Thread-safe.
 */
public final class FaultProxy implements AutoCloseable {

	/** The most connections open at once. */
	public static final int MAX_CONNECTIONS = 128;

	private static final Logger logger = LoggerFactory.getLogger(FaultProxy.class);

	private final InetSocketAddress target;

	private final int port;

	private final Set<Connection> connections = ConcurrentHashMap.newKeySet();

	private final AtomicInteger accepted = new AtomicInteger();

	private final AtomicInteger cuts = new AtomicInteger();

	private final AtomicInteger stalls = new AtomicInteger();

	private final AtomicInteger idleCloses = new AtomicInteger();

	/** Closes idle connections, once {@link #closeIdleAfter} asked for it. */
	private ScheduledExecutorService reaper;

	private volatile long idleNanos;

	private final AtomicLong bytesFromServer = new AtomicLong();

	private final Object listening = new Object();

	private ServerSocket serverSocket;

	/** Counted down when the thread accepting on {@link #serverSocket} has ended. */
	private CountDownLatch acceptorDone = new CountDownLatch(0);

	private volatile boolean closed;

	private volatile boolean stallNew;

	private FaultProxy(int targetPort) throws IOException {
		this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
		ServerSocket socket = bindBelowEphemeralPorts();
		this.port = socket.getLocalPort();
		listen(socket);
	}

	/**
	 * Binds a port below Linux's ephemeral range (32768 and up), so that while the proxy
	 * refuses (its port freed) the kernel does not give that port to an outgoing
	 * connection, which would keep {@link #resume()} from listening on it again. Falls
	 * back to any free port.
	 */
	private static ServerSocket bindBelowEphemeralPorts() throws IOException {
		for (int attempt = 0; attempt < 100; attempt++) {
			try {
				return bind(ThreadLocalRandom.current().nextInt(20000, 32000));
			}
			catch (IOException ex) {
				// taken: try another
			}
		}
		return bind(0);
	}

	/**
	 * Starts a proxy on a free port of {@code 127.0.0.1} that forwards to a port of
	 * {@code 127.0.0.1}.
	 * @param targetPort where to forward, for example the API server's port
	 * @return the listening proxy
	 */
	public static FaultProxy start(int targetPort) {
		try {
			return new FaultProxy(targetPort);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start the fault proxy", ex);
		}
	}

	/**
	 * Starts a proxy in front of a server URL on {@code 127.0.0.1}.
	 * @param serverUrl for example {@code https://127.0.0.1:6443}
	 * @return the listening proxy
	 */
	public static FaultProxy startFor(String serverUrl) {
		java.net.URI uri = java.net.URI.create(serverUrl);
		if (!"127.0.0.1".equals(uri.getHost()) && !"localhost".equals(uri.getHost())) {
			throw new IllegalArgumentException("The fault proxy only forwards to loopback, not " + uri.getHost());
		}
		return start(uri.getPort());
	}

	/**
	 * @return the port the proxy listens on, the same across {@link #refuse()} and
	 * {@link #resume()}
	 */
	public int port() {
		return this.port;
	}

	/**
	 * @return {@code https://127.0.0.1:<port>}
	 */
	public String url() {
		return "https://127.0.0.1:" + this.port;
	}

	/**
	 * Writes a copy of a kubeconfig whose {@code server:} lines point at this proxy.
	 * @param kubeconfig the original (its other paths stay as they are, so keep them
	 * absolute)
	 * @param copy where to write the copy
	 * @return {@code copy}
	 */
	public Path kubeconfigFor(Path kubeconfig, Path copy) {
		try {
			String yaml = Files.readString(kubeconfig)
				.replaceAll("(?m)^(\\s*server:\\s*)https://(127\\.0\\.0\\.1|localhost):\\d+", "$1" + url());
			Files.writeString(copy, yaml);
			return copy;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	// ---------------------------------------------------------------- counts

	/**
	 * @return the connections accepted so far
	 */
	public int connectionsAccepted() {
		return this.accepted.get();
	}

	/**
	 * @return the connections open now (stalled ones included)
	 */
	public int openConnections() {
		return this.connections.size();
	}

	/**
	 * @return the connections cut so far
	 */
	public int cuts() {
		return this.cuts.get();
	}

	/**
	 * @return the connections closed for being idle so far
	 */
	public int idleCloses() {
		return this.idleCloses.get();
	}

	/**
	 * @return the connections stalled so far
	 */
	public int stalls() {
		return this.stalls.get();
	}

	/**
	 * @return the bytes forwarded from the server to clients so far
	 */
	public long bytesFromServer() {
		return this.bytesFromServer.get();
	}

	// ---------------------------------------------------------------- faults

	/**
	 * Cuts every open connection with a TCP reset, stalled ones included.
	 * @return how many were cut
	 */
	public int cutAll() {
		int n = 0;
		for (Connection connection : List.copyOf(this.connections)) {
			if (connection.cut()) {
				n++;
			}
		}
		return n;
	}

	/**
	 * Cuts each open connection with a probability.
	 * @param random the source of chance
	 * @param probability between 0 and 1
	 * @return how many were cut
	 */
	public int cutRandom(Random random, double probability) {
		int n = 0;
		for (Connection connection : List.copyOf(this.connections)) {
			if (random.nextDouble() < probability && connection.cut()) {
				n++;
			}
		}
		return n;
	}

	/**
	 * Arms each open connection to be cut once the server has sent it a random number of
	 * further bytes, below {@code maxBytes}: the cut then falls at a random point of the
	 * stream, usually inside an event.
	 * @param random the source of chance
	 * @param maxBytes the most bytes still forwarded
	 * @return how many connections were armed
	 */
	public int cutAfterBytes(Random random, int maxBytes) {
		int n = 0;
		for (Connection connection : List.copyOf(this.connections)) {
			connection.cutAfter(random.nextInt(Math.max(1, maxBytes)));
			n++;
		}
		return n;
	}

	/**
	 * Stops forwarding on every open connection, in both directions, leaving them open:
	 * what the client sees is a silent, half-open connection. They stay so until cut,
	 * closed by the client, or the proxy closes.
	 * @return how many were stalled
	 */
	public int stallAll() {
		int n = 0;
		for (Connection connection : List.copyOf(this.connections)) {
			if (connection.stall()) {
				n++;
			}
		}
		this.stalls.addAndGet(n);
		return n;
	}

	/**
	 * Whether connections accepted from now on are stalled from the start: the client
	 * connects, and then nothing, not even the TLS handshake, gets through (a black
	 * hole). Connections stalled so stay stalled when this is switched off.
	 * @param stall whether to stall new connections
	 */
	public void stallNewConnections(boolean stall) {
		this.stallNew = stall;
	}

	/**
	 * Closes every connection, open now or later, on which no byte has passed either way
	 * for {@code idle}, as a load balancer or proxy with an idle timeout does (cloud load
	 * balancers default to 30 to 350 s): both sides are closed in order (FIN, not a
	 * reset), so the client sees its response end before it is complete. Connections are
	 * checked every quarter of {@code idle}.
	 * @param idle the idle timeout, or {@link Duration#ZERO} to stop closing idle
	 * connections
	 */
	public synchronized void closeIdleAfter(Duration idle) {
		this.idleNanos = idle.toNanos();
		if (this.reaper != null) {
			this.reaper.shutdownNow();
			this.reaper = null;
		}
		if (idle.isZero() || idle.isNegative()) {
			return;
		}
		this.reaper = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "fault-proxy-idle-" + this.port);
			thread.setDaemon(true);
			return thread;
		});
		long period = Math.max(10, idle.toMillis() / 4);
		this.reaper.scheduleWithFixedDelay(this::closeIdle, period, period, TimeUnit.MILLISECONDS);
	}

	private void closeIdle() {
		long now = System.nanoTime();
		for (Connection connection : List.copyOf(this.connections)) {
			if (now - connection.lastActivity > this.idleNanos && connection.close()) {
				this.idleCloses.incrementAndGet();
			}
		}
	}

	/**
	 * Stops listening: new connections are refused (the port is closed). Open connections
	 * go on.
	 */
	public void refuse() {
		synchronized (this.listening) {
			if (this.serverSocket != null) {
				closeQuietly(this.serverSocket);
				this.serverSocket = null;
				// the JDK closes a socket that a thread is blocked accepting on only once
				// that thread has left accept(): until then the port still listens, and
				// resume() could not bind it
				try {
					if (!this.acceptorDone.await(5, TimeUnit.SECONDS)) {
						logger.warn("The accepting thread of port {} did not end", this.port);
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}
	}

	/**
	 * Listens again, on the same port, after {@link #refuse()}.
	 */
	public void resume() {
		synchronized (this.listening) {
			if (this.closed || this.serverSocket != null) {
				return;
			}
			try {
				listen(bind(this.port));
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot listen on port " + this.port + " again", ex);
			}
		}
	}

	/**
	 * Stops listening and cuts every connection.
	 */
	@Override
	public void close() {
		this.closed = true;
		closeIdleAfter(Duration.ZERO);
		refuse();
		for (Connection connection : List.copyOf(this.connections)) {
			connection.close();
		}
	}

	@Override
	public String toString() {
		return "FaultProxy[127.0.0.1:" + this.port + " -> " + this.target.getPort() + ", accepted=" + this.accepted
				+ ", open=" + this.connections.size() + ", cuts=" + this.cuts + ", stalls=" + this.stalls + "]";
	}

	// ---------------------------------------------------------------- internals

	private static ServerSocket bind(int port) throws IOException {
		ServerSocket socket = new ServerSocket();
		socket.setReuseAddress(true);
		socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
		return socket;
	}

	private void listen(ServerSocket socket) {
		CountDownLatch done = new CountDownLatch(1);
		synchronized (this.listening) {
			this.serverSocket = socket;
			this.acceptorDone = done;
		}
		daemon("fault-proxy-accept-" + this.port, () -> {
			try {
				accept(socket);
			}
			finally {
				done.countDown();
			}
		});
	}

	private void accept(ServerSocket socket) {
		while (!socket.isClosed()) {
			Socket client;
			try {
				client = socket.accept();
			}
			catch (IOException ex) {
				return;
			}
			if (this.closed || this.connections.size() >= MAX_CONNECTIONS) {
				closeQuietly(client);
				continue;
			}
			this.accepted.incrementAndGet();
			try {
				Socket upstream = new Socket();
				upstream.connect(this.target, 5000);
				Connection connection = new Connection(client, upstream);
				this.connections.add(connection);
				if (this.stallNew && connection.stall()) {
					this.stalls.incrementAndGet();
				}
				connection.start();
			}
			catch (IOException ex) {
				logger.debug("Cannot connect to {}", this.target, ex);
				closeQuietly(client);
			}
		}
	}

	private static void daemon(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
	}

	private static void closeQuietly(java.io.Closeable closeable) {
		try {
			closeable.close();
		}
		catch (IOException ex) {
			// best effort
		}
	}

	/**
	 * One proxied connection: a client socket, an upstream socket and a pump each way.
	 */
	private final class Connection {

		private final Socket client;

		private final Socket upstream;

		private final Object lock = new Object();

		private boolean stalled;

		private boolean done;

		/**
		 * Bytes from the server still forwarded before a cut; negative when not armed.
		 */
		private long cutBudget = -1;

		private final AtomicInteger pumpsEnded = new AtomicInteger();

		/** {@link System#nanoTime()} of the last byte either way, or of the accept. */
		private volatile long lastActivity = System.nanoTime();

		Connection(Socket client, Socket upstream) {
			this.client = client;
			this.upstream = upstream;
		}

		void start() {
			int id = FaultProxy.this.accepted.get();
			daemon("fault-proxy-up-" + id, () -> pump(this.client, this.upstream, false));
			daemon("fault-proxy-down-" + id, () -> pump(this.upstream, this.client, true));
		}

		private void pump(Socket from, Socket to, boolean fromServer) {
			byte[] buffer = new byte[16 * 1024];
			try {
				InputStream in = from.getInputStream();
				OutputStream out = to.getOutputStream();
				while (true) {
					int n = in.read(buffer);
					if (n < 0) {
						break;
					}
					this.lastActivity = System.nanoTime();
					int forward = n;
					boolean cutNow = false;
					synchronized (this.lock) {
						while (this.stalled && !this.done) {
							this.lock.wait();
						}
						if (this.done) {
							return;
						}
						if (fromServer && this.cutBudget >= 0) {
							if (this.cutBudget < n) {
								forward = (int) this.cutBudget;
								cutNow = true;
							}
							else {
								this.cutBudget -= n;
							}
						}
					}
					if (forward > 0) {
						// counted before they are sent, so a client that has them sees
						// them counted
						if (fromServer) {
							FaultProxy.this.bytesFromServer.addAndGet(forward);
						}
						out.write(buffer, 0, forward);
						out.flush();
					}
					if (cutNow) {
						cut();
						return;
					}
				}
				// one side ended: end the other side's writing, as a TCP proxy does
				to.shutdownOutput();
				if (this.pumpsEnded.incrementAndGet() == 2) {
					close();
				}
			}
			catch (IOException ex) {
				close();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				close();
			}
		}

		boolean cut() {
			synchronized (this.lock) {
				if (this.done) {
					return false;
				}
			}
			try {
				// a reset, not an orderly close
				this.client.setSoLinger(true, 0);
				this.upstream.setSoLinger(true, 0);
			}
			catch (SocketException ex) {
				// closing is what matters
			}
			if (close()) {
				FaultProxy.this.cuts.incrementAndGet();
				return true;
			}
			return false;
		}

		void cutAfter(long bytes) {
			synchronized (this.lock) {
				this.cutBudget = bytes;
			}
		}

		boolean stall() {
			synchronized (this.lock) {
				if (this.done || this.stalled) {
					return false;
				}
				this.stalled = true;
				return true;
			}
		}

		boolean close() {
			synchronized (this.lock) {
				if (this.done) {
					return false;
				}
				this.done = true;
				this.lock.notifyAll();
			}
			closeQuietly(this.client);
			closeQuietly(this.upstream);
			FaultProxy.this.connections.remove(this);
			return true;
		}

	}

}
