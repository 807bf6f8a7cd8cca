package dev.listwatch.cluster;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.ssl.SslBundle;

/**
 * What {@link Cluster#load(ConnectionOptions)} needs to find a cluster and what overrides
 * the kubeconfig: the {@code listwatch.*} properties, plus the environment-like inputs
 * (process environment, home directory, service-account directory, clock) that tests
 * replace.
 *
 * <p>
 * Built with {@link #builder()}; every value is optional. A {@code null} or blank text
 * means "not set". Immutable and thread-safe once built. {@link #toString()} never shows
 * the token, the CA data or the SSL bundle's material.
 */
public final class ConnectionOptions {

	/** Default connect timeout: 10 seconds. */
	public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

	/** Default time an exec credential plugin may run: 30 seconds. */
	public static final Duration DEFAULT_EXEC_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * Where a pod's service-account token, {@code ca.crt} and {@code namespace} are
	 * mounted.
	 */
	public static final Path DEFAULT_SERVICE_ACCOUNT_DIRECTORY = Path
		.of("/var/run/secrets/kubernetes.io/serviceaccount");

	private final @Nullable String kubeconfig;

	private final @Nullable String context;

	private final @Nullable String server;

	private final @Nullable String token;

	private final @Nullable String tokenFile;

	private final @Nullable String certificateAuthority;

	private final @Nullable String certificateAuthorityData;

	private final @Nullable String sslBundleName;

	private final @Nullable SslBundle sslBundle;

	private final @Nullable String namespace;

	private final @Nullable Boolean insecureSkipTlsVerify;

	private final Duration connectTimeout;

	private final Duration execTimeout;

	private final Map<String, String> environment;

	private final Path homeDirectory;

	private final Path serviceAccountDirectory;

	private final Clock clock;

	private ConnectionOptions(Builder builder) {
		this.kubeconfig = builder.kubeconfig;
		this.context = builder.context;
		this.server = builder.server;
		this.token = builder.token;
		this.tokenFile = builder.tokenFile;
		this.certificateAuthority = builder.certificateAuthority;
		this.certificateAuthorityData = builder.certificateAuthorityData;
		this.sslBundleName = builder.sslBundleName;
		this.sslBundle = builder.sslBundle;
		this.namespace = builder.namespace;
		this.insecureSkipTlsVerify = builder.insecureSkipTlsVerify;
		this.connectTimeout = (builder.connectTimeout != null) ? builder.connectTimeout : DEFAULT_CONNECT_TIMEOUT;
		this.execTimeout = (builder.execTimeout != null) ? builder.execTimeout : DEFAULT_EXEC_TIMEOUT;
		this.environment = (builder.environment != null) ? Map.copyOf(builder.environment) : System.getenv();
		this.homeDirectory = (builder.homeDirectory != null) ? builder.homeDirectory
				: Path.of(System.getProperty("user.home"));
		this.serviceAccountDirectory = (builder.serviceAccountDirectory != null) ? builder.serviceAccountDirectory
				: DEFAULT_SERVICE_ACCOUNT_DIRECTORY;
		this.clock = (builder.clock != null) ? builder.clock : Clock.systemUTC();
	}

	/**
	 * Options that only use the process environment: kubectl's own resolution
	 * ({@code $KUBECONFIG}, {@code ~/.kube/config}, in-cluster).
	 * @return the default options
	 */
	public static ConnectionOptions defaults() {
		return builder().build();
	}

	/**
	 * A builder with nothing set.
	 * @return a new builder, for use by one thread
	 */
	public static Builder builder() {
		return new Builder();
	}

	@Nullable String kubeconfig() {
		return this.kubeconfig;
	}

	@Nullable String context() {
		return this.context;
	}

	@Nullable String server() {
		return this.server;
	}

	@Nullable String token() {
		return this.token;
	}

	@Nullable String tokenFile() {
		return this.tokenFile;
	}

	@Nullable String certificateAuthority() {
		return this.certificateAuthority;
	}

	@Nullable String certificateAuthorityData() {
		return this.certificateAuthorityData;
	}

	@Nullable String sslBundleName() {
		return this.sslBundleName;
	}

	@Nullable SslBundle sslBundle() {
		return this.sslBundle;
	}

	@Nullable String namespace() {
		return this.namespace;
	}

