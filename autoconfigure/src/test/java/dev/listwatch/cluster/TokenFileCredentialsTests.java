package dev.listwatch.cluster;

import dev.listwatch.testsupport.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Token files are re-read as they rotate: once a minute, or at once after refresh().
 */
class TokenFileCredentialsTests {

	@TempDir
	Path dir;

	private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));

	@Test
	void rereadsAfterAMinute() {
		Path file = Corpus.write(this.dir.resolve("token"), "one\n");
		TokenFileCredentials credentials = new TokenFileCredentials(file, "config", "users[u].user.tokenFile",
				this.clock);
		assertThat(credentials.authorization()).isEqualTo("Bearer one");
		Corpus.write(file, "two");
		this.clock.advance(Duration.ofSeconds(30));
		assertThat(credentials.authorization()).isEqualTo("Bearer one");
		this.clock.advance(Duration.ofSeconds(30));
		assertThat(credentials.authorization()).isEqualTo("Bearer two");
	}

	@Test
	void refreshRereadsAndSaysWhetherTheTokenChanged() {
		Path file = Corpus.write(this.dir.resolve("token"), "one");
		TokenFileCredentials credentials = new TokenFileCredentials(file, "config", "users[u].user.tokenFile",
				this.clock);
		assertThat(credentials.refresh()).isFalse();
		Corpus.write(file, "two");
		assertThat(credentials.refresh()).isTrue();
		assertThat(credentials.authorization()).isEqualTo("Bearer two");
	}

	@Test
	void keepsLastTokenWhenFileDisappearsOrEmpties() throws Exception {
		Path file = Corpus.write(this.dir.resolve("token"), "one");
		TokenFileCredentials credentials = new TokenFileCredentials(file, "config", "users[u].user.tokenFile",
				this.clock);
		Corpus.write(file, "");
		assertThat(credentials.refresh()).isFalse();
		java.nio.file.Files.delete(file);
		this.clock.advance(Duration.ofMinutes(2));
		assertThat(credentials.authorization()).isEqualTo("Bearer one");
		assertThat(credentials.toString()).isEqualTo("bearer token from file " + file);
	}

	@Test
	void tokenFileFromSettingsWinsOverKubeconfigUser() {
		Path token = Corpus.write(this.dir.resolve("token"), "settings-file-token");
		TestSettings settings = new TestSettings(this.dir).kubeconfig(Corpus.write("openshift.yaml", this.dir));
		settings.tokenFile = token.toString();
		assertThat(settings.load().credentials().authorization()).isEqualTo("Bearer settings-file-token");
	}

	private Cluster loadUser(String user) {
		Path file = Corpus.write(this.dir.resolve("config"), """
				apiVersion: v1
				kind: Config
				current-context: c
				clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
				users: [{name: u, user: %s}]
				contexts: [{name: c, context: {cluster: c, user: u}}]
				""".formatted(user));
		TestSettings settings = new TestSettings(this.dir).kubeconfig(file);
		settings.clock = this.clock;
		return settings.load();
	}

	@Test
	void kubeconfigTokenFileWinsOverTokenNextToItAndIsReread() {
		Corpus.write(this.dir.resolve("token"), "from-file-1");
		Credentials credentials = loadUser("{token: static-token, tokenFile: token}").credentials();
		assertThat(credentials.authorization()).isEqualTo("Bearer from-file-1");
		Corpus.write(this.dir.resolve("token"), "from-file-2");
		this.clock.advance(TokenFileCredentials.REREAD_INTERVAL);
		assertThat(credentials.authorization()).isEqualTo("Bearer from-file-2");
		assertThat(credentials.toString()).isEqualTo("bearer token from file " + this.dir.resolve("token")
				+ " (else users[u].user.token in " + this.dir.resolve("config") + ")");
	}

	@Test
	void tokenNextToAnUnreadableTokenFileIsUsedUntilTheFileCanBeRead() {
		Credentials credentials = loadUser("{token: static-token, tokenFile: token}").credentials();
		assertThat(credentials.authorization()).isEqualTo("Bearer static-token");
		Corpus.write(this.dir.resolve("token"), "from-file");
		assertThat(credentials.refresh()).isTrue();
		assertThat(credentials.authorization()).isEqualTo("Bearer from-file");
		Corpus.write(this.dir.resolve("token"), "");
		this.clock.advance(TokenFileCredentials.REREAD_INTERVAL);
		assertThat(credentials.authorization()).as("the last token read wins over the static one")
			.isEqualTo("Bearer from-file");
	}

	@Test
	void tokenFileFromSettingsWinsOverTokenFromSettings() {
		Path token = Corpus.write(this.dir.resolve("token"), "settings-file-token");
		TestSettings settings = new TestSettings(this.dir);
		settings.server = "https://127.0.0.1:6443";
		settings.token = "settings-token";
		settings.tokenFile = token.toString();
		assertThat(settings.load().credentials().authorization()).isEqualTo("Bearer settings-file-token");
	}

}
