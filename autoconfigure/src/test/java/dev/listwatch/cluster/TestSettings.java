package dev.listwatch.cluster;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.springframework.boot.ssl.SslBundle;

/**
 * Builds {@link ConnectionOptions} isolated from the machine: empty environment, a temp
 * home directory and service-account directory. Public for the transport tests of the
 * client package.
 */
public final class TestSettings {

	public String kubeconfig;

	public String context;

	public String server;

	public String token;

	public String tokenFile;

	public String certificateAuthority;

	public String certificateAuthorityData;

	public String sslBundleName;

	public SslBundle sslBundle;

	public String namespace;

	public Boolean insecure;

	public Duration execTimeout = Duration.ofSeconds(10);

	public final Map<String, String> env = new HashMap<>();

	public Path home;

	public Path serviceAccount;

	public Clock clock = Clock.systemUTC();

	public TestSettings(Path root) {
		this.home = root.resolve("home");
		this.serviceAccount = root.resolve("serviceaccount");
		this.env.put("PATH", "/usr/bin:/bin");
	}

	public TestSettings kubeconfig(Path file) {
		this.kubeconfig = file.toString();
		return this;
	}

	public TestSettings env(String name, String value) {
		this.env.put(name, value);
		return this;
	}

	public ConnectionOptions build() {
		return ConnectionOptions.builder()
			.kubeconfig(this.kubeconfig)
			.context(this.context)
			.server(this.server)
			.token(this.token)
			.tokenFile(this.tokenFile)
			.certificateAuthority(this.certificateAuthority)
			.certificateAuthorityData(this.certificateAuthorityData)
			.sslBundle(this.sslBundleName, this.sslBundle)
			.namespace(this.namespace)
			.insecureSkipTlsVerify(this.insecure)
			.connectTimeout(Duration.ofSeconds(5))
			.execTimeout(this.execTimeout)
			.environment(this.env)
			.homeDirectory(this.home)
			.serviceAccountDirectory(this.serviceAccount)
			.clock(this.clock)
			.build();
	}

	public Cluster load() {
		return Cluster.load(build());
	}

}
