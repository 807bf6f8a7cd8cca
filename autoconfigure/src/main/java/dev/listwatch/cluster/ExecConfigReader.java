package dev.listwatch.cluster;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads a kubeconfig user's {@code exec} section into the configuration of an exec
 * credential plugin, by kubectl's rules: {@code apiVersion} v1 or v1beta1;
 * {@code interactiveMode: Always} refused (there is no terminal); the command resolved
 * against the kubeconfig's directory when it holds a slash, else against {@code PATH};
 * {@code env} added to the process environment; {@code provideClusterInfo} passes the
 * cluster (never the user's credentials) in {@code KUBERNETES_EXEC_INFO}. Runs nothing:
 * the plugin runs on first use.
 */
final class ExecConfigReader {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private ExecConfigReader() {
	}

	/**
	 * Reads the {@code exec} section of a user.
	 * @param spec what was read of the cluster so far (for {@code provideClusterInfo})
	 * @param user the user entry
	 * @param settings the options (environment, exec timeout)
	 * @return the plugin's configuration
	 * @throws KubeconfigException if the section cannot be used
	 */
	static ExecCredentials.Config read(ClusterSpec spec, Kubeconfig.Entry user, ConnectionOptions settings) {
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
			// client-go: "exec plugin cannot support interactive mode: standard input is
			// not a terminal"
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
				args.add(Objects
					.requireNonNullElse(Kubeconfig.text(argsNode.get(i), user.file(), field + ".args[" + i + "]"), ""));
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

	private static @Nullable Path resolveCommand(String command, Kubeconfig.Entry user,
			Map<String, String> environment) {
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

}
