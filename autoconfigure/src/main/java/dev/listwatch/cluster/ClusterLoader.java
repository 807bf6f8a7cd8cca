package dev.listwatch.cluster;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.util.ClassUtils;

/**
 * Loads a {@link Cluster}: picks the source ({@link Sources}), reads a kubeconfig
 * ({@link KubeconfigReader}, {@link ExecConfigReader}), applies the options' overrides by
 * client-go's rules and checks what is left. See {@link Cluster#load(ConnectionOptions)}
 * for the contract.
 */
final class ClusterLoader {

	/**
	 * The optional library that speaks to https://, socks5:// and authenticated proxies.
	 */
	static final String JETTY_ARTIFACT = "org.eclipse.jetty:jetty-client";

	private static final boolean JETTY_PRESENT = ClassUtils.isPresent("org.eclipse.jetty.client.HttpClient",
			ClusterLoader.class.getClassLoader());

	private static final Log logger = LogFactory.getLog(ClusterLoader.class);

	/** The "file" of problems in the {@code listwatch.*} settings. */
	static final String SETTINGS = "listwatch settings";

	static final String SSL_BUNDLE = "listwatch.connection.ssl-bundle";

	static final String EXEC_EXTENSION = "client.authentication.k8s.io/exec";

	private ClusterLoader() {
	}

	static Cluster load(ConnectionOptions settings) {
		Objects.requireNonNull(settings, "settings");
		List<Path> files = Sources.kubeconfigFiles(settings);
		ClusterSpec spec;
		if (!files.isEmpty()) {
			Kubeconfig config = Kubeconfig.load(files);
			if (config.contexts().isEmpty() && settings.server() != null) {
				spec = Sources.fromSettings(settings);
			}
			else {
				spec = KubeconfigReader.fromKubeconfig(settings, config);
			}
		}
		else if (settings.server() != null) {
			spec = Sources.fromSettings(settings);
		}
		else if (settings.environment().get("KUBERNETES_SERVICE_HOST") != null) {
			spec = Sources.inCluster(settings);
		}
		else {
			Path home = settings.homeDirectory().resolve(".kube").resolve("config");
			throw new KubeconfigException(home.toString(), "",
					"does not exist, KUBECONFIG is not set and this is not a pod (KUBERNETES_SERVICE_HOST is not set)",
					"set listwatch.kubeconfig or KUBECONFIG to a kubeconfig file, create " + home
							+ " (kind, minikube, k3s and the cloud CLIs write one), or set listwatch.connection.server");
		}
		applyOverrides(spec, settings);
		if (spec.server == null) {
			throw new KubeconfigException(spec.serverOrigin, spec.serverField, "is missing",
					"set the API server URL there (e.g. https://127.0.0.1:6443), or set listwatch.connection.server");
		}
		String namespace = spec.namespace;
		if (namespace == null) {
			namespace = Sources.serviceAccountNamespace(settings);
		}
		if (namespace == null) {
			namespace = "default";
		}
		if (spec.insecure) {
			logger.warn("insecure-skip-tls-verify is set for " + spec.description + ": the certificate of "
					+ spec.server + " is not verified, anyone on the network path can impersonate the API server");
		}
		boolean https = "https".equalsIgnoreCase(spec.server.getScheme());
		SslBundle ssl = null;
		if (https) {
			ExecCredentials exec = (spec.credentials instanceof ExecCredentials execCredentials) ? execCredentials
					: null;
			ssl = (spec.sslBundle != null) ? spec.sslBundle
					: Tls.bundle(spec.ca, spec.clientChain, spec.clientKey, exec);
		}
		String description = (spec.sslBundle != null)
				? spec.description + " with SSL bundle '" + settings.sslBundleName() + "'" : spec.description;
		// the kubeconfig's proxy-url wins; else HTTPS_PROXY/HTTP_PROXY and NO_PROXY, as
		// client-go reads them
		Cluster.Proxy proxy = (spec.proxy != null) ? spec.proxy
				: EnvironmentProxy.forServer(spec.server, settings.environment());
		if (proxy != null) {
			String origin = (spec.proxy != null) ? spec.proxyOrigin : EnvironmentProxy.ORIGIN;
			String field = (spec.proxy != null) ? spec.proxyField
					: EnvironmentProxy.variable(spec.server, settings.environment());
			requireProxyClient(proxy, https, JETTY_PRESENT, Objects.requireNonNull(origin, "set with the proxy"),
					field);
		}
		Cluster cluster = new Cluster(spec.server, ssl, spec.insecure, spec.tlsServerName, spec.credentials, proxy,
				settings.connectTimeout(), namespace, description);
		if (logger.isDebugEnabled()) {
			logger.debug("Loaded " + cluster);
		}
		return cluster;
	}

