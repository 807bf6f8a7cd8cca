package dev.listwatch.cluster;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Builds {@link ConnectionSettings} isolated from the machine: empty environment, a temp
 * home directory and service-account directory.
 */
final class TestSettings {

	String kubeconfig;

	String context;

	String server;

	String token;

	String tokenFile;

	String certificateAuthority;

	String certificateAuthorityData;

	String namespace;

	Boolean insecure;

	Duration execTimeout = Duration.ofSeconds(10);

	final Map<String, String> env = new HashMap<>();

	Path home;

	Path serviceAccount;

	Clock clock = Clock.systemUTC();

	TestSettings(Path root) {
		this.home = root.resolve("home");
		this.serviceAccount = root.resolve("serviceaccount");
		this.env.put("PATH", "/usr/bin:/bin");
	}

	TestSettings kubeconfig(Path file) {
		this.kubeconfig = file.toString();
		return this;
	}

	TestSettings env(String name, String value) {
		this.env.put(name, value);
		return this;
	}

	ConnectionSettings build() {
		return new ConnectionSettings(this.kubeconfig, this.context, this.server, this.token, this.tokenFile,
				this.certificateAuthority, this.certificateAuthorityData, this.namespace, this.insecure,
				Duration.ofSeconds(5), this.execTimeout, this.env, this.home, this.serviceAccount, this.clock);
	}

	Cluster load() {
		return ClusterLoader.load(build());
	}

}
