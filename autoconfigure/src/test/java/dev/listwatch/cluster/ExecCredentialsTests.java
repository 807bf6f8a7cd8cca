package dev.listwatch.cluster;

import dev.listwatch.testsupport.MutableClock;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Exec credential plugins, run as small shell scripts.
 */
class ExecCredentialsTests {

	@TempDir
	Path dir;

	private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));

	/** A plugin that counts its runs and prints token tok-N. */
	private Path countingPlugin(String apiVersion, String status) {
		return Corpus.script(this.dir.resolve("plugins/plugin"), """
				n=$(( $(cat "$0.count" 2>/dev/null || echo 0) + 1 ))
				echo $n > "$0.count"
				echo "$KUBERNETES_EXEC_INFO" > "$0.info"
				echo "PLUGIN_MODE=$PLUGIN_MODE" > "$0.env"
				cat <<JSON
				{"kind":"ExecCredential","apiVersion":"%s","status":{"token":"tok-$n"%s}}
				JSON""".formatted(apiVersion, status));
	}

	private Cluster load(String apiVersion, String command, String extra) {
		return settings(apiVersion, command, extra).load();
	}

	private TestSettings settings(String apiVersion, String command, String extra) {
		Path file = Corpus.write(this.dir.resolve("config"), """
				apiVersion: v1
				kind: Config
				current-context: c
				clusters:
				- name: c
				  cluster:
				    server: https://127.0.0.1:6443
				    extensions:
				    - name: client.authentication.k8s.io/exec
				      extension: {audience: listwatch}
				users:
				- name: u
				  user:
				    exec:
				      apiVersion: %s
				      command: %s
				      %s
				      env:
				      - name: PLUGIN_MODE
				        value: test
				%s
				contexts:
				- name: c
				  context: {cluster: c, user: u}
				""".formatted(apiVersion, command, extra.contains("interactiveMode") ? "" : "interactiveMode: Never",
				extra.lines().map((l) -> "      " + l).reduce("", (a, b) -> a + b + "\n")));
		TestSettings settings = new TestSettings(this.dir).kubeconfig(file);
		settings.clock = this.clock;
		return settings;
	}

	private int runs() throws IOException {
		Path count = this.dir.resolve("plugins/plugin.count");
		return Files.exists(count) ? Integer.parseInt(Files.readString(count).strip()) : 0;
	}

	@Test
	void v1TokenIsCachedUntilExpiry() throws IOException {
		countingPlugin(ExecCredentials.V1, ",\"expirationTimestamp\":\"2025-01-01T00:10:00Z\"");
		Credentials credentials = load(ExecCredentials.V1, "plugins/plugin", "").credentials();
		assertThat(runs()).as("plugins run lazily").isZero();
		assertThat(credentials.authorization()).isEqualTo("Bearer tok-1");
		assertThat(credentials.authorization()).isEqualTo("Bearer tok-1");
		this.clock.advance(Duration.ofMinutes(10).minusSeconds(1));
		assertThat(credentials.authorization()).isEqualTo("Bearer tok-1");
		assertThat(runs()).isEqualTo(1);
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(credentials.authorization()).isEqualTo("Bearer tok-2");
		assertThat(runs()).isEqualTo(2);
	}

	@Test
	void expiryWithOffsetIsUnderstood() {
		countingPlugin(ExecCredentials.V1, ",\"expirationTimestamp\":\"2025-01-01T01:10:00+01:00\"");
		Credentials credentials = load(ExecCredentials.V1, "plugins/plugin", "").credentials();
		assertThat(credentials.authorization()).isEqualTo("Bearer tok-1");
		this.clock.advance(Duration.ofMinutes(10));
		assertThat(credentials.authorization()).isEqualTo("Bearer tok-2");
	}

	@Test
	void v1beta1TokenWithoutExpiryIsCachedUntilRefresh() throws IOException {
		countingPlugin(ExecCredentials.V1BETA1, "");
		Credentials credentials = load(ExecCredentials.V1BETA1, "plugins/plugin", "").credentials();
		assertThat(credentials.authorization()).isEqualTo("Bearer tok-1");
		this.clock.advance(Duration.ofDays(1));
		assertThat(credentials.authorization()).isEqualTo("Bearer tok-1");
		assertThat(credentials.refresh()).isTrue();
		assertThat(credentials.authorization()).isEqualTo("Bearer tok-2");
		assertThat(runs()).isEqualTo(2);
	}

	@Test
	void pluginGetsEnvAndExecInfo() throws IOException {
		countingPlugin(ExecCredentials.V1, "");
		load(ExecCredentials.V1, "plugins/plugin", "provideClusterInfo: true").credentials().authorization();
		assertThat(Files.readString(this.dir.resolve("plugins/plugin.env"))).contains("PLUGIN_MODE=test");
		assertThat(Files.readString(this.dir.resolve("plugins/plugin.info")))
			.contains("\"apiVersion\":\"client.authentication.k8s.io/v1\"")
			.contains("\"interactive\":false")
			.contains("\"server\":\"https://127.0.0.1:6443\"")
			.contains("\"config\":{\"audience\":\"listwatch\"}");
	}

	@Test
	void concurrentCallersRunThePluginOnce() throws Exception {
		countingPlugin(ExecCredentials.V1, "");
		Credentials credentials = load(ExecCredentials.V1, "plugins/plugin", "").credentials();
		ExecutorService executor = Executors.newFixedThreadPool(4);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<String>> results = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				results.add(executor.submit(() -> {
					start.await();
					return credentials.authorization();
				}));
			}
			start.countDown();
			Set<String> seen = ConcurrentHashMap.newKeySet();
			for (Future<String> result : results) {
				seen.add(result.get(30, TimeUnit.SECONDS));
			}
			assertThat(seen).containsExactly("Bearer tok-1");
			assertThat(runs()).isEqualTo(1);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	@Timeout(60)
	void aCallerWaitingForAnotherCallersPluginCanBeInterrupted() throws Exception {
		Path started = fifo(this.dir.resolve("plugins/plugin.started"));
		Path gate = fifo(this.dir.resolve("plugins/plugin.gate"));
		Corpus.script(this.dir.resolve("plugins/plugin"),
				"""
						echo started > "$0.started"
						read line < "$0.gate"
						echo '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"slow"}}'""");
		TestSettings settings = settings(ExecCredentials.V1, "plugins/plugin", "");
		settings.execTimeout = Duration.ofMinutes(2);
		Credentials credentials = settings.load().credentials();
		AtomicReference<Object> first = new AtomicReference<>();
		AtomicReference<Object> second = new AtomicReference<>();
		Thread running = call(credentials, first);
		boolean released = false;
		try {
			// opening the fifo waits for the plugin: from here on the first caller runs
			// it
			assertThat(Files.readString(started)).isEqualTo("started\n");
			Thread waiting = call(credentials, second);
			awaitParked(waiting);
			waiting.interrupt();
			waiting.join(10_000);
			assertThat(waiting.isAlive()).as("the waiting caller gave up").isFalse();
			assertThat(second.get()).isInstanceOfSatisfying(KubeconfigException.class,
					(ex) -> assertThat(ex.getMessage()).contains("interrupted while it waited"));
			assertThat(running.isAlive()).as("the plugin still runs for the first caller").isTrue();
			released = release(gate);
			running.join(30_000);
			assertThat(first.get()).isEqualTo("Bearer slow");
		}
		finally {
			if (!released) {
				release(gate);
			}
		}
	}

	/**
	 * Lets the plugin go on. Opening a fifo waits for its reader, so the write runs on a
	 * thread of its own: a test that fails never hangs on a plugin that is gone.
	 */
	private static boolean release(Path gate) throws InterruptedException {
		Thread writer = new Thread(() -> {
			try {
				Files.writeString(gate, "go\n");
			}
			catch (IOException ex) {
				// the plugin is gone
			}
		});
		writer.setDaemon(true);
		writer.start();
		writer.join(10_000);
		return !writer.isAlive();
	}

	private static Path fifo(Path path) throws Exception {
		Files.createDirectories(path.getParent());
		assertThat(new ProcessBuilder("mkfifo", path.toString()).start().waitFor()).isZero();
		return path;
	}

	private static Thread call(Credentials credentials, AtomicReference<Object> result) {
		Thread thread = new Thread(() -> {
			try {
				result.set(credentials.authorization());
			}
			catch (RuntimeException ex) {
				result.set(ex);
			}
		});
		thread.setDaemon(true);
		thread.start();
		return thread;
	}

	/**
	 * Waits until the thread blocks (on the lock, or on a monitor): nothing else can
	 * signal it.
	 */
	private static void awaitParked(Thread thread) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.BLOCKED) {
			assertThat(System.nanoTime()).as("the second caller blocks").isLessThan(deadline);
			Thread.onSpinWait();
		}
	}

	@Test
	@Timeout(30)
	void pluginPrintingTooMuchIsKilledAtOnce() {
		Corpus.script(this.dir.resolve("plugins/plugin"), "head -c 4194304 /dev/zero\nexec sleep 60");
		TestSettings settings = settings(ExecCredentials.V1, "plugins/plugin", "");
		settings.execTimeout = Duration.ofSeconds(20);
		long start = System.nanoTime();
		KubeconfigException ex = failure(settings.load().credentials());
		assertThat(ex.getMessage()).contains("printed more than " + ExecCredentials.MAX_OUTPUT
				+ " bytes on standard output and was killed (output not shown)");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
	}

	@Test
	void standardErrorIsCountedButNotKept() throws Exception {
		Corpus.script(this.dir.resolve("plugins/plugin"),
				"""
						head -c 8388608 /dev/zero >&2
						echo '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t"}}'""");
		assertThat(load(ExecCredentials.V1, "plugins/plugin", "").credentials().authorization()).isEqualTo("Bearer t");
		long size = 64L * 1024 * 1024;
		ExecCredentials.Output output = ExecCredentials.drain(zeros(size), 0, null).get(30, TimeUnit.SECONDS);
		assertThat(output.kept()).isEmpty();
		assertThat(output.size()).isEqualTo(size);
		assertThat(output.overflow()).isFalse();
	}

	private static InputStream zeros(long size) {
		return new InputStream() {

			private long left = size;

			@Override
			public int read() {
				return (this.left-- > 0) ? 0 : -1;
			}

			@Override
			public int read(byte[] b, int off, int len) {
				if (this.left <= 0) {
					return -1;
				}
				int n = (int) Math.min(len, this.left);
				Arrays.fill(b, off, off + n, (byte) 0);
				this.left -= n;
				return n;
			}

		};
	}

	@Test
	void interactiveModeMustBeKnown() {
		KubeconfigException ex = catchThrowableOfType(KubeconfigException.class,
				() -> load(ExecCredentials.V1, "plugins/plugin", "interactiveMode: Sometimes"));
		assertThat(ex.field()).isEqualTo("users[u].user.exec.interactiveMode");
		assertThat(ex.getMessage()).contains("is 'Sometimes', which is not one of Never, IfAvailable, Always");
	}

	private KubeconfigException failure(Credentials credentials) {
		KubeconfigException ex = catchThrowableOfType(KubeconfigException.class, credentials::authorization);
		assertThat(ex).as("expected a KubeconfigException").isNotNull();
		assertThat(ex.file()).isEqualTo(this.dir.resolve("config").toString());
		assertThat(ex.field()).isEqualTo("users[u].user.exec.command");
		return ex;
	}

	@Test
	@Timeout(30)
	void hangingPluginIsKilledAfterTimeout() {
		Corpus.script(this.dir.resolve("plugins/plugin"), "echo started > \"$0.started\"\nsleep 60\necho '{}'");
		TestSettings settings = settings(ExecCredentials.V1, "plugins/plugin", "");
		settings.execTimeout = Duration.ofMillis(500);
		KubeconfigException ex = failure(settings.load().credentials());
		assertThat(ex.getMessage()).contains("did not finish within 500 ms and was killed");
		assertThat(ex.fix()).contains("exec timeout");
	}

	@Test
	void nonZeroExitDoesNotShowStandardError() {
		Corpus.script(this.dir.resolve("plugins/plugin"),
				"echo 'token=sEcReTfRoMsTdErR' >&2\necho 'also on stdout sEcReTfRoMsTdOuT'\nexit 3");
		KubeconfigException ex = failure(load(ExecCredentials.V1, "plugins/plugin", "").credentials());
		assertThat(ex.getMessage()).contains("exited with code 3")
			.doesNotContain("sEcReTfRoMsTdErR")
			.doesNotContain("sEcReTfRoMsTdOuT");
		assertThat(ex.fix()).contains("by hand");
	}

	@Test
	void junkOutput() {
		Corpus.script(this.dir.resolve("plugins/plugin"), "echo 'Please log in: jUnKsEcReT'");
		KubeconfigException ex = failure(load(ExecCredentials.V1, "plugins/plugin", "").credentials());
		assertThat(ex.getMessage()).contains("not an ExecCredential JSON").doesNotContain("jUnKsEcReT");
	}

	@Test
	void wrongApiVersionInOutput() {
		Corpus.credentialScript(this.dir.resolve("plugins/plugin"), ExecCredentials.V1BETA1, "t");
		KubeconfigException ex = failure(load(ExecCredentials.V1, "plugins/plugin", "").credentials());
		assertThat(ex.getMessage()).contains("returned apiVersion 'client.authentication.k8s.io/v1beta1'")
			.contains("asks for 'client.authentication.k8s.io/v1'");
	}

	@Test
	void outputWithoutToken() {
		Corpus.script(this.dir.resolve("plugins/plugin"),
				"echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\",\"status\":{}}'");
		KubeconfigException ex = failure(load(ExecCredentials.V1, "plugins/plugin", "").credentials());
		assertThat(ex.getMessage()).contains("returned no status.token");
	}

	@Test
	void failedRunIsRetriedOnNextCall() throws IOException {
		Path plugin = Corpus.script(this.dir.resolve("plugins/plugin"), "exit 1");
		Credentials credentials = load(ExecCredentials.V1, "plugins/plugin", "").credentials();
		failure(credentials);
		Corpus.credentialScript(plugin, ExecCredentials.V1, "now-ok");
		assertThat(credentials.authorization()).isEqualTo("Bearer now-ok");
	}

	@Test
	void commandOnPathFromEnvironment() {
		Corpus.credentialScript(this.dir.resolve("bin/my-plugin"), ExecCredentials.V1, "from-path");
		TestSettings settings = settings(ExecCredentials.V1, "my-plugin", "");
		settings.env("PATH", this.dir.resolve("bin") + ":/usr/bin:/bin");
		Credentials credentials = settings.load().credentials();
		assertThat(credentials.authorization()).isEqualTo("Bearer from-path");
		assertThat(credentials.toString()).contains("exec plugin").contains("my-plugin");
	}

	@Test
	void commandNotExecutable() throws IOException {
		Corpus.write(this.dir.resolve("plugins/plugin"), "not executable");
		KubeconfigException ex = catchThrowableOfType(KubeconfigException.class,
				() -> load(ExecCredentials.V1, "plugins/plugin", ""));
		assertThat(ex.field()).isEqualTo("users[u].user.exec.command");
		assertThat(ex.getMessage()).contains("'plugins/plugin' which is not an executable file");
	}

	@Test
	void missingApiVersion() {
		Path file = Corpus.write(this.dir.resolve("config"), """
				apiVersion: v1
				kind: Config
				current-context: c
				clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
				users: [{name: u, user: {exec: {command: aws}}}]
				contexts: [{name: c, context: {cluster: c, user: u}}]
				""");
		KubeconfigException ex = catchThrowableOfType(KubeconfigException.class,
				() -> new TestSettings(this.dir).kubeconfig(file).load());
		assertThat(ex.field()).isEqualTo("users[u].user.exec.apiVersion");
		assertThat(ex.fix()).contains(ExecCredentials.V1);
	}

}
