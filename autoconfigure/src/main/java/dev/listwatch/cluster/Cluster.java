package dev.listwatch.cluster;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.ssl.SslBundle;

/**
 * A cluster to talk to, as a plain value: where the API server is, the TLS material to
 * trust it and to present a client certificate, the credentials for the
 * {@code Authorization} header, an optional proxy, the connect timeout, the default
 * namespace and a description that is safe to log. It holds nothing open: the HTTP
 * transport is built (and released) by the client that uses it.
 *
 * <p>
 * Obtain one from {@link #load(ConnectionOptions)} (kubeconfig, {@code listwatch.*}
 * settings, in-cluster), or construct one (for example from a
 * {@code ListwatchConnectionDetails}). Immutable and safe to share between threads when
 * its {@link Credentials} and {@link SslBundle} are. {@link #toString()} never shows a
 * secret.
 *
 * @param server the API server's base URL, e.g. {@code https://127.0.0.1:6443}; it may
 * carry a path prefix (Rancher: {@code https://rancher/k8s/clusters/c-1}) that API paths
 * are appended to; never ends with a slash (a trailing slash given here is dropped)
 * @param ssl the TLS material for an {@code https} server: the managers' trust material
 * verifies the server's certificate chain and the key material is the client certificate;
 * {@code null} means the JVM's default trust store and no client certificate. Its trust
 * managers check the chain; whether the certificate names the host (or
 * {@code tlsServerName}) is checked by the client
 * @param insecureSkipTlsVerify whether to accept any server certificate (then
 * {@code ssl}'s trust material is not used); only for throwaway clusters
 * @param tlsServerName the name sent as TLS SNI and checked against the server's
 * certificate instead of the URL's host, or {@code null}
 * @param credentials the credentials for the {@code Authorization} header, never
 * {@code null} (use {@link Credentials#none()})
 * @param proxy the proxy to reach the server through, or {@code null} for a direct
 * connection
 * @param connectTimeout the TCP and TLS connect timeout, positive
 * @param namespace the default namespace, never blank
 * @param description where this cluster came from, safe for logs and health output, e.g.
 * {@code context kind-dev in /home/u/.kube/config} or {@code in-cluster}
 */