	@Nullable Boolean insecureSkipTlsVerify() {
		return this.insecureSkipTlsVerify;
	}

	Duration connectTimeout() {
		return this.connectTimeout;
	}

	Duration execTimeout() {
		return this.execTimeout;
	}

	Map<String, String> environment() {
		return this.environment;
	}

	Path homeDirectory() {
		return this.homeDirectory;
	}

	Path serviceAccountDirectory() {
		return this.serviceAccountDirectory;
	}

	Clock clock() {
		return this.clock;
	}

	/**
	 * Shows where the cluster comes from, never the token, the CA data or the bundle's
	 * material.
	 * @return a description without secrets
	 */
	@Override
	public String toString() {
		return "ConnectionOptions[kubeconfig=" + this.kubeconfig + ", context=" + this.context + ", server="
				+ this.server + ", token=" + ((this.token != null) ? "<redacted>" : null) + ", tokenFile="
				+ this.tokenFile + ", sslBundle=" + this.sslBundleName + ", namespace=" + this.namespace + "]";
	}

	/**
	 * Builds {@link ConnectionOptions}. Not thread-safe; each setter returns this builder
	 * and accepts {@code null} for "not set".
	 */
	public static final class Builder {

		private @Nullable String kubeconfig;

		private @Nullable String context;

		private @Nullable String server;

		private @Nullable String token;

		private @Nullable String tokenFile;

		private @Nullable String certificateAuthority;

		private @Nullable String certificateAuthorityData;

		private @Nullable String sslBundleName;

		private @Nullable SslBundle sslBundle;

		private @Nullable String namespace;

		private @Nullable Boolean insecureSkipTlsVerify;

		private @Nullable Duration connectTimeout;

		private @Nullable Duration execTimeout;

		private @Nullable Map<String, String> environment;

		private @Nullable Path homeDirectory;

		private @Nullable Path serviceAccountDirectory;

		private @Nullable Clock clock;

		private Builder() {
		}

		/**
		 * The kubeconfig file to read (it must exist). Unset: {@code $KUBECONFIG} (files
		 * separated by the path separator, merged the kubectl way), else
		 * {@code <home>/.kube/config}, else {@link #server(String)} alone, else
		 * in-cluster.
		 * @param kubeconfig the path, or {@code null}
		 * @return this builder
		 */
		public Builder kubeconfig(@Nullable String kubeconfig) {
			this.kubeconfig = kubeconfig;
			return this;
		}

		/**
		 * The kubeconfig context to use instead of its {@code current-context}.
		 * @param context the context name, or {@code null}
		 * @return this builder
		 */
		public Builder context(@Nullable String context) {
			this.context = context;
			return this;
		}

		/**
		 * The API server URL; overrides the kubeconfig's, and works without a kubeconfig.
		 * @param server the URL, e.g. {@code https://10.0.0.1:6443}, or {@code null}
		 * @return this builder
		 */
		public Builder server(@Nullable String server) {
			this.server = server;
			return this;
		}

		/**
		 * A bearer token that overrides the kubeconfig user's credentials; with
		 * {@link #tokenFile(String)} set too, only the fallback while that file has never
		 * been read.
		 * @param token the token, or {@code null}
		 * @return this builder
		 */
		public Builder token(@Nullable String token) {
			this.token = token;
			return this;
		}

		/**
		 * A file holding a bearer token, re-read as it rotates; overrides the kubeconfig
		 * user's credentials and wins over {@link #token(String)}.
		 * @param tokenFile the path, or {@code null}
		 * @return this builder
		 */
		public Builder tokenFile(@Nullable String tokenFile) {
			this.tokenFile = tokenFile;
			return this;
		}

		/**
		 * A PEM file with the CA certificates to trust; replaces the kubeconfig's CA and
		 * clears its {@code insecure-skip-tls-verify}.
		 * @param certificateAuthority the path, or {@code null}
		 * @return this builder
		 */
		public Builder certificateAuthority(@Nullable String certificateAuthority) {
			this.certificateAuthority = certificateAuthority;
			return this;
		}

