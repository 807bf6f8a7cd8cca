package dev.listwatch.cluster;

import java.io.File;
import java.io.IOException;
import java.net.Authenticator;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.ProxySelector;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.HttpRedirects;
import org.springframework.boot.http.client.JdkHttpClientBuilder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.http.client.ClientHttpRequestFactory;

/**
 * Finds the cluster the way kubectl does and turns it into a {@link Cluster}.
 *
 * <p>Where the configuration comes from, first match wins:
 * <ol>
 * <li>{@link ConnectionSettings#kubeconfig()} (must exist);</li>
 * <li>{@code $KUBECONFIG}: files separated by {@code ':'}, merged by kubectl's rules
 * (for clusters, users and contexts the first file that defines a name wins, the first
 * file that sets current-context wins; missing files are skipped, all missing is an
 * error);</li>
 * <li>{@code <home>/.kube/config} if it exists;</li>
 * <li>{@link ConnectionSettings#server()} alone, when set;</li>
 * <li>in-cluster: {@code KUBERNETES_SERVICE_HOST}/{@code KUBERNETES_SERVICE_PORT} and the
 * service-account directory's {@code token} (re-read as it rotates), {@code ca.crt} and
 * {@code namespace}.</li>
 * </ol>
 * The settings' server, token or token file, CA and namespace override what the file
 * says. Relative paths in a kubeconfig resolve against the file that defined them.
 *
 * <p>client-go's rules hold: a CA from the settings clears the kubeconfig's
 * {@code insecure-skip-tls-verify}, {@code insecure-skip-tls-verify=true} from the settings
 * without a CA drops the kubeconfig's CA, and a source that asks for a CA and for no
 * verification at once is refused; a token file wins over a token given next to it (which is
 * used only while the file has never been read); {@code tls-server-name} is the SNI and the
 * name the certificate is verified against; an exec plugin that needs a terminal
 * ({@code interactiveMode: Always}) is refused. A {@code proxy-url} must be {@code http://};
 * its credentials reach the proxy for {@code https://} servers through a relay on the
 * loopback interface (see {@link Cluster#close()}).
 *
 * <p>Every problem is reported as a {@link KubeconfigException} naming the file, the
 * field and the fix, never a secret.
 */
public final class ClusterLoader {

	private static final Log logger = LogFactory.getLog(ClusterLoader.class);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	static final String SETTINGS = "listwatch settings";

	static final String EXEC_EXTENSION = "client.authentication.k8s.io/exec";

	private ClusterLoader() {
	}