public record Cluster(URI server, @Nullable SslBundle ssl, boolean insecureSkipTlsVerify,
		@Nullable String tlsServerName, Credentials credentials, @Nullable Proxy proxy, Duration connectTimeout,
		String namespace, String description) {

	/**
	 * Checks the values.
	 * @throws IllegalArgumentException if the server is not an absolute http(s) URL with
	 * a host, or carries user information, a query or a fragment, the connect timeout is
	 * not positive, or the namespace is blank
	 * @throws NullPointerException if a value that may not be {@code null} is
	 */
	public Cluster {
		Objects.requireNonNull(server, "server");
		Objects.requireNonNull(credentials, "credentials");
		Objects.requireNonNull(connectTimeout, "connectTimeout");
		Objects.requireNonNull(namespace, "namespace");
		Objects.requireNonNull(description, "description");
		String scheme = server.getScheme();
		if (!("https".equalsIgnoreCase(scheme) || "http".equalsIgnoreCase(scheme)) || server.getHost() == null) {
			// never the URL itself in the message: it may carry a password
			throw new IllegalArgumentException("Cluster server is not an http(s) URL with a host (scheme " + scheme
					+ "): write e.g. https://10.0.0.1:6443");
		}
		if (server.getRawUserInfo() != null || server.getRawQuery() != null || server.getRawFragment() != null) {
			throw new IllegalArgumentException("Cluster server of host " + server.getHost()
					+ " carries user information, a query or a fragment: give only scheme, host, port and path prefix, "
					+ "and the credentials as Credentials");
		}
		String text = server.toString();
		if (text.endsWith("/")) {
			server = URI.create(text.replaceAll("/+$", ""));
		}
		if (connectTimeout.isNegative() || connectTimeout.isZero()) {
			throw new IllegalArgumentException("Cluster connectTimeout must be positive, not " + connectTimeout);
		}
		if (namespace.isBlank()) {
			throw new IllegalArgumentException("Cluster namespace is blank: give the default namespace, e.g. default");
		}
	}

	/**
	 * Finds the cluster the way kubectl does and reads it into a value.
	 *
	 * <p>
	 * Where the configuration comes from, first match wins: the options' kubeconfig (it
	 * must exist); {@code $KUBECONFIG} (files separated by {@code ':'}, merged by
	 * kubectl's rules; missing files are skipped, all missing is an error);
	 * {@code <home>/.kube/config}; the options' server alone; in-cluster
	 * ({@code KUBERNETES_SERVICE_HOST}/ {@code KUBERNETES_SERVICE_PORT} and the
	 * service-account directory's {@code token}, re-read as it rotates, {@code ca.crt}
	 * and {@code namespace}). The options' server, token or token file, CA or SSL bundle
	 * and namespace override what the file says; relative paths in a kubeconfig resolve
	 * against the file that defined them.
	 *
	 * <p>
	 * client-go's rules hold: a CA (or SSL bundle) from the options clears the
	 * kubeconfig's {@code insecure-skip-tls-verify};
	 * {@code insecure-skip-tls-verify=true} from the options without a CA drops the
	 * kubeconfig's CA; a source that asks for a CA and for no verification at once is
	 * refused; a token file wins over a token given next to it; an exec plugin that needs
	 * a terminal ({@code interactiveMode: Always}) is refused; a {@code proxy-url} is
	 * {@code http://}, {@code https://} or {@code socks5://}.
	 *
	 * <p>
	 * Runs on the caller's thread. Reads files and parses certificates and keys now (so
	 * broken configuration fails at startup); does not contact the server and does not
	 * run exec plugins (they run on the first {@link Credentials#authorization()}). Logs
	 * one warning when the result skips TLS verification.
	 * @param options where to look and what to override
	 * @return the cluster, never {@code null}
	 * @throws KubeconfigException if the configuration cannot be used; the message names
	 * the file, the field and the fix, never a secret
	 */
	public static Cluster load(ConnectionOptions options) {
		return ClusterLoader.load(options);
	}

	/**
	 * Never shows a secret: the credentials describe only where they come from, the proxy
	 * shows no user or password, the SSL bundle only whether there is one.
	 * @return a description of this cluster
	 */
	@Override
	public String toString() {
		return "Cluster[server=" + this.server + ", namespace=" + this.namespace + ", " + this.description
				+ ", credentials=" + this.credentials + ((this.proxy != null) ? ", proxy=" + this.proxy : "")
				+ ((this.tlsServerName != null) ? ", tls-server-name=" + this.tlsServerName : "")
				+ (this.insecureSkipTlsVerify ? ", insecure-skip-tls-verify" : "") + "]";
	}

	/**
	 * A proxy to reach the API server through ({@code proxy-url}, or {@code HTTPS_PROXY}
	 * / {@code HTTP_PROXY} from the environment): an HTTP proxy spoken to in clear
	 * ({@code http://}) or over TLS ({@code https://}), or a SOCKS5 proxy
	 * ({@code socks5://}), the kinds client-go accepts. For an {@code https} server the
	 * API traffic stays end-to-end TLS inside the proxy's tunnel (a CONNECT, or a SOCKS5
	 * connection). {@link #toString()} never shows the user or password.
	 *
	 * @param scheme how the proxy is spoken to
	 * @param host the proxy's host
	 * @param port the proxy's port
	 * @param username the user for the proxy (Basic {@code Proxy-Authorization} for an
	 * HTTP proxy, the username/password method for SOCKS5), or {@code null} for none
	 * @param password the password, or {@code null} (treated as empty when a user is set)
	 */
	public record Proxy(Scheme scheme, String host, int port, @Nullable String username, @Nullable String password) {

		/**
		 * Checks the values.
		 * @throws IllegalArgumentException if the port is not between 1 and 65535
		 */
		public Proxy {
			Objects.requireNonNull(scheme, "scheme");
			Objects.requireNonNull(host, "host");
			if (port < 1 || port > 65535) {
				throw new IllegalArgumentException("Proxy port " + port + " is not between 1 and 65535");
			}
		}

		/**
		 * An {@code http://} proxy.
		 * @param host the proxy's host
		 * @param port the proxy's port
		 * @param username the user, or {@code null} for none
		 * @param password the password, or {@code null}
		 */
		public Proxy(String host, int port, @Nullable String username, @Nullable String password) {
			this(Scheme.HTTP, host, port, username, password);
		}

		/**
		 * The proxy's URL without user and password.
		 * @return e.g. {@code http://proxy.example.com:3128}
		 */
		public String withoutCredentials() {
			String literal = (this.host.indexOf(':') >= 0) ? "[" + this.host + "]" : this.host;
			return this.scheme.prefix() + literal + ":" + this.port;
		}

		/**
		 * The URL without user and password.
		 * @return {@link #withoutCredentials()}
		 */
		@Override
		public String toString() {
			return withoutCredentials();
		}

		/**
		 * How a proxy is spoken to.
		 */
		public enum Scheme {

			/**
			 * HTTP in clear: CONNECT for an {@code https} server, plain requests else.
			 */
			HTTP("http://", 80),

			/** HTTP over TLS to the proxy (verified as any server is), then as HTTP. */
			HTTPS("https://", 443),

			/**
			 * SOCKS5 (RFC 1928), with the username/password method (RFC 1929) when the
			 * proxy has a user; host names are resolved by the proxy.
			 */
			SOCKS5("socks5://", 1080);

			private final String prefix;

			private final int defaultPort;

			Scheme(String prefix, int defaultPort) {
				this.prefix = prefix;
				this.defaultPort = defaultPort;
			}

			/**
			 * The URL prefix.
			 * @return e.g. {@code socks5://}
			 */
			public String prefix() {
				return this.prefix;
			}

			/**
			 * The port a proxy URL without one means, as in Go.
			 * @return 80, 443 or 1080
			 */
			public int defaultPort() {
				return this.defaultPort;
			}

		}

	}

}
