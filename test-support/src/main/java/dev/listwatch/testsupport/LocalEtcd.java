package dev.listwatch.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real etcd (the 3.6 that {@code testcluster/} builds next to kube-apiserver) of its
 * own, for tests and local runs of etcd watches: loopback only, random ports, its data in
 * a temporary folder deleted by {@link #close()} (and by a watchdog when the JVM dies
 * without closing it). <pre>{@code
 * try (LocalEtcd etcd = new LocalEtcd(LocalEtcd.Options.defaults()).start()) {
 *     etcd.put("/config/a", "{\"x\":1}");
 * }
 * }</pre> With {@link Options#withTls(boolean) TLS}, etcd serves its clients on
 * {@code https} with a certificate of a fresh CA ({@link #caCertificatePath()}) and
 * requires a client certificate signed by it ({@link #clientCertificatePath()},
 * {@link #clientKeyPath()}). With {@link Options#withPassword(String) a password}, etcd's
 * auth is on and user {@code root} has it ({@link #enableAuth(String)} turns it on
 * later); with {@link Options#withJwtTokens(boolean) JWT tokens}, etcd signs its tokens
 * (RS256, a fresh key) instead of keeping simple ones. The writing helpers ({@link #put},
 * {@link #delete}, {@link #compact}) always use a second, plain-HTTP loopback URL (and
 * the root user), whatever the options. Thread-safe.
 */
public final class LocalEtcd implements AutoCloseable {

	/** The user that {@link Options#withPassword(String)} creates (etcd's root). */
	public static final String ROOT = "root";

	private static final Logger logger = LoggerFactory.getLogger(LocalEtcd.class);

	private static final Logger etcdLog = LoggerFactory.getLogger("dev.listwatch.testsupport.etcd");

	private static final Pattern REVISION = Pattern.compile("\"revision\":\"?(\\d+)");

	private static final Pattern TOKEN = Pattern.compile("\"token\":\"([^\"]+)\"");

	private final Options options;

	private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private Path dir;

	private int clientPort;

	private int plainPort;

	private int peerPort;

	private Process process;

	private String token;

	/** The password of {@code root} once auth is on, or {@code null}. */
	private String password;

	private boolean closed;

	/**
	 * An etcd with these options, not yet started.
	 * @param options the options
	 */
	public LocalEtcd(Options options) {
		this.options = options;
		this.password = options.password();
	}

	/**
	 * Starts etcd (building the binaries first if they are missing) and waits until it
	 * serves clients; with a password, turns auth on. Does nothing if it is running.
	 * @return this etcd
	 */
	public synchronized LocalEtcd start() {
		if (this.closed) {
			throw new IllegalStateException("This LocalEtcd is closed");
		}
		if (this.process != null) {
			return this;
		}
		try {
			if (this.dir == null) {
				ApiServerBinaries.ensure();
				this.dir = Files.createTempDirectory("listwatch-etcd-").toAbsolutePath();
				this.clientPort = freePort();
				this.plainPort = freePort();
				this.peerPort = freePort();
				if (this.options.tls()) {
					Pki pki = Pki.create();
					ClientCertificate serving = pki.peerCertificate();
					ClientCertificate client = pki.clientCertificate(KeyType.EC, KeyFormat.PKCS8, "listwatch");
					Pki.write(caCertificatePath(), pki.caCertificatePem());
					Pki.write(this.dir.resolve("server.crt"), serving.certificatePem());
					Pki.write(this.dir.resolve("server.key"), serving.privateKeyPem());
					Pki.write(clientCertificatePath(), client.certificatePem());
					Pki.write(clientKeyPath(), client.privateKeyPem());
				}
				if (this.options.jwtTokens()) {
					java.security.KeyPair signing = Pki.generate(KeyType.RSA);
					Pki.write(this.dir.resolve("jwt.key"), Pki.privateKeyPem(signing, KeyFormat.PKCS8));
					Pki.write(this.dir.resolve("jwt.pub"), Pki.pem("PUBLIC KEY", signing.getPublic().getEncoded()));
				}
				ApiServerBinaries.writeWatchdog(this.dir.resolve("etcd"),
						ApiServerBinaries.versionDir().resolve("etcd"), ProcessHandle.current().pid(),
						"'" + this.dir + "'");
				launch();
				if (this.options.password() != null) {
					enableAuth(this.options.password());
				}
			}
			else {
				launch();
			}
			return this;
		}
		catch (IOException ex) {
			stopProcess();
			throw new UncheckedIOException("etcd did not start", ex);
		}
	}

	private void launch() throws IOException {
		String scheme = this.options.tls() ? "https" : "http";
		List<String> command = new ArrayList<>(List.of(this.dir.resolve("etcd").toString(), "--name", "listwatch",
				"-data-dir", this.dir.resolve("data").toString(), "--listen-client-urls",
				scheme + "://127.0.0.1:" + this.clientPort + ",http://127.0.0.1:" + this.plainPort,
				"--advertise-client-urls", scheme + "://127.0.0.1:" + this.clientPort, "--listen-peer-urls",
				"http://127.0.0.1:" + this.peerPort, "--initial-advertise-peer-urls",
				"http://127.0.0.1:" + this.peerPort, "--initial-cluster", "listwatch=http://127.0.0.1:" + this.peerPort,
				"--watch-progress-notify-interval", this.options.progressNotifyInterval().toMillis() + "ms",
				"--log-level", "info"));
		if (this.options.jwtTokens()) {
			command.addAll(List.of("--auth-token", "jwt,pub-key=" + this.dir.resolve("jwt.pub") + ",priv-key="
					+ this.dir.resolve("jwt.key") + ",sign-method=RS256,ttl=10m"));
		}
		if (this.options.tls()) {
			command.addAll(List.of("--cert-file", this.dir.resolve("server.crt").toString(), "--key-file",
					this.dir.resolve("server.key").toString(), "--trusted-ca-file", caCertificatePath().toString(),
					"--client-cert-auth"));
		}
		Process started = new ProcessBuilder(command).redirectErrorStream(true).start();
		CountDownLatch ready = new CountDownLatch(1);
		Thread reader = new Thread(() -> {
			try (BufferedReader lines = new BufferedReader(
					new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = lines.readLine()) != null) {
					etcdLog.debug(line);
					if (line.contains("ready to serve client requests")) {
						ready.countDown();
					}
				}
			}
			catch (IOException ex) {
				// the process ended
			}
		}, "listwatch-etcd-log");
		reader.setDaemon(true);
		reader.start();
		this.process = started;
		try {
			if (!ready.await(this.options.startupTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException("etcd did not serve clients within " + this.options.startupTimeout()
						+ " (its output is logged at DEBUG under dev.listwatch.testsupport.etcd)");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while starting etcd", ex);
		}
		logger.info("etcd ready at {} (data in {})", endpoint(), this.dir);
	}

	/**
	 * Turns etcd's auth on: user {@code root} with the password and the root role. The
	 * helpers authenticate as root from then on.
	 * @param password the password of {@code root}
	 */
	public synchronized void enableAuth(String password) {
		call("/v3/auth/user/add", "{\"name\":\"" + ROOT + "\",\"password\":\"" + password + "\"}");
		call("/v3/auth/user/grant", "{\"user\":\"" + ROOT + "\",\"role\":\"root\"}");
		call("/v3/auth/enable", "{}");
		this.password = password;
	}

	/**
	 * Stops etcd, keeping its data and ports, as a crash or a restart would;
	 * {@link #start()} starts it again on them.
	 */
	public synchronized void stopProcess() {
		Process current = this.process;
		this.process = null;
		this.token = null;
		if (current != null) {
			current.destroy();
			try {
				if (!current.waitFor(10, TimeUnit.SECONDS)) {
					current.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Deletes the data of an etcd stopped with {@link #stopProcess()}: the next
	 * {@link #start()} is a fresh member on the same ports, at revision 1, as an etcd
	 * restored from an old backup, or replaced behind the same endpoint, looks to its
	 * clients.
	 * @throws IllegalStateException while etcd runs
	 */
	public synchronized void wipeData() {
		if (this.process != null) {
			throw new IllegalStateException("Stop etcd (stopProcess) before wiping its data");
		}
		if (this.dir != null) {
			try (Stream<Path> paths = Files.walk(this.dir.resolve("data"))) {
				paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot delete the data of etcd in " + this.dir, ex);
			}
		}
	}

	/** Stops etcd and deletes its data. Idempotent. */
	@Override
	public synchronized void close() {
		this.closed = true;
		stopProcess();
		if (this.dir != null) {
			try (Stream<Path> paths = Files.walk(this.dir)) {
				paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
			catch (IOException ex) {
				logger.warn("Cannot delete {}: {}", this.dir, ex.toString());
			}
		}
	}

	/**
	 * The URL a client uses: {@code https://127.0.0.1:<port>} with TLS, else
	 * {@code http://...}.
	 * @return the URL
	 */
	public String endpoint() {
		return (this.options.tls() ? "https" : "http") + "://127.0.0.1:" + this.clientPort;
	}

	/**
	 * The client port, for a proxy in front of it.
	 * @return the port
	 */
	public int port() {
		return this.clientPort;
	}

	/**
	 * @return the PEM file of the CA of etcd's serving and client certificates (with TLS)
	 */
	public Path caCertificatePath() {
		return this.dir.resolve("ca.crt");
	}

	/**
	 * @return the PEM file of a client certificate etcd accepts (with TLS)
	 */
	public Path clientCertificatePath() {
		return this.dir.resolve("client.crt");
	}

	/**
	 * @return the PEM file of the client certificate's key (with TLS)
	 */
	public Path clientKeyPath() {
		return this.dir.resolve("client.key");
	}

	/**
	 * Writes a key.
	 * @param key the key
	 * @param value the value (UTF-8)
	 * @return the revision of the write
	 */
	public long put(String key, String value) {
		return put(key, value.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Writes a key.
	 * @param key the key
	 * @param value the value
	 * @return the revision of the write
	 */
	public long put(String key, byte[] value) {
		return revision(call("/v3/kv/put",
				"{\"key\":\"" + base64(key) + "\",\"value\":\"" + Base64.getEncoder().encodeToString(value) + "\"}"));
	}

	/**
	 * Deletes a key.
	 * @param key the key
	 * @return the revision after the delete
	 */
	public long delete(String key) {
		return revision(call("/v3/kv/deleterange", "{\"key\":\"" + base64(key) + "\"}"));
	}

	/**
	 * The current revision.
	 * @return the revision
	 */
	public long revision() {
		return revision(call("/v3/kv/range", "{\"key\":\"" + base64("\0") + "\",\"limit\":1}"));
	}

	/**
	 * Compacts etcd's history up to a revision (physically, waiting for it): a list or
	 * watch from an older revision then fails as compacted.
	 * @param revision the revision
	 */
	public void compact(long revision) {
		call("/v3/kv/compaction", "{\"revision\":\"" + revision + "\",\"physical\":true}");
	}

	/**
	 * Sends one request to etcd's JSON gateway on the plain-HTTP URL (as root when auth
	 * is on).
	 * @param path the path, for example {@code /v3/kv/put}
	 * @param json the request
	 * @return the answer
	 * @throws IllegalStateException when etcd does not answer 200
	 */
	public synchronized String call(String path, String json) {
		for (int attempt = 0;; attempt++) {
			HttpRequest.Builder request = HttpRequest
				.newBuilder(URI.create("http://127.0.0.1:" + this.plainPort + path))
				.POST(HttpRequest.BodyPublishers.ofString(json))
				.timeout(Duration.ofSeconds(30));
			if (this.token != null) {
				request.header("Authorization", this.token);
			}
			HttpResponse<String> response;
			try {
				response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
			}
			catch (IOException ex) {
				throw new UncheckedIOException("etcd " + path + " failed", ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
			if (response.statusCode() == 200) {
				return response.body();
			}
			if (attempt == 0 && this.password != null
					&& (response.body().contains("user name is empty")
							|| response.body().contains("revision of auth store is old"))
					|| attempt == 0 && response.statusCode() == 401) {
				authenticate();
				continue;
			}
			throw new IllegalStateException(
					"etcd " + path + " answered " + response.statusCode() + ": " + response.body());
		}
	}

	private void authenticate() {
		this.token = null;
		String answer = call("/v3/auth/authenticate",
				"{\"name\":\"" + ROOT + "\",\"password\":\"" + this.password + "\"}");
		Matcher matcher = TOKEN.matcher(answer);
		if (!matcher.find()) {
			throw new IllegalStateException("etcd answered the authentication without a token");
		}
		this.token = matcher.group(1);
	}

	private static long revision(String answer) {
		Matcher matcher = REVISION.matcher(answer);
		if (!matcher.find()) {
			throw new IllegalStateException("etcd answered without a revision: " + answer);
		}
		return Long.parseLong(matcher.group(1));
	}

	private static String base64(String text) {
		return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	@Override
	public String toString() {
		return "LocalEtcd[" + ((this.dir != null) ? endpoint() : "not started") + "]";
	}

	/**
	 * How a {@link LocalEtcd} runs.
	 *
	 * @param tls whether clients use {@code https} and must present a client certificate
	 * @param password the password of user {@code root} with auth on, or {@code null} for
	 * auth off
	 * @param progressNotifyInterval how often etcd sends watches a progress notification
	 * @param startupTimeout how long to wait for etcd to serve clients
	 * @param jwtTokens whether etcd's auth tokens are JWTs (RS256) instead of simple
	 * tokens
	 */
	public record Options(boolean tls, String password, Duration progressNotifyInterval, Duration startupTimeout,
			boolean jwtTokens) {

		/**
		 * Plain HTTP, no auth, progress notifications every 10 minutes (etcd's default),
		 * 30 s to start.
		 * @return the options
		 */
		public static Options defaults() {
			return new Options(false, null, Duration.ofMinutes(10), Duration.ofSeconds(30), false);
		}

		/**
		 * @param tls whether clients use {@code https} with client certificates
		 * @return a copy with it
		 */
		public Options withTls(boolean tls) {
			return new Options(tls, this.password, this.progressNotifyInterval, this.startupTimeout, this.jwtTokens);
		}

		/**
		 * @param password the password of user {@code root}; auth is on
		 * @return a copy with it
		 */
		public Options withPassword(String password) {
			return new Options(this.tls, password, this.progressNotifyInterval, this.startupTimeout, this.jwtTokens);
		}

		/**
		 * @param interval how often etcd sends watches a progress notification
		 * @return a copy with it
		 */
		public Options withProgressNotifyInterval(Duration interval) {
			return new Options(this.tls, this.password, interval, this.startupTimeout, this.jwtTokens);
		}

		/**
		 * @param jwtTokens whether etcd's auth tokens are JWTs (RS256, a fresh key)
		 * instead of simple tokens
		 * @return a copy with it
		 */
		public Options withJwtTokens(boolean jwtTokens) {
			return new Options(this.tls, this.password, this.progressNotifyInterval, this.startupTimeout, jwtTokens);
		}

	}

}
