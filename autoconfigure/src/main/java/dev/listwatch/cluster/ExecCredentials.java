package dev.listwatch.cluster;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.lang.Contract;

/**
 * Credentials from an exec credential plugin ({@code client.authentication.k8s.io/v1} and
 * {@code v1beta1}), as kubectl runs them: the plugin's {@code status.token} (and/or
 * {@code clientCertificateData}/{@code clientKeyData}, used by the TLS key manager) is
 * cached until {@code status.expirationTimestamp} (forever when absent) and the plugin
 * runs again after {@link #refresh()}. A plugin that runs longer than the timeout, or
 * prints more than {@value #MAX_OUTPUT} bytes on standard output, is killed; its standard
 * error is counted, never kept. Neither the plugin's standard output nor its standard
 * error is ever logged or put into an exception message.
 *
 * <p>
 * One plugin runs at a time: other callers wait for its result on a {@link ReentrantLock}
 * (not a monitor, which would pin the carrier thread of a virtual thread on Java 21-23
 * for as long as the plugin runs), and a caller that is interrupted while it waits gives
 * up at once.
 */
final class ExecCredentials implements Credentials {

	static final String V1 = "client.authentication.k8s.io/v1";

	static final String V1BETA1 = "client.authentication.k8s.io/v1beta1";

	/**
	 * The most a plugin may print on standard output: an ExecCredential with a client
	 * certificate chain is a few kilobytes.
	 */
	static final int MAX_OUTPUT = 1024 * 1024;

	private static final Log logger = LogFactory.getLog(ExecCredentials.class);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/**
	 * The plugin's configuration.
	 *
	 * @param origin the kubeconfig file that configured it
	 * @param field e.g. {@code users[eks].user.exec}
	 * @param apiVersion the ExecCredential API version
	 * @param command the resolved command
	 * @param args its arguments
	 * @param env the environment the plugin runs with (process environment plus the
	 * kubeconfig's {@code env})
	 * @param installHint the kubeconfig's {@code installHint}, or {@code null}
	 * @param cluster the {@code spec.cluster} of {@code KUBERNETES_EXEC_INFO} when
	 * {@code provideClusterInfo} is set, else {@code null}
	 * @param timeout how long the plugin may run
	 */
	record Config(String origin, String field, String apiVersion, Path command, List<String> args,
			Map<String, String> env, @Nullable String installHint, @Nullable ObjectNode cluster, Duration timeout) {

		String commandName() {
			return this.command.toString();
		}

		@Override
		public String toString() {
			// env and args may hold secrets
			return "ExecCredentials.Config[" + this.field + " in " + this.origin + ", command=" + this.command + "]";
		}

	}

	private record Result(@Nullable String token, X509Certificate @Nullable [] chain, @Nullable PrivateKey key,
			@Nullable Instant expiry) {

		/** Never the token or the key: what there is, and until when. */
		@Override
		public String toString() {
			return "Result[token=" + ((this.token != null) ? "(set)" : "none") + ", certificate="
					+ ((this.chain != null) ? "(set)" : "none") + ", expiry=" + this.expiry + "]";
		}

	}

	/**
	 * What a plugin printed on one stream: the bytes kept (at most the limit), how many
	 * it printed, and whether it printed more than the limit.
	 */
	record Output(byte[] kept, long size, boolean overflow) {

		static final Output NONE = new Output(new byte[0], 0, false);

	}

	private final Config config;

	private final Clock clock;

	private final ReentrantLock lock = new ReentrantLock();

	private volatile @Nullable Result cached;

	ExecCredentials(Config config, Clock clock) {
		this.config = config;
		this.clock = clock;
	}

	Config config() {
		return this.config;
	}

	@Override
	public @Nullable String authorization() {
		Result result = current();
		return (result.token() != null) ? "Bearer " + result.token() : null;
	}

	private Result current() {
		Result result = this.cached;
		if (valid(result)) {
			return result;
		}
		try {
			this.lock.lockInterruptibly();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw failure(
					"runs " + this.config.commandName()
							+ " for another caller; this caller was interrupted while it waited for the result",
					"nothing to do when the application is stopping; otherwise " + runByHand());
		}
		try {
			result = this.cached;
			if (!valid(result)) {
				result = run();
				this.cached = result;
			}
			return result;
		}
		finally {
			this.lock.unlock();
		}
	}

	@Contract("null -> false")
	private boolean valid(@Nullable Result result) {
		return result != null && (result.expiry() == null || this.clock.instant().isBefore(result.expiry()));
	}

	/**
	 * The client certificate chain the plugin returned, running it if nothing valid is
	 * cached (called during TLS handshakes).
	 * @return the chain, or {@code null} if the plugin returns a token only
	 */
	X509Certificate @Nullable [] clientCertificateChain() {
		return current().chain();
	}