		/**
		 * PEM text with the CA certificates to trust; wins over
		 * {@link #certificateAuthority(String)}, replaces the kubeconfig's CA and clears
		 * its {@code insecure-skip-tls-verify}.
		 * @param certificateAuthorityData the PEM text, or {@code null}
		 * @return this builder
		 */
		public Builder certificateAuthorityData(@Nullable String certificateAuthorityData) {
			this.certificateAuthorityData = certificateAuthorityData;
			return this;
		}

		/**
		 * An SSL bundle whose trust material and key (client certificate) replace the
		 * kubeconfig's CA and client certificate (including one an exec plugin returns),
		 * and clear its {@code insecure-skip-tls-verify}. It cannot be combined with
		 * {@link #certificateAuthority(String)},
		 * {@link #certificateAuthorityData(String)} or
		 * {@code insecureSkipTlsVerify(true)}. The kubeconfig's {@code tls-server-name}
		 * still applies.
		 * @param name the bundle's name, shown in descriptions and errors
		 * @param bundle the bundle, or {@code null} to unset
		 * @return this builder
		 */
		public Builder sslBundle(String name, @Nullable SslBundle bundle) {
			this.sslBundleName = (bundle != null) ? Objects.requireNonNull(name, "name") : null;
			this.sslBundle = bundle;
			return this;
		}

		/**
		 * The default namespace, instead of the context's.
		 * @param namespace the namespace, or {@code null}
		 * @return this builder
		 */
		public Builder namespace(@Nullable String namespace) {
			this.namespace = namespace;
			return this;
		}

		/**
		 * Overrides the cluster's {@code insecure-skip-tls-verify}: {@code true} without
		 * a CA here drops the kubeconfig's CA; {@code true} with a CA or SSL bundle here
		 * is refused.
		 * @param insecureSkipTlsVerify the flag, or {@code null} to keep the kubeconfig's
		 * @return this builder
		 */
		public Builder insecureSkipTlsVerify(@Nullable Boolean insecureSkipTlsVerify) {
			this.insecureSkipTlsVerify = insecureSkipTlsVerify;
			return this;
		}

		/**
		 * The TCP and TLS connect timeout.
		 * @param connectTimeout the timeout, or {@code null} for
		 * {@link #DEFAULT_CONNECT_TIMEOUT}
		 * @return this builder
		 */
		public Builder connectTimeout(@Nullable Duration connectTimeout) {
			this.connectTimeout = connectTimeout;
			return this;
		}

		/**
		 * How long an exec credential plugin may run before it is killed.
		 * @param execTimeout the timeout, or {@code null} for
		 * {@link #DEFAULT_EXEC_TIMEOUT}
		 * @return this builder
		 */
		public Builder execTimeout(@Nullable Duration execTimeout) {
			this.execTimeout = execTimeout;
			return this;
		}

		/**
		 * The process environment ({@code KUBECONFIG}, {@code KUBERNETES_SERVICE_HOST},
		 * {@code PATH} for exec plugins, which also inherit it).
		 * @param environment the variables (copied), or {@code null} for
		 * {@code System.getenv()}
		 * @return this builder
		 */
		public Builder environment(@Nullable Map<String, String> environment) {
			this.environment = environment;
			return this;
		}

		/**
		 * The user's home directory, where {@code .kube/config} is looked for.
		 * @param homeDirectory the directory, or {@code null} for {@code user.home}
		 * @return this builder
		 */
		public Builder homeDirectory(@Nullable Path homeDirectory) {
			this.homeDirectory = homeDirectory;
			return this;
		}

		/**
		 * Where the in-cluster token, {@code ca.crt} and {@code namespace} are read.
		 * @param serviceAccountDirectory the directory, or {@code null} for
		 * {@link #DEFAULT_SERVICE_ACCOUNT_DIRECTORY}
		 * @return this builder
		 */
		public Builder serviceAccountDirectory(@Nullable Path serviceAccountDirectory) {
			this.serviceAccountDirectory = serviceAccountDirectory;
			return this;
		}

		/**
		 * The clock for token expiry and token file re-reads.
		 * @param clock the clock, or {@code null} for the system UTC clock
		 * @return this builder
		 */
		public Builder clock(@Nullable Clock clock) {
			this.clock = clock;
			return this;
		}

		/**
		 * Builds the options; defaults fill what was not set.
		 * @return the options
		 */
		public ConnectionOptions build() {
			return new ConnectionOptions(this);
		}

	}

}
