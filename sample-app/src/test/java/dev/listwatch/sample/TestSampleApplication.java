package dev.listwatch.sample;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalEtcd;

import org.springframework.boot.SpringApplication;

/**
 * Runs the sample against a throwaway local API server (a real kube-apiserver and etcd,
 * see {@code testcluster/}), for when no cluster is at hand:
 * {@code ./mvnw -pl sample-app spring-boot:test-run}. The server is seeded with a few
 * ConfigMaps and a Deployment, and stopped with the JVM. Beside it runs an etcd of its
 * own (kube-api-test does not expose the API server's, and application keys do not belong
 * among {@code /registry}'s) with two feature flags under {@code /flags/}, which the
 * watch {@code flags} ({@code source: etcd}) keeps in a cache without the API server.
 */
public class TestSampleApplication {

	private static final String KUBECONFIG_PROPERTY = "--listwatch.kubeconfig=";

	public static void main(String[] args) {
		LocalApiServer server = LocalApiServer.shared();
		seed(server.writer());
		Path kubeconfig = server.kubeconfig();
		LocalEtcd etcd = new LocalEtcd(LocalEtcd.Options.defaults()).start();
		Runtime.getRuntime().addShutdownHook(new Thread(etcd::close, "listwatch-etcd-shutdown"));
		etcd.put("/flags/dark-mode", "{\"enabled\":true}");
		etcd.put("/flags/beta/new-checkout", "{\"enabled\":false,\"percent\":10}");
		List<String> arguments = new ArrayList<>(Arrays.asList(args));
		arguments.addAll(List.of("--listwatch.etcd.endpoints=" + etcd.endpoint(),
				"--listwatch.watches.flags.source=etcd", "--listwatch.watches.flags.key-prefix=/flags/"));
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
			// Boot has reported why; exit so that the shutdown hook stops the API server
			// (the threads reading its output would otherwise keep this JVM alive)
			System.exit(1);
			return;
		}
		System.out.printf("""

				listwatch sample is running against a local kube-apiserver at %1$s
				  kubeconfig: %2$s
				  try:  kubectl --kubeconfig %2$s create configmap x --from-literal=a=b
				        kubectl --kubeconfig %2$s label configmap x app=web
				        kubectl --kubeconfig %2$s get configmap x -o yaml
				                 (the controller web-status has annotated it: listwatch.dev/reconciled)
				        kubectl --kubeconfig %2$s delete configmap x
				        curl localhost:%3$s/configmaps   (also /configmaps/x, /configmaps?selector=app=web,
				                                          /configmaps/by-app/web, /secrets, /services,
				                                          /events, /actuator/health)
				and an etcd at %4$s, whose keys under /flags/ the watch 'flags' caches:
				  try:  curl -s %4$s/v3/kv/put -d '{"key":"%5$s","value":"%6$s"}'
				        (the key /flags/beta/x, the value {"enabled":true}, base64 as etcd's gateway wants them)
				        curl localhost:%3$s/actuator/listwatch
				Stop with Ctrl-C; the API server and both etcds stop with it.

				""", server.serverUrl(), kubeconfig, port, etcd.endpoint(), base64("/flags/beta/x"),
				base64("{\"enabled\":true}"));
	}

	private static String base64(String text) {
		return java.util.Base64.getEncoder().encodeToString(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
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