	/**
	 * The client key belonging to the last {@link #clientCertificateChain()}; does not
	 * run the plugin.
	 * @return the key, or {@code null}
	 */
	@Nullable PrivateKey clientKey() {
		Result result = this.cached;
		return (result != null) ? result.key() : null;
	}

	/**
	 * The chain cached now; does not run the plugin.
	 * @return the chain, or {@code null}
	 */
	X509Certificate @Nullable [] cachedClientCertificateChain() {
		Result result = this.cached;
		return (result != null) ? result.chain() : null;
	}

	@Override
	public boolean refresh() {
		this.cached = null;
		return true;
	}

	private KubeconfigException failure(String problem, String fix) {
		return new KubeconfigException(this.config.origin(), this.config.field() + ".command", problem, fix);
	}

	private String runByHand() {
		return "run `" + this.config.commandName() + "` with the args from " + this.config.field()
				+ ".args by hand to see its error";
	}

	private Result run() {
		List<String> commandLine = new ArrayList<>();
		commandLine.add(this.config.command().toString());
		commandLine.addAll(this.config.args());
		ProcessBuilder builder = new ProcessBuilder(commandLine);
		builder.environment().clear();
		builder.environment().putAll(this.config.env());
		builder.environment().put("KUBERNETES_EXEC_INFO", execInfo());
		Process process;
		try {
			process = builder.start();
		}
		catch (IOException ex) {
			String hint = (this.config.installHint() != null) ? " (" + this.config.installHint().strip() + ")" : "";
			throw failure("runs " + this.config.commandName() + " which could not be started ("
					+ ex.getClass().getSimpleName() + ")", "install the plugin or fix the path" + hint);
		}
		try {
			process.getOutputStream().close();
		}
		catch (IOException ex) {
			// the plugin does not read standard input
		}
		// standard output is kept up to the limit (a plugin that prints more is killed at
		// once); standard error is only counted: it is never shown
		CompletableFuture<Output> stdout = drain(process.getInputStream(), MAX_OUTPUT, () -> kill(process));
		CompletableFuture<Output> stderr = drain(process.getErrorStream(), 0, null);
		Duration timeout = this.config.timeout();
		try {
			// onExit() parks the caller (waitFor() waits on a monitor, which pins a
			// virtual thread)
			process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			kill(process);
			throw failure(
					"runs " + this.config.commandName() + " which did not finish within " + timeout.toMillis()
							+ " ms and was killed",
					"make sure the plugin does not wait for input (interactive login), or raise listwatch's exec timeout; "
							+ runByHand());
		}
		catch (InterruptedException ex) {
			kill(process);
			Thread.currentThread().interrupt();
			throw failure("runs " + this.config.commandName() + " which was interrupted", runByHand());
		}
		catch (ExecutionException ex) {
			kill(process);
			throw failure("runs " + this.config.commandName() + " whose end could not be awaited ("
					+ Objects.requireNonNull(ex.getCause(), "a future fails with a cause").getClass().getSimpleName()
					+ ")", runByHand());
		}
		Output output = await(stdout, process);
		Output errors = await(stderr, process);
		if (output.overflow()) {
			throw failure(
					"runs " + this.config.commandName() + " which printed more than " + MAX_OUTPUT
							+ " bytes on standard output and was killed (output not shown)",
					"make sure the plugin prints only the ExecCredential JSON on standard output; " + runByHand());
		}
		int exit = process.exitValue();
		if (exit != 0) {
			// stderr may hold a secret: only its size is reported
			throw failure("runs " + this.config.commandName() + " which exited with code " + exit + " (" + errors.size()
					+ " bytes on standard error, not shown)", runByHand());
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Exec plugin " + this.config.commandName() + " printed " + output.size()
					+ " bytes on standard output and " + errors.size() + " on standard error");
		}
		return parse(output.kept());
	}

	private Result parse(byte[] output) {
		JsonNode root;
		try {
			root = JSON.readTree(new String(output, StandardCharsets.UTF_8));
		}
		catch (JacksonException ex) {
			root = null;
		}
		if (root == null || !root.isObject()) {
			throw failure(
					"runs " + this.config.commandName()
							+ " which printed something that is not an ExecCredential JSON object (output not shown)",
					"make sure the plugin prints only the ExecCredential JSON on standard output; " + runByHand());
		}
		String apiVersion = root.path("apiVersion").asString("");
		if (!apiVersion.equals(this.config.apiVersion())) {
			throw failure(
					"runs " + this.config.commandName() + " which returned apiVersion '" + shownApiVersion(apiVersion)
							+ "' but the kubeconfig asks for '" + this.config.apiVersion() + "'",
					"set " + this.config.field()
							+ ".apiVersion to the version the plugin prints, or upgrade the plugin");
		}
		String kind = root.path("kind").asString("");
		if (!kind.equals("ExecCredential")) {
			throw failure("runs " + this.config.commandName() + " which returned kind '" + shownKind(kind)
					+ "' instead of ExecCredential", "upgrade or fix the plugin; " + runByHand());
		}
		JsonNode status = root.path("status");
		String token = status.path("token").asString("");
		String certificateData = status.path("clientCertificateData").asString("");
		String keyData = status.path("clientKeyData").asString("");
		X509Certificate[] chain = null;
		PrivateKey key = null;
		if (!certificateData.isEmpty() || !keyData.isEmpty()) {
			if (certificateData.isEmpty() || keyData.isEmpty()) {
				throw failure(
						"runs " + this.config.commandName()
								+ " which returned only one of status.clientCertificateData and status.clientKeyData",
						"upgrade or fix the plugin; " + runByHand());
			}
			try {
				chain = Tls.certificates(certificateData).toArray(X509Certificate[]::new);
				key = Tls.privateKey(keyData);
			}
			catch (IllegalArgumentException ex) {
				throw failure(
						"runs " + this.config.commandName()
								+ " which returned a client certificate or key that is not valid PEM (not shown)",
						"upgrade or fix the plugin; " + runByHand());
			}
			if (!Tls.matches(chain[0], key)) {
				throw failure(
						"runs " + this.config.commandName()
								+ " which returned a client key that does not match its client certificate",
						"upgrade or fix the plugin; " + runByHand());
			}
		}
		if (token.isEmpty() && chain == null) {
			throw failure("runs " + this.config.commandName() + " which returned no status.token",
					"configure the plugin to issue a bearer token or a client certificate; " + runByHand());
		}
		Instant expiry = null;
		String expiration = status.path("expirationTimestamp").asString("");
		if (!expiration.isEmpty()) {
			try {
				expiry = OffsetDateTime.parse(expiration).toInstant();
			}
			catch (DateTimeParseException ex) {
				throw failure(
						"runs " + this.config.commandName()
								+ " which returned a status.expirationTimestamp that is not RFC 3339",
						"upgrade or fix the plugin");
			}
		}
		return new Result(token.isEmpty() ? null : token, chain, key, expiry);
	}

	/**
	 * Shows an apiVersion the plugin printed only if it looks like one: the plugin may
	 * print a secret where the version should be.
	 */
	private static String shownApiVersion(String value) {
		return value.matches("[a-z0-9.-]{1,64}/v[0-9]+((alpha|beta)[0-9]+)?") ? value : "<not shown>";
	}

	private static String shownKind(String value) {
		return value.matches("[A-Z][a-z]{1,20}([A-Z][a-z]{1,20}){0,3}") ? value : "<not shown>";
	}

	private String execInfo() {
		ObjectNode info = JSON.createObjectNode();
		info.put("apiVersion", this.config.apiVersion());
		info.put("kind", "ExecCredential");
		ObjectNode spec = info.putObject("spec");
		spec.put("interactive", false);
		if (this.config.cluster() != null) {
			spec.set("cluster", this.config.cluster());
		}
		return JSON.writeValueAsString(info);
	}

	/**
	 * Reads a stream to its end on a thread of its own, keeping at most {@code limit}
	 * bytes.
	 * @param stream the stream
	 * @param limit how many bytes to keep; more than that is an overflow, unless the
	 * limit is 0 (count only)
	 * @param onOverflow run once when the stream passes the limit (reading then stops),
	 * or {@code null}
	 * @return what was read
	 */
	static CompletableFuture<Output> drain(InputStream stream, int limit, @Nullable Runnable onOverflow) {
		CompletableFuture<Output> result = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			ByteArrayOutputStream kept = new ByteArrayOutputStream();
			long size = 0;
			boolean overflow = false;
			try (stream) {
				byte[] buffer = new byte[8192];
				int n;
				while ((n = stream.read(buffer)) != -1) {
					size += n;
					if (limit == 0) {
						continue;
					}
					if (kept.size() + n > limit) {
						overflow = true;
						if (onOverflow != null) {
							onOverflow.run();
						}
						break;
					}
					kept.write(buffer, 0, n);
				}
			}
			catch (IOException | RuntimeException ex) {
				// what was read so far stands
			}
			result.complete(new Output(kept.toByteArray(), size, overflow));
		}, "listwatch-exec-reader");
		thread.setDaemon(true);
		thread.start();
		return result;
	}

	private static Output await(CompletableFuture<Output> output, Process process) {
		try {
			// the plugin has exited; a child it left behind may still hold the pipe open
			return output.get(5, TimeUnit.SECONDS);
		}
		catch (TimeoutException ex) {
			process.descendants().forEach(ProcessHandle::destroyForcibly);
			return output.getNow(Output.NONE);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Output.NONE;
		}
		catch (ExecutionException ex) {
			return Output.NONE;
		}
	}

	private static void kill(Process process) {
		process.descendants().forEach(ProcessHandle::destroyForcibly);
		process.destroyForcibly();
	}

	@Override
	public String toString() {
		return "exec plugin " + this.config.commandName() + " (" + this.config.apiVersion() + ")";
	}

}
