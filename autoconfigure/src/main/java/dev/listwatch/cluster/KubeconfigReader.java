package dev.listwatch.cluster;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.JsonNode;

/**
 * Reads the chosen context of a kubeconfig into a {@link ClusterSpec}: its cluster
 * (server, {@code tls-server-name}, {@code insecure-skip-tls-verify}, {@code proxy-url},
 * CA, the exec extension) and its user (client certificate and key, token file or token,
 * exec plugin, basic auth). Every problem is a {@link KubeconfigException} naming the
 * file, the field and the fix.
 */
final class KubeconfigReader {

	private static final Log logger = LogFactory.getLog(KubeconfigReader.class);

	private KubeconfigReader() {
	}

	/**
	 * Reads the context the options name, else the kubeconfig's current-context.
	 * @param settings the options
	 * @param config the merged kubeconfig
	 * @return the spec
	 * @throws KubeconfigException if the context, its cluster or its user cannot be used
	 */
	static ClusterSpec fromKubeconfig(ConnectionOptions settings, Kubeconfig config) {
		String files = config.describeFiles();
		if (config.contexts().isEmpty()) {
			throw new KubeconfigException(files, "contexts", "is empty: the kubeconfig defines no context",
					"add a context (`kubectl config set-context NAME --cluster=C --user=U`) or regenerate the kubeconfig, or set listwatch.connection.server");
		}
		String contextName;
		String contextFile;
		String contextField;
		if (Values.hasText(settings.context())) {
			contextName = settings.context();
			contextFile = ClusterLoader.SETTINGS;
			contextField = "listwatch.context";
		}
		else if (config.currentContext() != null) {
			contextName = config.currentContext();
			contextFile = Objects.requireNonNull(config.currentContextFile(), "set with the context").toString();
			contextField = "current-context";
		}
		else {
			throw new KubeconfigException(files, "current-context", "is not set", "set listwatch.context to one of "
					+ Kubeconfig.names(config.contexts()) + ", or run `kubectl config use-context NAME`");
		}
		Kubeconfig.Entry context = config.contexts().get(contextName);
		if (context == null) {
			throw new KubeconfigException(contextFile, contextField,
					"names context '" + contextName + "' which is not defined in " + files,
					"use one of the known contexts " + Kubeconfig.names(config.contexts()));
		}
		ClusterSpec spec = new ClusterSpec();
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
					"names cluster '" + clusterName + "' which is not defined", "name one of the known clusters "
							+ Kubeconfig.names(config.clusters()) + " or add the cluster to the kubeconfig");
		}
		readCluster(spec, cluster);

		String userName = context.text("user");
		if (userName != null) {
			Kubeconfig.Entry user = config.users().get(userName);
			if (user == null) {
				throw new KubeconfigException(context.file().toString(), context.field("user"),
						"names user '" + userName + "' which is not defined", "name one of the known users "
								+ Kubeconfig.names(config.users()) + " or add the user to the kubeconfig");
			}
			readUser(spec, user, cluster, settings);
		}
		return spec;
	}

	private static void readCluster(ClusterSpec spec, Kubeconfig.Entry cluster) {
		String file = cluster.file().toString();
		spec.serverOrigin = file;
		spec.serverField = cluster.field("server");
		String server = cluster.text("server");
		if (server != null) {
			spec.server = Values.parseServer(server, file, cluster.field("server"));
		}
		spec.tlsServerName = cluster.text("tls-server-name");
		spec.insecure = cluster.flag("insecure-skip-tls-verify");
		spec.insecureOrigin = file;
		spec.insecureField = cluster.field("insecure-skip-tls-verify");
		String proxy = cluster.text("proxy-url");
		if (proxy != null) {
			spec.proxy = Values.parseProxy(proxy, file, cluster.field("proxy-url"), false);
			spec.proxyOrigin = file;
			spec.proxyField = cluster.field("proxy-url");
		}
		String caData = cluster.text("certificate-authority-data");
		String caFile = cluster.text("certificate-authority");
		if (caData != null) {
			spec.caField = cluster.field("certificate-authority-data");
			spec.caPem = Values.decodeBase64(caData, file, cluster.field("certificate-authority-data"),
					"paste the output of `base64 -w0 ca.crt`");
			spec.ca = Values.certificates(spec.caPem, file, cluster.field("certificate-authority-data"),
					"paste the output of `base64 -w0 ca.crt` (the CA certificate in PEM format)");
		}
		else if (caFile != null) {
			spec.caField = cluster.field("certificate-authority");
			Path path = cluster.resolve(caFile);
			spec.caPem = Values.readFile(path, file, cluster.field("certificate-authority"));
			spec.ca = Values.certificates(spec.caPem, file, cluster.field("certificate-authority"),
					"point it at the CA certificate in PEM format (-----BEGIN CERTIFICATE-----)");
		}
		JsonNode extensions = cluster.body().get("extensions");
		if (extensions != null && extensions.isArray()) {
			for (JsonNode extension : extensions) {
				if (ClusterLoader.EXEC_EXTENSION.equals(extension.path("name").asString(""))) {
					spec.execExtension = extension.get("extension");
				}
			}
		}
	}

	private static void readUser(ClusterSpec spec, Kubeconfig.Entry user, Kubeconfig.Entry cluster,
			ConnectionOptions settings) {
		String file = user.file().toString();
		if (user.body().hasNonNull("auth-provider")) {
			String name = user.body().path("auth-provider").path("name").asString("");
			throw new KubeconfigException(file, user.field("auth-provider"),
					"uses the auth-provider plugin '" + name + "'; auth-provider plugins were removed in kubectl 1.26",
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
			// client-go: the file wins over a token next to it, which is used only while
			// the file cannot be read
			spec.credentials = new TokenFileCredentials(user.resolve(tokenFile), file, user.field("tokenFile"),
					settings.clock(), token, (token != null) ? user.field("token") + " in " + file : null);
		}
		else if (token != null) {
			spec.credentials = StaticCredentials.token(token, user.field("token") + " in " + file);
		}
		else if (user.body().hasNonNull("exec")) {
			spec.credentials = new ExecCredentials(ExecConfigReader.read(spec, user, settings), settings.clock());
		}
		else if (username != null) {
			spec.credentials = StaticCredentials.basic(username, user.text("password"),
					user.field("username") + " in " + file);
		}
	}

	private static void readClientCertificate(ClusterSpec spec, Kubeconfig.Entry user) {
		String file = user.file().toString();
		String certField;
		String certPem;
		if (user.text("client-certificate-data") != null) {
			certField = user.field("client-certificate-data");
			certPem = Values.decodeBase64(user.text("client-certificate-data"), file, certField,
					"paste the output of `base64 -w0 client.crt`");
		}
		else if (user.text("client-certificate") != null) {
			certField = user.field("client-certificate");
			certPem = Values.readFile(user.resolve(user.text("client-certificate")), file, certField);
		}
		else {
			certField = null;
			certPem = null;
		}
		String keyField;
		String keyPem;
		if (user.text("client-key-data") != null) {
			keyField = user.field("client-key-data");
			keyPem = Values.decodeBase64(user.text("client-key-data"), file, keyField,
					"paste the output of `base64 -w0 client.key`");
		}
		else if (user.text("client-key") != null) {
			keyField = user.field("client-key");
			keyPem = Values.readFile(user.resolve(user.text("client-key")), file, keyField);
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
		List<X509Certificate> chain = Values.certificates(certPem, file,
				Objects.requireNonNull(certField, "set with the certificate"),
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

}
