package dev.listwatch.cluster;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Where the configuration comes from: the kubeconfig files to read (the options'
 * kubeconfig, {@code $KUBECONFIG} merged the kubectl way, {@code <home>/.kube/config}),
 * the options' server alone, or the pod's in-cluster environment and service-account
 * directory.
 */
final class Sources {

	private Sources() {
	}

	/**
	 * The kubeconfig files to read, in kubectl's order of precedence.
	 * @param settings the options
	 * @return the files, empty when there is no kubeconfig at all
	 * @throws KubeconfigException if the options' kubeconfig does not exist, or
	 * {@code $KUBECONFIG} names no file that exists
	 */
	static List<Path> kubeconfigFiles(ConnectionOptions settings) {
		if (Values.hasText(settings.kubeconfig())) {
			Path file = Path.of(settings.kubeconfig());
			if (!Files.isRegularFile(file)) {
				throw new KubeconfigException(file.toString(), "", "does not exist or is not a file",
						"fix listwatch.kubeconfig, or remove it to use KUBECONFIG or ~/.kube/config");
			}
			return List.of(file);
		}
		String variable = settings.environment().get("KUBECONFIG");
		if (Values.hasText(variable)) {
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

	/**
	 * A cluster given by the options' server alone (no kubeconfig).
	 * @param settings the options
	 * @return the spec, to be completed by the overrides
	 */
	static ClusterSpec fromSettings(ConnectionOptions settings) {
		ClusterSpec spec = new ClusterSpec();
		spec.description = "server " + settings.server() + " from listwatch settings";
		return spec;
	}

	/**
	 * The in-cluster configuration: server from
	 * {@code KUBERNETES_SERVICE_HOST}/{@code _PORT}, token file (re-read as it rotates)
	 * and {@code ca.crt} from the service-account directory.
	 * @param settings the options
	 * @return the spec
	 * @throws KubeconfigException if the address or the CA cannot be used
	 */
	static ClusterSpec inCluster(ConnectionOptions settings) {
		Map<String, String> env = settings.environment();
		String host = Objects.requireNonNull(env.get("KUBERNETES_SERVICE_HOST"), "ClusterLoader checked that it is set")
			.strip();
		String port = env.getOrDefault("KUBERNETES_SERVICE_PORT", "443").strip();
		ClusterSpec spec = new ClusterSpec();
		spec.description = "in-cluster";
		spec.serverOrigin = "in-cluster environment";
		spec.serverField = "KUBERNETES_SERVICE_HOST";
		String authority = (host.indexOf(':') >= 0 && !host.startsWith("[")) ? "[" + host + "]" : host;
		spec.server = Values.parseServer("https://" + authority + ":" + port, "in-cluster environment",
				"KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT");
		Path directory = settings.serviceAccountDirectory();
		if (!Values.hasText(settings.token()) && !Values.hasText(settings.tokenFile())) {
			Path token = directory.resolve("token");
			spec.credentials = new TokenFileCredentials(token, "in-cluster service account " + directory, "token",
					settings.clock());
		}
		Path ca = directory.resolve("ca.crt");
		if (Files.isRegularFile(ca)) {
			spec.caField = ca.toString();
			spec.caPem = Values.readFile(ca, "in-cluster service account " + directory, "ca.crt");
			spec.ca = Values.certificates(spec.caPem, ca.toString(), "",
					"mount the service account's ca.crt (a PEM certificate), or set listwatch.connection.certificate-authority");
		}
		return spec;
	}

	/**
	 * The pod's namespace from the service-account directory.
	 * @param settings the options
	 * @return the namespace, or {@code null} when there is no readable, non-empty file
	 */
	static @Nullable String serviceAccountNamespace(ConnectionOptions settings) {
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

}
