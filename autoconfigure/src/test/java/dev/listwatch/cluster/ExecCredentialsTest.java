package dev.listwatch.cluster;

import dev.listwatch.testsupport.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Exec credential plugins, run as small shell scripts.
 */
class ExecCredentialsTest {

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
				      interactiveMode: Never
				      env:
				      - name: PLUGIN_MODE
				        value: test
				%s
				contexts:
				- name: c
				  context: {cluster: c, user: u}
				""".formatted(apiVersion, command, extra.lines().map((l) -> "      " + l).reduce("", (a, b) -> a + b + "\n")));
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