	/**
	 * Refuses a proxy that only Jetty's HTTP client can speak to when that optional
	 * library is missing: an {@code https://} or {@code socks5://} proxy, or one with
	 * credentials on the way to an {@code https} server (the JDK client never sends them
	 * on a CONNECT). The client package makes the same choice (its {@code Transport}).
	 * @param proxy the proxy
	 * @param https whether the server is {@code https}
	 * @param jettyPresent whether {@code org.eclipse.jetty:jetty-client} is on the class
	 * path
	 * @param origin the file (or {@code environment}) that named the proxy
	 * @param field the field (or variable)
	 * @throws KubeconfigException if the proxy needs Jetty and it is missing
	 */
	static void requireProxyClient(Cluster.Proxy proxy, boolean https, boolean jettyPresent, String origin,
			@Nullable String field) {
		if (jettyPresent) {
			return;
		}
		String why;
		if (proxy.scheme() == Cluster.Proxy.Scheme.SOCKS5) {
			why = "is a socks5:// proxy (" + proxy + ")";
		}
		else if (proxy.scheme() == Cluster.Proxy.Scheme.HTTPS) {
			why = "is an https:// proxy (" + proxy + ", TLS to the proxy)";
		}
		else if (https && proxy.username() != null) {
			why = "is an http:// proxy with credentials (" + proxy
					+ ") on the way to an https:// server, which the JDK HTTP client never sends on a CONNECT";
		}
		else {
			return;
		}
		throw new KubeconfigException(origin, field,
				why + ": listwatch speaks to it with Jetty's HTTP client, " + JETTY_ARTIFACT
						+ ", which is not on the class path",
				"add the dependency " + JETTY_ARTIFACT
						+ " to the application (Spring Boot manages its version; in Maven: <dependency><groupId>org.eclipse.jetty</groupId><artifactId>jetty-client</artifactId></dependency>), "
						+ "or reach the API server through an http:// proxy that needs no credentials");
	}

