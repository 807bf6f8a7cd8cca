package dev.listwatch.client;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.ConnectionOptions;
import dev.listwatch.cluster.Credentials;
import dev.listwatch.cluster.KubeconfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jetty's HTTP client is an optional dependency: without it on the class path, every
 * cluster the JDK client serves works as before (no Jetty class is loaded on the way),
 * and a proxy only Jetty's client can use fails with a message naming the proxy setting
 * and the dependency. Runs listwatch in a class loader of this test's class path less
 * Jetty's jars.
 */
class WithoutJettyTests {

	@TempDir
	Path dir;

	@Test
	void theJdkClientServesWhatItCanAndTheRestFailsNamingTheDependency() throws Exception {
		Files.writeString(this.dir.resolve("socks.yaml"), """
				apiVersion: v1
				kind: Config
				current-context: c
				clusters:
				- name: c
				  cluster:
				    server: https://api.example.com:6443
				    proxy-url: socks5://user:s3cret-pw@proxy.example.com:1080
				contexts:
				- name: c
				  context: {cluster: c}
				""");
		List<URL> urls = new ArrayList<>();
		String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		for (String entry : classPath.split(File.pathSeparator)) {
			if (!entry.contains("/org/eclipse/jetty/")) {
				urls.add(url(entry));
			}
		}
		try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new),
				ClassLoader.getPlatformClassLoader())) {
			assertThat(loader.getResource("org/eclipse/jetty/client/HttpClient.class")).as("Jetty is hidden").isNull();
			@SuppressWarnings("unchecked")
			Function<String, List<String>> probe = (Function<String, List<String>>) loader
				.loadClass(Probe.class.getName())
				.getConstructor()
				.newInstance();
			assertThat(probe.apply(this.dir.toString())).containsExactly("direct: a client", "http proxy: a client",
					"http proxy with credentials, http server: a client",
					"socks5 proxy: IllegalStateException: The cluster test is reached through the proxy "
							+ "socks5://proxy.example.com:1080, which listwatch speaks to with Jetty's HTTP client: "
							+ "add the dependency org.eclipse.jetty:jetty-client (Spring Boot manages its version), "
							+ "or use an http:// proxy that needs no credentials",
					"socks5 proxy-url: KubeconfigException: Kubeconfig " + this.dir.resolve("socks.yaml")
							+ ": clusters[c].cluster.proxy-url is a socks5:// proxy (socks5://proxy.example.com:1080): "
							+ "listwatch speaks to it with Jetty's HTTP client, org.eclipse.jetty:jetty-client, which is "
							+ "not on the class path");
		}
	}

	private static URL url(String entry) {
		try {
			return Path.of(entry).toUri().toURL();
		}
		catch (MalformedURLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** What runs in the class loader without Jetty. */
	public static final class Probe implements Function<String, List<String>> {

		@Override
		public List<String> apply(String dir) {
			List<String> outcomes = new ArrayList<>();
			outcomes.add(create("direct", null, "https"));
			outcomes.add(create("http proxy", new Cluster.Proxy("proxy.example.com", 3128, null, null), "https"));
			outcomes.add(create("http proxy with credentials, http server",
					new Cluster.Proxy("proxy.example.com", 3128, "user", "s3cret-pw"), "http"));
			outcomes.add(create("socks5 proxy",
					new Cluster.Proxy(Cluster.Proxy.Scheme.SOCKS5, "proxy.example.com", 1080, "user", "s3cret-pw"),
					"https"));
			try {
				Cluster.load(ConnectionOptions.builder()
					.kubeconfig(Path.of(dir, "socks.yaml").toString())
					.homeDirectory(Path.of(dir))
					.serviceAccountDirectory(Path.of(dir))
					.environment(Map.of())
					.build());
				outcomes.add("socks5 proxy-url: loaded");
			}
			catch (KubeconfigException ex) {
				String message = ex.getMessage();
				outcomes
					.add("socks5 proxy-url: KubeconfigException: " + message.substring(0, message.indexOf(". Fix:")));
			}
			return outcomes;
		}

		private static String create(String name, Cluster.Proxy proxy, String scheme) {
			Cluster cluster = new Cluster(URI.create(scheme + "://api.example.com:6443"), null, false, null,
					Credentials.none(), proxy, Duration.ofSeconds(5), "default", "test");
			try (ApiServerClient client = ApiServerClient.create(cluster, RestClient.builder(), JsonMapper.shared(),
					Clock.systemUTC())) {
				return name + ": a client";
			}
			catch (RuntimeException | LinkageError ex) {
				return name + ": " + ex.getClass().getSimpleName() + ": " + ex.getMessage();
			}
		}

	}

}
