package dev.listwatch.cluster;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * What {@link ClusterLoader} needs to find and connect to a cluster. Every field may be
 * {@code null}; {@code null} means "not set" and the compact constructor fills the
 * defaults for the environment-like fields.
 *
 * @param kubeconfig path of a kubeconfig file; else {@code $KUBECONFIG}, else
 * {@code ~/.kube/config}, else in-cluster configuration
 * @param context the context to use; else the kubeconfig's current-context
 * @param server API server URL that overrides the kubeconfig's (works without a
 * kubeconfig)
 * @param token bearer token that overrides the kubeconfig user's credentials; with
 * {@code tokenFile} set too, only the fallback while that file has never been read
 * @param tokenFile file holding a bearer token (re-read as it rotates); overrides the
 * kubeconfig user's credentials and wins over {@code token}
 * @param certificateAuthority path of a PEM file with the CA certificates to trust;
 * replaces the kubeconfig's CA and clears its {@code insecure-skip-tls-verify}
 * @param certificateAuthorityData PEM text with the CA certificates to trust (wins over
 * {@code certificateAuthority}); replaces the kubeconfig's CA and clears its
 * {@code insecure-skip-tls-verify}
 * @param namespace namespace that overrides the context's
 * @param insecureSkipTlsVerify overrides the cluster's {@code insecure-skip-tls-verify};
 * {@code true} without a CA here drops the kubeconfig's CA, {@code true} with one is refused
 * @param connectTimeout TCP/TLS connect timeout; default 10 seconds
 * @param execTimeout how long an exec credential plugin may run; default 30 seconds
 * @param environment the process environment ({@code System.getenv()} by default)
 * @param homeDirectory the user's home directory ({@code user.home} by default)
 * @param serviceAccountDirectory where in-cluster token, {@code ca.crt} and
 * {@code namespace} live; default {@code /var/run/secrets/kubernetes.io/serviceaccount}
 * @param clock the clock for token expiry and token file re-reads; default system UTC
 */
public record ConnectionSettings(String kubeconfig, String context, String server, String token, String tokenFile,
		String certificateAuthority, String certificateAuthorityData, String namespace, Boolean insecureSkipTlsVerify,
		Duration connectTimeout, Duration execTimeout, Map<String, String> environment, Path homeDirectory,
		Path serviceAccountDirectory, Clock clock) {

	/** Default connect timeout. */
	public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

	/** Default exec plugin timeout. */
	public static final Duration DEFAULT_EXEC_TIMEOUT = Duration.ofSeconds(30);

	/** Default service-account directory. */
	public static final Path DEFAULT_SERVICE_ACCOUNT_DIRECTORY = Path
		.of("/var/run/secrets/kubernetes.io/serviceaccount");

	/**
	 * Fills defaults for the fields left {@code null}.
	 */
	public ConnectionSettings {
		connectTimeout = (connectTimeout != null) ? connectTimeout : DEFAULT_CONNECT_TIMEOUT;
		execTimeout = (execTimeout != null) ? execTimeout : DEFAULT_EXEC_TIMEOUT;
		environment = (environment != null) ? Map.copyOf(environment) : System.getenv();
		homeDirectory = (homeDirectory != null) ? homeDirectory : Path.of(System.getProperty("user.home"));
		serviceAccountDirectory = (serviceAccountDirectory != null) ? serviceAccountDirectory
				: DEFAULT_SERVICE_ACCOUNT_DIRECTORY;
		clock = (clock != null) ? clock : Clock.systemUTC();
	}

	/**
	 * Settings that only use the process environment: kubectl's own resolution.
	 * @return default settings
	 */
	public static ConnectionSettings defaults() {
		return new ConnectionSettings(null, null, null, null, null, null, null, null, null, null, null, null, null,
				null, null);
	}

	/**
	 * Never shows the token or CA data.
	 * @return a description of the settings without secrets
	 */
	@Override
	public String toString() {
		return "ConnectionSettings[kubeconfig=" + this.kubeconfig + ", context=" + this.context + ", server="
				+ this.server + ", token=" + ((this.token != null) ? "<redacted>" : null) + ", tokenFile="
				+ this.tokenFile + ", namespace=" + this.namespace + "]";
	}

}
