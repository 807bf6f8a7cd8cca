package dev.listwatch.sample;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample as a user runs it after ahead-of-time processing: its jar (built with
 * {@code spring-boot:process-aot}) started with
 * {@code java -Dspring.aot.enabled=true -jar}, in a JVM of its own, against a real
 * kube-apiserver. The beans come from the generated code, so this shows that the
 * per-watch beans, their generic types (a listener of {@code ResourceEvent<WebConfig>}),
 * indexes, the watch declared in code and the controller {@code web-status} work without
 * the registrars registering them.
 */
class AotSampleApplicationIT {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static final Pattern STARTED = Pattern.compile("Tomcat started on port (\\d+)");

	private static final StringBuffer output = new StringBuffer();

	private static Process process;

	private static RestClient http;

	@BeforeAll
	static void start() throws Exception {
		Path jar = Path.of(System.getProperty("sample.jar", "target/listwatch-sample-app-0.1.0-SNAPSHOT.jar"));
		assertThat(jar).as("the sample's jar (built by ./mvnw verify before this test)").exists();
		Path kubeconfig = LocalApiServer.shared().kubeconfig();
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		process = new ProcessBuilder(java, "-Dspring.aot.enabled=true", "-jar", jar.toString(), "--server.port=0",
				"--listwatch.kubeconfig=" + kubeconfig)
			.redirectErrorStream(true)
			.start();
		CompletableFuture<Integer> port = new CompletableFuture<>();
		Thread reader = new Thread(() -> read(port), "aot-sample-output");
		reader.setDaemon(true);
		reader.start();
		int localPort = port.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		http = RestClient.builder()
			.baseUrl("http://localhost:" + localPort)
			.defaultStatusHandler(HttpStatusCode::isError, (request, response) -> {
			})
			.build();
		await().atMost(WAIT).until(() -> "UP".equals(get("/actuator/health/readiness").get("status")));
	}

	private static void read(CompletableFuture<Integer> port) {
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = lines.readLine()) != null) {
				output.append(line).append('\n');
				Matcher started = STARTED.matcher(line);
				if (started.find()) {
					port.complete(Integer.parseInt(started.group(1)));
				}
			}
		}
		catch (IOException ex) {
			// the process ended
		}
		port.completeExceptionally(
				new IllegalStateException("The AOT-processed sample ended before it started:\n" + output));
	}

	@AfterAll
	static void stop() throws InterruptedException {
		if (process != null) {
			process.destroy();
			if (!process.waitFor(20, TimeUnit.SECONDS)) {
				process.destroyForcibly();
			}
		}
	}

	@Test
	void startsFromTheGeneratedCodeWithEveryWatchSynced() {
		assertThat(output.toString()).contains("Starting AOT-processed SampleApplication");
		Map<String, Object> health = get("/actuator/health/listwatch");
		assertThat(health).containsEntry("status", "UP");
		assertThat(health.get("components")).asInstanceOf(InstanceOfAssertFactories.MAP)
			.containsOnlyKeys("configmaps", "deployments", "labeled", "secrets", "services");
		assertThat(get("/actuator/health/listwatchControllers/web-status")).containsEntry("status", "UP");
	}

	@Test
	void servesAndHearsAConfigMapThroughTheGeneratedBeans() throws Exception {
		String name = "aot-" + UUID.randomUUID().toString().substring(0, 8);
		ApiWriter writer = LocalApiServer.shared().writer();
		writer.create("/api/v1/namespaces/default/configmaps",
				TestSampleApplication.configMap(name, "web", "colour", "green"));

		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(get("/configmaps/" + name)).containsEntry("kind", "ConfigMap")
				.containsEntry("data", Map.of("colour", "green")));
		// the index (a WatchIndex bean) and the typed watch's listener
		// (ResourceEvent<WebConfig>)
		assertThat(http.get().uri("/configmaps/by-app/web").retrieve().body(String.class)).contains(name);
		await().atMost(WAIT)
			.until(() -> events().stream()
				.anyMatch((event) -> "web-config".equals(event.get("listener")) && "labeled".equals(event.get("watch"))
						&& ("default/" + name).equals(event.get("key"))));
		// the controller (a bean of the generated code) and its reconciler
		String digest = WebStatusReconciler.digest(Map.of("colour", "green"));
		await().atMost(WAIT)
			.until(() -> JsonMapper.shared()
				.readTree(writer.get("/api/v1/namespaces/default/configmaps/" + name))
				.path("metadata")
				.path("annotations")
				.path(WebStatusReconciler.ANNOTATION)
				.asString(), digest::equals);
		// metadata-only: no data of a Secret in the cache
		writer.create("/api/v1/namespaces/default/secrets", TestSampleApplication.secret(name, "web"));
		await().atMost(WAIT).until(() -> http.get().uri("/secrets").retrieve().body(String.class).contains(name));
		assertThat(http.get().uri("/secrets").retrieve().body(String.class)).doesNotContain("not-for-the-cache");
		writer.delete("/api/v1/namespaces/default/configmaps/" + name);
		writer.delete("/api/v1/namespaces/default/secrets/" + name);
		await().atMost(WAIT)
			.until(() -> http.get()
				.uri("/configmaps/" + name)
				.retrieve()
				.toBodilessEntity()
				.getStatusCode()
				.value() == 404);
		Files.writeString(Path.of("target", "aot-sample.log"), output);
	}

	private static List<Map<String, Object>> events() {
		return http.get().uri("/events").retrieve().body(new ParameterizedTypeReference<List<Map<String, Object>>>() {
		});
	}

	private static Map<String, Object> get(String path) {
		Map<String, Object> body = http.get()
			.uri(path)
			.retrieve()
			.body(new ParameterizedTypeReference<Map<String, Object>>() {
			});
		return (body != null) ? body : Map.of();
	}

}