	private static void applyOverrides(ClusterSpec spec, ConnectionOptions settings) {
		if (Values.hasText(settings.server())) {
			spec.server = Values.parseServer(settings.server(), SETTINGS, "listwatch.connection.server");
		}
		boolean caOverride = false;
		SslBundle bundle = settings.sslBundle();
		if (bundle != null) {
			if (Values.hasText(settings.certificateAuthorityData())
					|| Values.hasText(settings.certificateAuthority())) {
				throw new KubeconfigException(SETTINGS, SSL_BUNDLE, "names SSL bundle '" + settings.sslBundleName()
						+ "' while listwatch.connection.certificate-authority or certificate-authority-data is set too: both say which CA to trust",
						"put the CA certificates into the bundle's truststore (spring.ssl.bundle.pem."
								+ settings.sslBundleName()
								+ ".truststore.certificate) and unset listwatch.connection.certificate-authority(-data), or unset "
								+ SSL_BUNDLE);
			}
			if (bundle.getStores().getKeyStore() == null && (spec.clientChain != null || spec.clientKey != null)) {
				// without a key store the bundle would silently drop the kubeconfig's
				// client certificate, and the server would answer 401 at run time
				throw new KubeconfigException(SETTINGS, SSL_BUNDLE,
						"names SSL bundle '" + settings.sslBundleName() + "', which has no key store, while the "
								+ "kubeconfig's user authenticates with a client certificate: the bundle replaces both",
						"add the client certificate and key to the bundle (spring.ssl.bundle.pem."
								+ settings.sslBundleName() + ".keystore.certificate and .private-key), or unset "
								+ SSL_BUNDLE);
			}
			// the bundle's trust material and key replace the kubeconfig's CA and client
			// certificate
			caOverride = true;
			spec.sslBundle = bundle;
			spec.caField = SSL_BUNDLE;
			spec.caPem = null;
			spec.ca = null;
			spec.clientChain = null;
			spec.clientKey = null;
		}
		else if (Values.hasText(settings.certificateAuthorityData())) {
			caOverride = true;
			spec.caField = "listwatch.connection.certificate-authority-data";
			spec.caPem = settings.certificateAuthorityData();
			spec.ca = Values.certificates(spec.caPem, SETTINGS, "listwatch.connection.certificate-authority-data",
					"set it to the CA certificate in PEM format (-----BEGIN CERTIFICATE-----)");
		}
		else if (Values.hasText(settings.certificateAuthority())) {
			caOverride = true;
			spec.caField = "listwatch.connection.certificate-authority";
			spec.caPem = Values.readFile(Path.of(settings.certificateAuthority()), SETTINGS,
					"listwatch.connection.certificate-authority");
			spec.ca = Values.certificates(spec.caPem, SETTINGS, "listwatch.connection.certificate-authority",
					"point it at the CA certificate in PEM format (-----BEGIN CERTIFICATE-----)");
		}
		// client-go's rules (clientcmd's getCluster): a CA override clears the
		// kubeconfig's insecure-skip-tls-verify, and insecure-skip-tls-verify=true
		// without a CA override drops the kubeconfig's CA; what is left must not ask for
		// both
		Boolean insecure = settings.insecureSkipTlsVerify();
		if (insecure != null) {
			spec.insecure = insecure;
			spec.insecureOrigin = SETTINGS;
			spec.insecureField = "listwatch.connection.insecure-skip-tls-verify";
			if (insecure && !caOverride) {
				spec.ca = null;
				spec.caPem = null;
				spec.caField = null;
			}
		}
		else if (caOverride) {
			spec.insecure = false;
		}
		if (spec.insecure && (spec.ca != null || spec.sslBundle != null)) {
			throw new KubeconfigException(spec.insecureOrigin, spec.insecureField, "is true while " + spec.caField
					+ " is set: a CA to verify the API server against, with verification switched off, is not allowed (client-go refuses it too: \"specifying a root certificates file with the insecure flag is not allowed\")",
					SETTINGS.equals(spec.insecureOrigin)
							? "unset listwatch.connection.insecure-skip-tls-verify to verify the API server against the CA (recommended), or unset "
									+ spec.caField + " to skip verification"
							: "remove insecure-skip-tls-verify to verify the API server against the CA (recommended), or remove the CA to skip verification; "
									+ "setting listwatch.connection.certificate-authority (or certificate-authority-data, or ssl-bundle) replaces the kubeconfig's CA and clears its insecure-skip-tls-verify");
		}
		if (Values.hasText(settings.tokenFile())) {
			// the same rule as in a kubeconfig: the file wins, the token is its fallback
			spec.credentials = new TokenFileCredentials(Path.of(settings.tokenFile()), SETTINGS,
					"listwatch.connection.token-file", settings.clock(),
					Values.hasText(settings.token()) ? settings.token() : null, "listwatch.connection.token");
		}
		else if (Values.hasText(settings.token())) {
			spec.credentials = StaticCredentials.token(settings.token(), "listwatch.connection.token");
		}
		if (Values.hasText(settings.namespace())) {
			spec.namespace = settings.namespace();
		}
	}

}