	/**
	 * Loads the cluster. Reads files and parses certificates and keys now (so broken
	 * configuration fails at startup); does not contact the server and does not run exec
	 * plugins (they run on the first {@link Credentials#authorization()}).
	 * @param settings the settings
	 * @return the cluster
	 * @throws KubeconfigException if the configuration cannot be used
	 */
	public static Cluster load(ConnectionSettings settings) {
		Objects.requireNonNull(settings, "settings");
		List<Path> files = kubeconfigFiles(settings);
		Spec spec;
		if (!files.isEmpty()) {
			Kubeconfig config = Kubeconfig.load(files);
			if (config.contexts().isEmpty() && settings.server() != null) {
				spec = fromSettings(settings);
			}
			else {
				spec = fromKubeconfig(settings, config);
			}
		}
		else if (settings.server() != null) {
			spec = fromSettings(settings);
		}
		else if (settings.environment().get("KUBERNETES_SERVICE_HOST") != null) {
			spec = inCluster(settings);
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
		if (spec.namespace == null) {
			spec.namespace = serviceAccountNamespace(settings);
		}
		if (spec.namespace == null) {
			spec.namespace = "default";
		}
		if (spec.insecure) {
			logger.warn("insecure-skip-tls-verify is set for " + spec.description + ": the certificate of "
					+ spec.server + " is not verified, anyone on the network path can impersonate the API server");
		}
		boolean https = "https".equalsIgnoreCase(spec.server.getScheme());
		ProxyRelay relay = (https && spec.proxy != null && spec.proxy.username() != null)
				? ProxyRelay.start(spec.proxy, spec.server, settings.connectTimeout()) : null;
		ClientHttpRequestFactory requestFactory;
		try {
			requestFactory = requestFactory(spec, settings, relay);
		}
		catch (RuntimeException ex) {
			if (relay != null) {
				relay.close();
			}
			throw ex;
		}
		Cluster cluster = new Cluster(spec.server, spec.credentials, spec.namespace, spec.description,
				requestFactory, relay);
		if (logger.isDebugEnabled()) {
			logger.debug("Loaded " + cluster);
		}
		return cluster;
	}

	// ---- where the configuration comes from

	static List<Path> kubeconfigFiles(ConnectionSettings settings) {
		if (hasText(settings.kubeconfig())) {
			Path file = Path.of(settings.kubeconfig());
			if (!Files.isRegularFile(file)) {
				throw new KubeconfigException(file.toString(), "", "does not exist or is not a file",
						"fix listwatch.kubeconfig, or remove it to use KUBECONFIG or ~/.kube/config");
			}
			return List.of(file);
		}
		String variable = settings.environment().get("KUBECONFIG");
		if (hasText(variable)) {
			Set<Path> listed = new LinkedHashSet<>();
			for (String part : variable.split(File.pathSeparator)) {
				if (!part.isBlank()) {
					listed.add(Path.of(part.strip()));
				}
			}
			List<Path> existing = listed.stream().filter(Files::isRegularFile).toList();
			if (existing.isEmpty() && !listed.isEmpty()) {
				throw new KubeconfigException(variable, "", "(from $KUBECONFIG) names no file that exists",
						"point KUBECONFIG at existing kubeconfig files, separated by ':', or unset it to use ~/.kube/config");
			}
			if (!existing.isEmpty()) {
				return existing;
			}
		}
		Path home = settings.homeDirectory().resolve(".kube").resolve("config");
		return Files.isRegularFile(home) ? List.of(home) : List.of();
	}

	private static Spec fromKubeconfig(ConnectionSettings settings, Kubeconfig config) {
		String files = config.describeFiles();
		if (config.contexts().isEmpty()) {
			throw new KubeconfigException(files, "contexts", "is empty: the kubeconfig defines no context",
					"add a context (`kubectl config set-context NAME --cluster=C --user=U`) or regenerate the kubeconfig, or set listwatch.connection.server");
		}
		String contextName;
		String contextFile;
		String contextField;
		if (hasText(settings.context())) {
			contextName = settings.context();
			contextFile = SETTINGS;
			contextField = "listwatch.context";
		}
		else if (config.currentContext() != null) {
			contextName = config.currentContext();
			contextFile = config.currentContextFile().toString();
			contextField = "current-context";
		}
		else {
			throw new KubeconfigException(files, "current-context", "is not set",
					"set listwatch.context to one of " + Kubeconfig.names(config.contexts())
							+ ", or run `kubectl config use-context NAME`");
		}
		Kubeconfig.Entry context = config.contexts().get(contextName);
		if (context == null) {
			throw new KubeconfigException(contextFile, contextField,
					"names context '" + contextName + "' which is not defined in " + files,
					"use one of the known contexts " + Kubeconfig.names(config.contexts()));
		}
		Spec spec = new Spec();
		spec.description = "context " + contextName + " in " + context.file();
		spec.namespace = context.text("namespace");

		String clusterName = context.text("cluster");
		if (clusterName == null) {
			throw new KubeconfigException(context.file().toString(), context.field("cluster"), "is missing",
					"name one of the clusters " + Kubeconfig.names(config.clusters()));
		}
		Kubeconfig.Entry cluster = config.clusters().get(clusterName);
		if (cluster == null) {
			throw new KubeconfigException(context.file().toString(), context.field("cluster"),
					"names cluster '" + clusterName + "' which is not defined",
					"name one of the known clusters " + Kubeconfig.names(config.clusters())
							+ " or add the cluster to the kubeconfig");
		}
		readCluster(spec, cluster);

		String userName = context.text("user");
		if (userName != null) {
			Kubeconfig.Entry user = config.users().get(userName);
			if (user == null) {
				throw new KubeconfigException(context.file().toString(), context.field("user"),
						"names user '" + userName + "' which is not defined",
						"name one of the known users " + Kubeconfig.names(config.users())
								+ " or add the user to the kubeconfig");
			}
			readUser(spec, user, cluster, settings);
		}
		return spec;
	}

	private static void readCluster(Spec spec, Kubeconfig.Entry cluster) {
		String file = cluster.file().toString();
		spec.serverOrigin = file;
		spec.serverField = cluster.field("server");
		String server = cluster.text("server");
		if (server != null) {
			spec.server = parseServer(server, file, cluster.field("server"));
		}
		spec.tlsServerName = cluster.text("tls-server-name");
		spec.insecure = cluster.flag("insecure-skip-tls-verify");
		spec.insecureOrigin = file;
		spec.insecureField = cluster.field("insecure-skip-tls-verify");
		String proxy = cluster.text("proxy-url");
		if (proxy != null) {
			spec.proxy = parseProxy(proxy, file, cluster.field("proxy-url"));
		}
		String caData = cluster.text("certificate-authority-data");
		String caFile = cluster.text("certificate-authority");
		if (caData != null) {
			spec.caField = cluster.field("certificate-authority-data");
			spec.caPem = decodeBase64(caData, file, cluster.field("certificate-authority-data"),
					"paste the output of `base64 -w0 ca.crt`");
			spec.ca = certificates(spec.caPem, file, cluster.field("certificate-authority-data"),
					"paste the output of `base64 -w0 ca.crt` (the CA certificate in PEM format)");
		}
		else if (caFile != null) {
			spec.caField = cluster.field("certificate-authority");
			Path path = cluster.resolve(caFile);
			spec.caPem = readFile(path, file, cluster.field("certificate-authority"));
			spec.ca = certificates(spec.caPem, file, cluster.field("certificate-authority"),
					"point it at the CA certificate in PEM format (-----BEGIN CERTIFICATE-----)");
		}
		JsonNode extensions = cluster.body().get("extensions");
		if (extensions != null && extensions.isArray()) {
			for (JsonNode extension : extensions) {
				if (EXEC_EXTENSION.equals(extension.path("name").asString(""))) {
					spec.execExtension = extension.get("extension");
				}
			}
		}
	}

	private static void readUser(Spec spec, Kubeconfig.Entry user, Kubeconfig.Entry cluster,
			ConnectionSettings settings) {
		String file = user.file().toString();
		if (user.body().hasNonNull("auth-provider")) {
			String name = user.body().path("auth-provider").path("name").asString("");
			throw new KubeconfigException(file, user.field("auth-provider"),
					"uses the auth-provider plugin '" + name
							+ "'; auth-provider plugins were removed in kubectl 1.26",
					"use an exec credential plugin instead (GKE: install gke-gcloud-auth-plugin; Azure: kubelogin; OIDC: int128/kubelogin) and regenerate the kubeconfig");
		}
		if (user.body().hasNonNull("as") || user.body().hasNonNull("as-groups")) {
			logger.warn(user.field("as") + " in " + file + " (impersonation) is not supported and is ignored");
		}
		readClientCertificate(spec, user);
		String token = user.text("token");
		String tokenFile = user.text("tokenFile");
		String username = user.text("username");
		if (tokenFile != null) {
			// client-go: the file wins over a token next to it, which is used only while the file
			// cannot be read
			spec.credentials = new TokenFileCredentials(user.resolve(tokenFile), file, user.field("tokenFile"),
					settings.clock(), token, (token != null) ? user.field("token") + " in " + file : null);
		}
		else if (token != null) {
			spec.credentials = StaticCredentials.token(token, user.field("token") + " in " + file);
		}
		else if (user.body().hasNonNull("exec")) {
			spec.credentials = new ExecCredentials(execConfig(spec, user, settings), settings.clock());
		}
		else if (username != null) {
			spec.credentials = StaticCredentials.basic(username, user.text("password"),
					user.field("username") + " in " + file);
		}
	}

	private static void readClientCertificate(Spec spec, Kubeconfig.Entry user) {
		String file = user.file().toString();
		String certField;
		String certPem;
		if (user.text("client-certificate-data") != null) {
			certField = user.field("client-certificate-data");
			certPem = decodeBase64(user.text("client-certificate-data"), file, certField,
					"paste the output of `base64 -w0 client.crt`");
		}
		else if (user.text("client-certificate") != null) {
			certField = user.field("client-certificate");
			certPem = readFile(user.resolve(user.text("client-certificate")), file, certField);
		}
		else {
			certField = null;
			certPem = null;
		}
		String keyField;
		String keyPem;
		if (user.text("client-key-data") != null) {
			keyField = user.field("client-key-data");
			keyPem = decodeBase64(user.text("client-key-data"), file, keyField,
					"paste the output of `base64 -w0 client.key`");
		}
		else if (user.text("client-key") != null) {
			keyField = user.field("client-key");
			keyPem = readFile(user.resolve(user.text("client-key")), file, keyField);
		}
		else {
			keyField = null;
			keyPem = null;
		}
		if (certPem == null && keyPem == null) {
			return;
		}
		if (keyPem == null) {
			throw new KubeconfigException(file, user.field("client-key-data"),
					"is missing but " + certField + " is set",
					"add the client key that belongs to the certificate (client-key-data or client-key)");
		}
		if (certPem == null) {
			throw new KubeconfigException(file, user.field("client-certificate-data"),
					"is missing but " + keyField + " is set",
					"add the client certificate that belongs to the key (client-certificate-data or client-certificate)");
		}
		List<X509Certificate> chain = certificates(certPem, file, certField,
				"provide the client certificate in PEM format (-----BEGIN CERTIFICATE-----)");
		PrivateKey key;
		try {
			key = Tls.privateKey(keyPem);
		}
		catch (IllegalArgumentException ex) {
			throw new KubeconfigException(file, keyField, "does not hold a PEM private key that can be read",
					"provide an unencrypted RSA or EC key in PEM format (PKCS#1 'BEGIN RSA PRIVATE KEY', SEC1 'BEGIN EC PRIVATE KEY' or PKCS#8 'BEGIN PRIVATE KEY')");
		}
		if (!Tls.matches(chain.get(0), key)) {
			throw new KubeconfigException(file, keyField, "does not match the certificate in " + certField,
					"use the key that was issued with the certificate (compare `openssl x509 -noout -pubkey -in client.crt` with `openssl pkey -pubout -in client.key`)");
		}
		spec.clientChain = chain;
		spec.clientKey = key;
	}

	private static ExecCredentials.Config execConfig(Spec spec, Kubeconfig.Entry user, ConnectionSettings settings) {
		String file = user.file().toString();
		JsonNode exec = user.body().get("exec");
		String field = user.field("exec");
		if (!exec.isObject()) {
			throw new KubeconfigException(file, field, "is not a mapping",
					"write exec with apiVersion, command and args fields");
		}
		String apiVersion = Kubeconfig.text(exec.get("apiVersion"), user.file(), field + ".apiVersion");
		if (apiVersion == null) {
			throw new KubeconfigException(file, field + ".apiVersion", "is missing",
					"set it to " + ExecCredentials.V1 + " (or " + ExecCredentials.V1BETA1 + " for older plugins)");
		}
		if (!apiVersion.equals(ExecCredentials.V1) && !apiVersion.equals(ExecCredentials.V1BETA1)) {
			throw new KubeconfigException(file, field + ".apiVersion",
					"is '" + apiVersion + "', which is not supported",
					"use " + ExecCredentials.V1 + " or " + ExecCredentials.V1BETA1
							+ " (v1alpha1 was removed in Kubernetes 1.24); upgrade the plugin and regenerate the kubeconfig");
		}
		String interactiveMode = Kubeconfig.text(exec.get("interactiveMode"), user.file(), field + ".interactiveMode");
		if ("Always".equals(interactiveMode)) {
			// client-go: "exec plugin cannot support interactive mode: standard input is not a terminal"
			throw new KubeconfigException(file, field + ".interactiveMode",
					"is Always: the plugin needs a terminal to ask for input, and listwatch runs it without one (client-go refuses to run such a plugin without a terminal too)",
					"log in with the plugin beforehand so that it can issue credentials without asking, and set interactiveMode: Never (or IfAvailable); "
							+ "or give this application credentials that need no login (a service account token, a client certificate)");
		}
		if (interactiveMode != null && !"Never".equals(interactiveMode) && !"IfAvailable".equals(interactiveMode)) {
			throw new KubeconfigException(file, field + ".interactiveMode",
					"is '" + interactiveMode + "', which is not one of Never, IfAvailable, Always",
					"set interactiveMode: Never (listwatch never has a terminal to offer the plugin)");
		}
		String command = Kubeconfig.text(exec.get("command"), user.file(), field + ".command");
		if (command == null) {
			throw new KubeconfigException(file, field + ".command", "is missing",
					"name the credential plugin to run, e.g. aws or gke-gcloud-auth-plugin");
		}
		String installHint = Kubeconfig.text(exec.get("installHint"), user.file(), field + ".installHint");
		Path resolved = resolveCommand(command, user, settings.environment());
		if (resolved == null) {
			throw new KubeconfigException(file, field + ".command",
					"names '" + command + "' which is not an executable file"
							+ (command.contains("/") ? "" : " on the PATH"),
					(installHint != null) ? installHint.strip()
							: "install the credential plugin, or write its full path in the kubeconfig");
		}
		List<String> args = new ArrayList<>();
		JsonNode argsNode = exec.get("args");
		if (argsNode != null && !argsNode.isNull()) {
			if (!argsNode.isArray()) {
				throw new KubeconfigException(file, field + ".args", "is not a list", "write args as a YAML list");
			}
			for (int i = 0; i < argsNode.size(); i++) {
				args.add(Objects.requireNonNullElse(
						Kubeconfig.text(argsNode.get(i), user.file(), field + ".args[" + i + "]"), ""));
			}
		}
		Map<String, String> env = new LinkedHashMap<>(settings.environment());
		JsonNode envNode = exec.get("env");
		if (envNode != null && !envNode.isNull()) {
			if (!envNode.isArray()) {
				throw new KubeconfigException(file, field + ".env", "is not a list",
						"write env as a list of `- name: X` / `value: Y` entries");
			}
			for (int i = 0; i < envNode.size(); i++) {
				String name = Kubeconfig.text(envNode.get(i).get("name"), user.file(), field + ".env[" + i + "].name");
				if (name == null) {
					throw new KubeconfigException(file, field + ".env[" + i + "].name", "is missing",
							"give every env entry a name and a value");
				}
				String value = Kubeconfig.text(envNode.get(i).get("value"), user.file(),
						field + ".env[" + i + "].value");
				env.put(name, (value != null) ? value : "");
			}
		}
		ObjectNode cluster = null;
		JsonNode provide = exec.get("provideClusterInfo");
		if (provide != null && (provide.booleanValue(false) || "true".equals(provide.asString("")))) {
			cluster = JSON.createObjectNode();
			if (spec.server != null) {
				cluster.put("server", spec.server.toString());
			}
			if (spec.tlsServerName != null) {
				cluster.put("tls-server-name", spec.tlsServerName);
			}
			if (spec.insecure) {
				cluster.put("insecure-skip-tls-verify", true);
			}
			if (spec.caPem != null) {
				cluster.put("certificate-authority-data",
						Base64.getEncoder().encodeToString(spec.caPem.getBytes(StandardCharsets.UTF_8)));
			}
			if (spec.proxy != null) {
				cluster.put("proxy-url", spec.proxy.withoutCredentials());
			}
			if (spec.execExtension != null) {
				cluster.set("config", spec.execExtension);
			}
		}
		return new ExecCredentials.Config(file, field, apiVersion, resolved, List.copyOf(args), Map.copyOf(env),
				installHint, cluster, settings.execTimeout());
	}

	private static Path resolveCommand(String command, Kubeconfig.Entry user, Map<String, String> environment) {
		if (command.contains("/")) {
			Path path = user.resolve(command);
			return Files.isRegularFile(path) && Files.isExecutable(path) ? path : null;
		}
		String pathVariable = environment.get("PATH");
		if (pathVariable == null) {
			return null;
		}
		for (String directory : pathVariable.split(File.pathSeparator)) {
			if (directory.isEmpty()) {
				continue;
			}
			Path candidate = Path.of(directory).resolve(command);
			if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

	private static Spec fromSettings(ConnectionSettings settings) {
		Spec spec = new Spec();
		spec.description = "server " + settings.server() + " from listwatch settings";
		return spec;
	}

	private static Spec inCluster(ConnectionSettings settings) {
		Map<String, String> env = settings.environment();
		String host = env.get("KUBERNETES_SERVICE_HOST").strip();
		String port = env.getOrDefault("KUBERNETES_SERVICE_PORT", "443").strip();
		Spec spec = new Spec();
		spec.description = "in-cluster";
		spec.serverOrigin = "in-cluster environment";
		spec.serverField = "KUBERNETES_SERVICE_HOST";
		String authority = (host.indexOf(':') >= 0 && !host.startsWith("[")) ? "[" + host + "]" : host;
		spec.server = parseServer("https://" + authority + ":" + port, "in-cluster environment",
				"KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT");
		Path directory = settings.serviceAccountDirectory();
		if (!hasText(settings.token()) && !hasText(settings.tokenFile())) {
			Path token = directory.resolve("token");
			spec.credentials = new TokenFileCredentials(token, "in-cluster service account " + directory, "token",
					settings.clock());
		}
		Path ca = directory.resolve("ca.crt");
		if (Files.isRegularFile(ca)) {
			spec.caField = ca.toString();
			spec.caPem = readFile(ca, "in-cluster service account " + directory, "ca.crt");
			spec.ca = certificates(spec.caPem, ca.toString(), "",
					"mount the service account's ca.crt (a PEM certificate), or set listwatch.connection.certificate-authority");
		}
		return spec;
	}

	private static String serviceAccountNamespace(ConnectionSettings settings) {
		Path file = settings.serviceAccountDirectory().resolve("namespace");
		if (!Files.isRegularFile(file)) {
			return null;
		}
		try {
			String namespace = Files.readString(file, StandardCharsets.UTF_8).strip();
			return namespace.isEmpty() ? null : namespace;
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
	}

	private static void applyOverrides(Spec spec, ConnectionSettings settings) {
		if (hasText(settings.server())) {
			spec.server = parseServer(settings.server(), SETTINGS, "listwatch.connection.server");
		}
		boolean caOverride = false;
		if (hasText(settings.certificateAuthorityData())) {
			caOverride = true;
			spec.caField = "listwatch.connection.certificate-authority-data";
			spec.caPem = settings.certificateAuthorityData();
			spec.ca = certificates(spec.caPem, SETTINGS, "listwatch.connection.certificate-authority-data",
					"set it to the CA certificate in PEM format (-----BEGIN CERTIFICATE-----)");
		}
		else if (hasText(settings.certificateAuthority())) {
			caOverride = true;
			spec.caField = "listwatch.connection.certificate-authority";
			spec.caPem = readFile(Path.of(settings.certificateAuthority()), SETTINGS,
					"listwatch.connection.certificate-authority");
			spec.ca = certificates(spec.caPem, SETTINGS, "listwatch.connection.certificate-authority",
					"point it at the CA certificate in PEM format (-----BEGIN CERTIFICATE-----)");
		}
		// client-go's rules (clientcmd's getCluster): a CA override clears the kubeconfig's
		// insecure-skip-tls-verify, and insecure-skip-tls-verify=true without a CA override drops the
		// kubeconfig's CA; what is left must not ask for both
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
		if (spec.insecure && spec.ca != null) {
			throw new KubeconfigException(spec.insecureOrigin, spec.insecureField,
					"is true while " + spec.caField
							+ " is set: a CA to verify the API server against, with verification switched off, is not allowed (client-go refuses it too: \"specifying a root certificates file with the insecure flag is not allowed\")",
					SETTINGS.equals(spec.insecureOrigin)
							? "unset listwatch.connection.insecure-skip-tls-verify to verify the API server against the CA (recommended), or unset "
									+ spec.caField + " to skip verification"
							: "remove insecure-skip-tls-verify to verify the API server against the CA (recommended), or remove the CA to skip verification; "
									+ "setting listwatch.connection.certificate-authority (or certificate-authority-data) replaces the kubeconfig's CA and clears its insecure-skip-tls-verify");
		}
		if (hasText(settings.tokenFile())) {
			// the same rule as in a kubeconfig: the file wins, the token is its fallback
			spec.credentials = new TokenFileCredentials(Path.of(settings.tokenFile()), SETTINGS,
					"listwatch.connection.token-file", settings.clock(), hasText(settings.token()) ? settings.token() : null,
					"listwatch.connection.token");
		}
		else if (hasText(settings.token())) {
			spec.credentials = StaticCredentials.token(settings.token(), "listwatch.connection.token");
		}
		if (hasText(settings.namespace())) {
			spec.namespace = settings.namespace();
		}
	}

	// ---- the HTTP client

	/**
	 * The threads on which the JDK client delivers responses. Its default is an unbounded cached
	 * pool that grows with the open watches; handing bytes to a response's InputStream only queues
	 * them, so a few threads serve any number of watches.
	 */
	private static final java.util.concurrent.ExecutorService HTTP_THREADS = httpThreads();

	private static java.util.concurrent.ExecutorService httpThreads() {
		java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
		java.util.concurrent.ThreadPoolExecutor pool = new java.util.concurrent.ThreadPoolExecutor(4, 4, 30,
				java.util.concurrent.TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>(), (runnable) -> {
					Thread thread = new Thread(runnable, "listwatch-http-" + count.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
		pool.allowCoreThreadTimeOut(true);
		return pool;
	}

	private static ClientHttpRequestFactory requestFactory(Spec spec, ConnectionSettings settings, ProxyRelay relay) {
		boolean https = "https".equalsIgnoreCase(spec.server.getScheme());
		ExecCredentials exec = (spec.credentials instanceof ExecCredentials execCredentials) ? execCredentials : null;
		SslBundle bundle = https ? Tls.bundle(spec.ca, spec.clientChain, spec.clientKey, exec, spec.tlsServerName,
				spec.insecure) : null;
		HttpClientSettings clientSettings = new HttpClientSettings(HttpRedirects.DONT_FOLLOW,
				settings.connectTimeout(), null, bundle);
		JdkHttpClientBuilder builder = new JdkHttpClientBuilder()
			.withCustomizer((client) -> client.version(HttpClient.Version.HTTP_1_1).executor(HTTP_THREADS));
		Proxy proxy = spec.proxy;
		if (relay != null) {
			// an https server through a proxy that wants credentials: the relay adds them to the
			// CONNECT, which the JDK client never does (see ProxyRelay)
			builder = builder.withProxySelector(ProxySelector.of(relay.address()));
		}
		else if (proxy != null) {
			builder = builder.withProxySelector(
					ProxySelector.of(InetSocketAddress.createUnresolved(proxy.host(), proxy.port())));
			if (proxy.username() != null) {
				// plain http server: the JDK client answers the proxy's 407 with Basic itself
				Authenticator authenticator = proxy.authenticator();
				builder = builder.withCustomizer((client) -> client.authenticator(authenticator));
			}
		}
		return new ReadAheadRequestFactory(builder.build(clientSettings));
	}

	// ---- values

	static URI parseServer(String value, String file, String field) {
		String text = value.strip();
		if (!text.contains("://")) {
			text = "https://" + text;
		}
		URI uri;
		try {
			uri = new URI(text);
		}
		catch (URISyntaxException ex) {
			throw new KubeconfigException(file, field, "is not a valid URL",
					"write the API server URL, e.g. https://127.0.0.1:6443");
		}
		String scheme = uri.getScheme();
		if (!"https".equalsIgnoreCase(scheme) && !"http".equalsIgnoreCase(scheme) || uri.getHost() == null) {
			throw new KubeconfigException(file, field, "is not an http(s) URL with a host",
					"write the API server URL, e.g. https://127.0.0.1:6443");
		}
		if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
			throw new KubeconfigException(file, field, "carries user info, a query or a fragment",
					"write only scheme, host, port and an optional path prefix, e.g. https://rancher.example.com/k8s/clusters/c-1");
		}
		String path = (uri.getRawPath() != null) ? uri.getRawPath() : "";
		while (path.endsWith("/")) {
			path = path.substring(0, path.length() - 1);
		}
		return URI.create(uri.getScheme().toLowerCase() + "://" + uri.getRawAuthority() + path);
	}

	static Proxy parseProxy(String value, String file, String field) {
		URI uri;
		try {
			uri = new URI(value.strip());
		}
		catch (URISyntaxException ex) {
			throw new KubeconfigException(file, field, "is not a valid URL",
					"write the proxy URL, e.g. http://proxy.example.com:3128");
		}
		String scheme = (uri.getScheme() != null) ? uri.getScheme().toLowerCase() : "";
		if (scheme.startsWith("socks")) {
			throw new KubeconfigException(file, field, "is a " + scheme + " proxy, which is not supported",
					"use an HTTP proxy (http://host:port), or tunnel another way (e.g. `ssh -L 6443:apiserver:6443` and point server at https://127.0.0.1:6443 with tls-server-name)");
		}
		if (scheme.equals("https") && uri.getHost() != null) {
			// the JDK client speaks only plain HTTP to a proxy: taking the URL would send the
			// CONNECT (and any proxy credentials) in clear where TLS was asked for
			throw new KubeconfigException(file, field,
					"is an https:// proxy URL, which is not supported: the HTTP client (the JDK's) cannot speak TLS to a proxy",
					"use the proxy's plain HTTP address instead (http://" + uri.getHost()
							+ ":<its HTTP port>; with an https:// server the API traffic stays end-to-end TLS inside the proxy's CONNECT tunnel, only the CONNECT request and the proxy credentials travel in clear), "
							+ "or run a local TLS forwarder to the proxy (e.g. stunnel) and set proxy-url to http://127.0.0.1:<its port>");
		}
		if (!scheme.equals("http") || uri.getHost() == null) {
			throw new KubeconfigException(file, field, "is not an http proxy URL",
					"write the proxy URL, e.g. http://proxy.example.com:3128");
		}
		int port = (uri.getPort() != -1) ? uri.getPort() : 80;
		String username = null;
		String password = null;
		if (uri.getRawUserInfo() != null) {
			String[] parts = uri.getRawUserInfo().split(":", 2);
			// percent-decoding only: URLDecoder would also turn a '+' of a password into a space
			username = URLDecoder.decode(parts[0].replace("+", "%2B"), StandardCharsets.UTF_8);
			password = (parts.length > 1) ? URLDecoder.decode(parts[1].replace("+", "%2B"), StandardCharsets.UTF_8)
					: "";
		}
		return new Proxy(scheme, uri.getHost(), port, username, password);
	}

	static String decodeBase64(String value, String file, String field, String fix) {
		String compact = value.replaceAll("\\s", "");
		try {
			return new String(Base64.getDecoder().decode(compact), StandardCharsets.UTF_8);
		}
		catch (IllegalArgumentException ex) {
			throw new KubeconfigException(file, field, "is not valid base64", fix);
		}
	}

	static List<X509Certificate> certificates(String pem, String file, String field, String fix) {
		try {
			return Tls.certificates(pem);
		}
		catch (IllegalArgumentException ex) {
			throw new KubeconfigException(file, field, "does not hold a PEM certificate that can be read", fix);
		}
	}

	static String readFile(Path path, String file, String field) {
		try {
			return Files.readString(path, StandardCharsets.UTF_8);
		}
		catch (IOException | RuntimeException ex) {
			throw new KubeconfigException(file, field,
					"names " + path + " which cannot be read (" + ex.getClass().getSimpleName() + ")",
					"check the path (relative paths resolve against the kubeconfig's directory) and the file's permissions");
		}
	}

	private static boolean hasText(String value) {
		return value != null && !value.isBlank();
	}

	/**
	 * An HTTP proxy from {@code proxy-url}.
	 */
	record Proxy(String scheme, String host, int port, String username, String password) {

		String withoutCredentials() {
			return this.scheme + "://" + this.host + ":" + this.port;
		}

		Authenticator authenticator() {
			String user = this.username;
			char[] secret = this.password.toCharArray();
			return new Authenticator() {
				@Override
				protected PasswordAuthentication getPasswordAuthentication() {
					return (getRequestorType() == RequestorType.PROXY) ? new PasswordAuthentication(user, secret)
							: null;
				}
			};
		}

		@Override
		public String toString() {
			return withoutCredentials();
		}

	}

	/**
	 * What the sources say, before the HTTP client is built.
	 */
	private static final class Spec {

		String description;

		URI server;

		String serverOrigin = SETTINGS;

		String serverField = "listwatch.connection.server";

		String tlsServerName;

		boolean insecure;

		String insecureOrigin = SETTINGS;

		String insecureField = "listwatch.connection.insecure-skip-tls-verify";

		Proxy proxy;

		String caPem;

		/** Where the CA came from, for errors: a kubeconfig field, a setting, or the ca.crt path. */
		String caField;

		List<X509Certificate> ca;

		List<X509Certificate> clientChain;

		PrivateKey clientKey;

		JsonNode execExtension;

		Credentials credentials = StaticCredentials.NONE;

		String namespace;

	}

}
