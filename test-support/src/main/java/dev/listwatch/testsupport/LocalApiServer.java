package dev.listwatch.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kubernetes API server (kube-apiserver {@value ApiServerBinaries#VERSION} on etcd
 * 3.6, built from their Go modules by {@code testcluster/}) for tests and local runs,
 * started through {@code io.fabric8:kube-api-test}.
 * <p>
 * Most tests use {@link #shared()}: one server per JVM, started on first use and stopped
 * by a JVM shutdown hook. A test that needs a server of its own (to stop it, or with
 * other {@link Options}) creates one and closes it: <pre>{@code
 * try (LocalApiServer server = new LocalApiServer().start()) {
 *     server.kubectl("get", "ns");
 * }
 * }</pre>
 * <p>
 * Each server has a fresh CA, written to its own folder before kube-api-test starts it:
 * the CA signs the serving certificate (SANs {@code localhost}, {@code 127.0.0.1},
 * {@code ::1}) and every client certificate, and is trusted by {@code --client-ca-file}.
 * The CA certificate is itself the client certificate of the {@link #kubeconfig()
 * kubeconfig}'s user (its subject is {@code O=system:masters}, so that user is a cluster
 * admin). Bearer tokens come from {@code --token-auth-file}: {@link #adminToken()}
 * ({@code system:masters}) and {@link #forbiddenToken()} (authenticated, no RBAC grants).
 * Streaming lists ({@code sendInitialEvents=true}, feature gate {@code WatchList}) are
 * served unless {@link Options#withWatchList(boolean) switched off}.
 * <p>
 * The server's own output goes to SLF4J at DEBUG, under
 * {@code io.fabric8.kubeapitest.process}. Instances are thread-safe.
 */
public final class LocalApiServer implements AutoCloseable {

	/** The user name that {@link #adminToken()} authenticates as. */
	public static final String ADMIN_USER = "listwatch-admin";

	/** The user name that {@link #forbiddenToken()} authenticates as. */
	public static final String FORBIDDEN_USER = "listwatch-nobody";

	/** The name of the kubeconfig's cluster, user and (current) context. */
	public static final String CONTEXT = "listwatch-test";

	private static final Logger logger = LoggerFactory.getLogger(LocalApiServer.class);

	private static final Pattern SERVER_PORT = Pattern.compile("server: https://127\\.0\\.0\\.1:(\\d+)");

	private static final SecureRandom RANDOM = new SecureRandom();

	private static final Object sharedLock = new Object();

	private static LocalApiServer shared;

	private static RuntimeException sharedFailure;

	private final Options options;

	private final boolean isShared;

	private State state;

	private boolean closed;

	/** A server with {@link Options#defaults() the default options}, not yet started. */
	public LocalApiServer() {
		this(Options.defaults());
	}

	/**
	 * A server with the given options, not yet started.
	 * @param options the options
	 */
	public LocalApiServer(Options options) {
		this(options, false);
	}

	private LocalApiServer(Options options, boolean isShared) {
		this.options = Objects.requireNonNull(options, "options");
		this.isShared = isShared;
	}

	/**
	 * The server of this JVM, with the default options: started (and its binaries built,
	 * if need be) by the first call, which blocks until it is ready; stopped by a JVM
	 * shutdown hook. Its {@link #close()} does nothing. If it failed to start, every
	 * later call fails at once with the same cause.
	 * @return the started shared server
	 */
	public static LocalApiServer shared() {
		synchronized (sharedLock) {
			if (sharedFailure != null) {
				throw new IllegalStateException("The shared LocalApiServer failed to start earlier", sharedFailure);
			}
			if (shared == null) {
				LocalApiServer server = new LocalApiServer(Options.defaults(), true);
				try {
					server.start();
				}
				catch (RuntimeException ex) {
					sharedFailure = ex;
					server.stop();
					throw ex;
				}
				Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "listwatch-apiserver-shutdown"));
				shared = server;
			}
			return shared;
		}
	}

	/**
	 * Starts the server and waits until it serves the {@code default} namespace. Builds
	 * the binaries first (with {@code testcluster/build.sh}) if they are missing. Does
	 * nothing if the server is running.
	 * @return this server
	 * @throws IllegalStateException if the server was closed, or does not start in time
	 */
	public synchronized LocalApiServer start() {
		if (this.closed) {
			throw new IllegalStateException("This LocalApiServer is closed");
		}
		if (this.state != null) {
			return this;
		}
		long started = System.nanoTime();
		ApiServerBinaries.ensure();
		Path dir = null;
		KubeAPIServer server = null;
		try {
			dir = Files.createTempDirectory("listwatch-apiserver-").toAbsolutePath();
			ApiServerBinaries.linkInto(dir);
			Pki pki = Pki.create();
			pki.writeTo(dir);
			String adminToken = token();
			String forbiddenToken = token();
			Path tokens = dir.resolve("tokens.csv");
			Pki.write(tokens, adminToken + "," + ADMIN_USER + "," + ADMIN_USER + ",\"system:masters\"\n"
					+ forbiddenToken + "," + FORBIDDEN_USER + "," + FORBIDDEN_USER + "\n");
			List<String> flags = new ArrayList<>();
			flags.add("--bind-address=127.0.0.1");
			flags.add("--token-auth-file=" + tokens);
			flags.add("--feature-gates=WatchList=" + this.options.watchList());
			flags.addAll(this.options.flags());
			server = new KubeAPIServer(KubeAPIServerConfigBuilder.anAPIServerConfig()
				.withTestDir(dir.toString())
				.withApiServerVersion(ApiServerBinaries.VERSION)
				.withOfflineMode(true)
				.withUpdateKubeConfig(false)
				.withStartupTimeout(Math.toIntExact(this.options.startupTimeout().toMillis()))
				.withApiServerFlags(flags)
				.build());
			server.start();
			Matcher port = SERVER_PORT.matcher(server.getKubeConfigYaml());
			if (!port.find()) {
				throw new IllegalStateException("Cannot read the port from kube-api-test's kubeconfig");
			}
			String url = "https://127.0.0.1:" + port.group(1);
			Path kubeconfig = dir.resolve("kubeconfig.yaml");
			Pki.write(kubeconfig, kubeconfigYaml(url, dir));
			this.state = new State(dir, server, url, kubeconfig, pki, adminToken, forbiddenToken);
			logger.info("kube-apiserver {} ready at {} in {} ms (kubeconfig {})", ApiServerBinaries.VERSION, url,
					(System.nanoTime() - started) / 1_000_000, kubeconfig);
			return this;
		}
		catch (IOException | RuntimeException ex) {
			stopQuietly(server);
			deleteQuietly(dir);
			throw new IllegalStateException("kube-apiserver " + ApiServerBinaries.VERSION
					+ " did not start (its output is logged at DEBUG under io.fabric8.kubeapitest.process): "
					+ ex.getMessage(), ex);
		}
	}

	/**
	 * Stops the server (kube-apiserver and etcd, whose data is deleted) and deletes its
	 * folder. Idempotent. Does nothing for the {@link #shared()} server, which the JVM
	 * shutdown hook stops.
	 */
	@Override
	public void close() {
		if (this.isShared) {
			return;
		}
		stop();
	}

	private synchronized void stop() {
		this.closed = true;
		State current = this.state;
		this.state = null;
		if (current != null) {
			stopQuietly(current.server());
			deleteQuietly(current.dir());
			logger.debug("kube-apiserver at {} stopped", current.url());
		}
	}

	/**
	 * The server's URL.
	 * @return {@code https://127.0.0.1:<port>}
	 */
	public String serverUrl() {
		return state().url();
	}

	/**
	 * A kubeconfig file for this server: cluster, user and current context all named
	 * {@value #CONTEXT}, namespace {@code default}, the CA and the client certificate and
	 * key (the admin user) as absolute file paths.
	 * @return the absolute path of the kubeconfig file
	 */
	public Path kubeconfig() {
		return state().kubeconfig();
	}

	/**
	 * The CA that signed the server's certificate (and the client certificates it
	 * trusts).
	 * @return the CA certificate, PEM
	 */
	public String caCertificatePem() {
		return state().pki().caCertificatePem();
	}

	/**
	 * The file holding {@link #caCertificatePem()}.
	 * @return its absolute path
	 */
	public Path caCertificatePath() {
		return state().dir().resolve("ca.crt");
	}

	/**
	 * A bearer token of user {@value #ADMIN_USER} in group {@code system:masters}.
	 * @return the token
	 */
	public String adminToken() {
		return state().adminToken();
	}

	/**
	 * A bearer token of user {@value #FORBIDDEN_USER}, who authenticates but has no RBAC
	 * grant beyond discovery: reading any resource answers 403.
	 * @return the token
	 */
	public String forbiddenToken() {
		return state().forbiddenToken();
	}

	/**
	 * Mints a client certificate signed by the server's client CA.
	 * @param type the key type
	 * @param format the PEM encoding of the key: {@link KeyFormat#PKCS1} for RSA only,
	 * {@link KeyFormat#SEC1} for EC only, {@link KeyFormat#PKCS8} for both
	 * @param user the user name (the certificate's common name)
	 * @param groups the groups (its organizations); {@code system:masters} makes an admin
	 * @return the certificate and its private key, PEM
	 * @throws IllegalArgumentException if the format does not fit the type
	 */
	public ClientCertificate mintClientCertificate(KeyType type, KeyFormat format, String user, String... groups) {
		Objects.requireNonNull(type, "type");
		Objects.requireNonNull(format, "format");
		return state().pki().clientCertificate(type, format, user, groups);
	}

	/**
	 * Runs {@code kubectl --kubeconfig <kubeconfig()> <args>} with the kubectl next to
	 * the server binaries, and waits for it.
	 * @param args kubectl's arguments, for example {@code "get", "ns", "-o", "name"}
	 * @return what kubectl wrote to stdout
	 * @throws IllegalStateException with kubectl's stderr if it exits non-zero
	 */
	public String kubectl(String... args) {
		List<String> command = new ArrayList<>();
		command.add(ApiServerBinaries.kubectl().toString());
		command.add("--kubeconfig");
		command.add(kubeconfig().toString());
		command.addAll(List.of(args));
		try {
			ProcessBuilder builder = new ProcessBuilder(command);
			builder.environment().remove("KUBECONFIG");
			Process process = builder.start();
			process.getOutputStream().close();
			CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
			String stdout = read(process.getInputStream());
			int exit = process.waitFor();
			if (exit != 0) {
				throw new IllegalStateException(
						"kubectl " + String.join(" ", args) + " exited with " + exit + ": " + stderr.join().strip());
			}
			return stdout;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running kubectl", ex);
		}
	}

	/**
	 * A client that writes to this server as its admin, for tests that create many
	 * objects.
	 * @return the writer
	 */
	public ApiWriter writer() {
		return new ApiWriter(serverUrl(), caCertificatePem(), adminToken());
	}

	/**
	 * Creates a namespace, unless it exists.
	 * @param name the namespace
	 * @return the name
	 */
	public String createNamespace(String name) {
		try {
			kubectl("create", "namespace", name);
		}
		catch (IllegalStateException ex) {
			if (ex.getMessage() == null || !ex.getMessage().contains("AlreadyExists")) {
				throw ex;
			}
		}
		return name;
	}

	@Override
	public String toString() {
		State current;
		synchronized (this) {
			current = this.state;
		}
		return "LocalApiServer[" + ((current != null) ? current.url() : (this.closed ? "closed" : "not started")) + "]";
	}

	private synchronized State state() {
		if (this.state == null) {
			throw new IllegalStateException(
					this.closed ? "This LocalApiServer is closed" : "This LocalApiServer is not started");
		}
		return this.state;
	}

	private static String kubeconfigYaml(String url, Path dir) {
		return """
				apiVersion: v1
				kind: Config
				clusters:
				- name: %1$s
				  cluster:
				    server: %2$s
				    certificate-authority: "%3$s"
				users:
				- name: %1$s
				  user:
				    client-certificate: "%4$s"
				    client-key: "%5$s"
				contexts:
				- name: %1$s
				  context:
				    cluster: %1$s
				    user: %1$s
				    namespace: default
				current-context: %1$s
				""".formatted(CONTEXT, url, dir.resolve("ca.crt"), dir.resolve("client.crt"),
				dir.resolve("client.key"));
	}

	private static String token() {
		byte[] bytes = new byte[24];
		RANDOM.nextBytes(bytes);
		return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
	}

	private static String read(InputStream in) {
		try (in) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void stopQuietly(KubeAPIServer server) {
		if (server != null) {
			try {
				server.stop();
			}
			catch (RuntimeException ex) {
				logger.warn("Could not stop kube-apiserver cleanly", ex);
			}
		}
	}

	private static void deleteQuietly(Path dir) {
		if (dir == null || !Files.exists(dir)) {
			return;
		}
		// Files.walk does not follow symbolic links: the kubectl link is deleted, not
		// what it points to
		try (Stream<Path> paths = Files.walk(dir)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> {
				try {
					Files.deleteIfExists(path);
				}
				catch (IOException ex) {
					logger.debug("Cannot delete {}", path, ex);
				}
			});
		}
		catch (IOException ex) {
			logger.debug("Cannot delete {}", dir, ex);
		}
	}

	private record State(Path dir, KubeAPIServer server, String url, Path kubeconfig, Pki pki, String adminToken,
			String forbiddenToken) {

		@Override
		public String toString() {
			return "State[" + this.url + "]";
		}

	}

	/**
	 * How to run a {@link LocalApiServer}. Immutable; the {@code with...} methods return
	 * a copy.
	 *
	 * @param watchList whether streaming lists ({@code sendInitialEvents=true}) are
	 * served: the {@code WatchList} feature gate, on by default in 1.34
	 * @param flags more kube-apiserver flags, each {@code --name=value}, for example
	 * {@code --etcd-compaction-interval=10s}
	 * @param startupTimeout how long to wait for the server to be ready
	 */
	public record Options(boolean watchList, List<String> flags, Duration startupTimeout) {

		public Options {
			flags = List.copyOf(flags);
			Objects.requireNonNull(startupTimeout, "startupTimeout");
			for (String flag : flags) {
				if (!flag.startsWith("--")) {
					throw new IllegalArgumentException("A kube-apiserver flag starts with --: " + flag);
				}
			}
		}

		/**
		 * Streaming lists on, no extra flags, 60 s to start.
		 * @return the default options
		 */
		public static Options defaults() {
			return new Options(true, List.of(), Duration.ofSeconds(60));
		}

		/**
		 * @param watchList whether the {@code WatchList} feature gate is on
		 * @return a copy with that setting
		 */
		public Options withWatchList(boolean watchList) {
			return new Options(watchList, this.flags, this.startupTimeout);
		}

		/**
		 * @param flags flags to add, each {@code --name=value}
		 * @return a copy with the flags appended
		 */
		public Options withFlags(String... flags) {
			List<String> all = new ArrayList<>(this.flags);
			all.addAll(List.of(flags));
			return new Options(this.watchList, all, this.startupTimeout);
		}

		/**
		 * @param startupTimeout how long to wait for the server to be ready
		 * @return a copy with that timeout
		 */
		public Options withStartupTimeout(Duration startupTimeout) {
			return new Options(this.watchList, this.flags, startupTimeout);
		}

	}

}
