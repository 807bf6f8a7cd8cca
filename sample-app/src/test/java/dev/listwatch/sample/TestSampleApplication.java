package dev.listwatch.sample;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;

import org.springframework.boot.SpringApplication;

/**
 * Runs the sample against a throwaway local API server (a real kube-apiserver and etcd, see
 * {@code testcluster/}), for when no cluster is at hand:
 * {@code ./mvnw -pl sample-app spring-boot:test-run}. The server is seeded with a few ConfigMaps
 * and a Deployment, and stopped with the JVM.
 */
public class TestSampleApplication {

	private static final String KUBECONFIG_PROPERTY = "--listwatch.kubeconfig=";

	public static void main(String[] args) {
		LocalApiServer server = LocalApiServer.shared();
		seed(server.writer());
		Path kubeconfig = server.kubeconfig();
		List<String> arguments = new ArrayList<>(Arrays.asList(args));
		if (arguments.stream().noneMatch((arg) -> arg.startsWith(KUBECONFIG_PROPERTY))) {
			arguments.add(0, KUBECONFIG_PROPERTY + kubeconfig);
		}
		String port;
		try {
			port = SpringApplication.from(SampleApplication::main)
				.run(arguments.toArray(String[]::new))
				.getApplicationContext()
				.getEnvironment()
				.getProperty("local.server.port", "8080");
		}
		catch (RuntimeException ex) {
			// Boot has reported why; exit so that the shutdown hook stops the API server (the
			// threads reading its output would otherwise keep this JVM alive)
			System.exit(1);
			return;
		}
		System.out.printf("""

				listwatch sample is running against a local kube-apiserver at %1$s
				  kubeconfig: %2$s
				  try:  kubectl --kubeconfig %2$s create configmap x --from-literal=a=b
				        kubectl --kubeconfig %2$s label configmap x app=web
				        kubectl --kubeconfig %2$s delete configmap x
				        curl localhost:%3$s/configmaps   (also /configmaps/x, /configmaps?selector=app=web,
				                                          /configmaps/by-app/web, /secrets, /services,
				                                          /events, /actuator/health)
				Stop with Ctrl-C; the API server and etcd stop with it.

				""", server.serverUrl(), kubeconfig, port);
	}

	static void seed(ApiWriter writer) {
		String configmaps = "/api/v1/namespaces/default/configmaps";
		writer.create(configmaps, configMap("web-settings", "web", "greeting", "hello"));
		writer.create(configmaps, configMap("web-features", "web", "dark-mode", "on"));
		writer.create(configmaps, configMap("db-settings", "db", "pool-size", "10"));
		writer.create("/apis/apps/v1/namespaces/default/deployments", """
				{"apiVersion":"apps/v1","kind":"Deployment",
				 "metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},
				 "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
				  "template":{"metadata":{"labels":{"app":"web"}},
				   "spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}
				""");
		writer.create("/api/v1/namespaces/default/secrets", secret("web-tls", "web"));
		writer.create("/api/v1/namespaces/default/services", service("web"));
	}

	static String secret(String name, String app) {
		return """
				{"apiVersion":"v1","kind":"Secret","type":"Opaque",
				 "metadata":{"name":"%s","namespace":"default","labels":{"app":"%s"}},
				 "stringData":{"password":"not-for-the-cache"}}
				""".formatted(name, app);
	}

	static String service(String name) {
		return """
				{"apiVersion":"v1","kind":"Service",
				 "metadata":{"name":"%s","namespace":"default"},
				 "spec":{"selector":{"app":"%s"},"ports":[{"port":80}]}}
				""".formatted(name, name);
	}

	static String configMap(String name, String app, String key, String value) {
		return """
				{"apiVersion":"v1","kind":"ConfigMap",
				 "metadata":{"name":"%s","namespace":"default","labels":{"app":"%s"}},
				 "data":{"%s":"%s"}}
				""".formatted(name, app, key, value);
	}

}
