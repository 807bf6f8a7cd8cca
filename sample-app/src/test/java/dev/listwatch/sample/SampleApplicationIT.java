package dev.listwatch.sample;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpStatusCode;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample application against a real kube-apiserver: what a user sees through HTTP and
 * through the event listeners.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class SampleApplicationIT {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@DynamicPropertySource
	static void cluster(DynamicPropertyRegistry registry) {
		registry.add("listwatch.kubeconfig", () -> LocalApiServer.shared().kubeconfig().toString());
	}

	@LocalServerPort
	int port;

	@Autowired
	EventLog events;

	RestClient http;

	@BeforeEach
	void client() {
		this.http = RestClient.builder()
			.baseUrl("http://localhost:" + this.port)
			.defaultStatusHandler(HttpStatusCode::isError, (request, response) -> {
			})
			.build();
		await().atMost(WAIT)
			.until(() -> this.events.entries()
				.stream()
				.filter((entry) -> entry.type().equals("SYNCED"))
				.map(EventLog.Entry::watch)
				.distinct()
				.count() == 5);
	}

	@Test
	@SuppressWarnings("unchecked")
	void healthIsUpOnceSynced() {
		assertThat(get("/actuator/health")).containsEntry("status", "UP");
		Map<String, Object> readiness = get("/actuator/health/readiness");
		assertThat(readiness).containsEntry("status", "UP");
		// the caches synced: what readiness asks of listwatch (not whether the API server
		// answers now)
		assertThat((Map<String, Object>) readiness.get("components")).containsKeys("readinessState", "listwatchSynced")
			.doesNotContainKey("listwatch");
	}

	@Test
	void createdConfigMapIsServedAndSeenByTheListeners() {
		String name = "it-" + UUID.randomUUID().toString().substring(0, 8);
		ApiWriter writer = LocalApiServer.shared().writer();
		writer.create("/api/v1/namespaces/default/configmaps",
				TestSampleApplication.configMap(name, "web", "colour", "blue"));

		await().atMost(WAIT).untilAsserted(() -> {
			Map<String, Object> configMap = get("/configmaps/" + name);
			assertThat(configMap).containsEntry("kind", "ConfigMap").containsEntry("data", Map.of("colour", "blue"));
		});
		assertThat(this.http.get().uri("/configmaps?selector=app=web").retrieve().body(String.class)).contains(name);
		assertThat(this.http.get().uri("/configmaps/by-app/web").retrieve().body(String.class)).contains(name);
		await().atMost(WAIT).until(() -> recorded("any", "configmaps", "ADDED", "default/" + name));
		await().atMost(WAIT).until(() -> recorded("web-config", "labeled", "ADDED", "default/" + name));

		writer.delete("/api/v1/namespaces/default/configmaps/" + name);
		await().atMost(WAIT).until(() -> recorded("any", "configmaps", "DELETED", "default/" + name));
		assertThat(this.http.get().uri("/configmaps/" + name).retrieve().toBodilessEntity().getStatusCode().value())
			.isEqualTo(404);
	}

	@Test
	void secretsAreCachedWithoutTheirDataAndServicesThroughTheWatchDeclaredInCode() {
		String name = "it-" + UUID.randomUUID().toString().substring(0, 8);
		ApiWriter writer = LocalApiServer.shared().writer();
		writer.create("/api/v1/namespaces/default/secrets", TestSampleApplication.secret(name, "web"));
		writer.create("/api/v1/namespaces/default/services", TestSampleApplication.service(name));

		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(this.http.get().uri("/secrets").retrieve().body(String.class))
				.contains("\"" + name + "\""));
		String secrets = this.http.get().uri("/secrets").retrieve().body(String.class);
		assertThat(secrets).contains("PartialObjectMetadata")
			.doesNotContain("not-for-the-cache")
			.doesNotContain("\"data\"");
		await().atMost(WAIT).until(() -> this.http.get().uri("/services").retrieve().body(String.class).contains(name));
		await().atMost(WAIT).until(() -> recorded("catalog", "services", "ADDED", "default/" + name));
		assertThat(this.events.entries())
			.anyMatch((entry) -> entry.listener().equals("catalog") && entry.initialList());
		assertThat(get("/actuator/health/listwatch/services")).containsEntry("status", "UP");
	}

	@Test
	void theReconcilerMarksWebConfigMapsWithADigestOfTheirData() throws Exception {
		String name = "it-" + UUID.randomUUID().toString().substring(0, 8);
		String path = "/api/v1/namespaces/default/configmaps/" + name;
		ApiWriter writer = LocalApiServer.shared().writer();
		writer.create("/api/v1/namespaces/default/configmaps",
				TestSampleApplication.configMap(name, "web", "colour", "blue"));

		String blue = WebStatusReconciler.digest(Map.of("colour", "blue"));
		await().atMost(WAIT).until(() -> annotation(writer, path), blue::equals);
		// it converges: its own write comes back to it and is not written again
		String marked = read(writer, path).at("/metadata/resourceVersion").stringValue();
		await().during(Duration.ofSeconds(1))
			.atMost(WAIT)
			.until(() -> read(writer, path).at("/metadata/resourceVersion").stringValue(), marked::equals);
		// new data: marked again
		writer.patch(path, "{\"data\":{\"colour\":\"green\"}}");
		String green = WebStatusReconciler.digest(Map.of("colour", "green"));
		await().atMost(WAIT).until(() -> annotation(writer, path), green::equals);
		// deleted: reconciled without an object, which does nothing
		long reconciles = controller().path("reconciles").asLong();
		writer.delete(path);
		await().atMost(WAIT).until(() -> controller().path("reconciles").asLong() > reconciles);

		JsonNode controller = controller();
		assertThat(controller.path("watch").stringValue()).isEqualTo("labeled");
		assertThat(controller.path("running").booleanValue()).isTrue();
		assertThat(controller.path("failingKeys").intValue()).isZero();
		// sharded, and alone: it runs every shard
		assertThat(controller.path("shards").path("running").size()).isEqualTo(4);
		assertThat(controller.path("shards").path("members").size()).isEqualTo(1);
		assertThat(get("/actuator/health/listwatchControllers/web-status")).containsEntry("status", "UP");
		assertThat(get("/actuator/health").get("components")).asInstanceOf(InstanceOfAssertFactories.MAP)
			.containsKey("listwatchControllers");
	}

	/** The controller's entry in {@code /actuator/listwatch}. */
	private JsonNode controller() {
		String body = this.http.get().uri("/actuator/listwatch").retrieve().body(String.class);
		return JsonMapper.shared().readTree(body).path("controllers").path("web-status");
	}

	private static String annotation(ApiWriter writer, String path) {
		return read(writer, path).path("metadata").path("annotations").path(WebStatusReconciler.ANNOTATION).asString();
	}

	/** The object as the API server has it now (not as a cache has it). */
	private static JsonNode read(ApiWriter writer, String path) {
		return JsonMapper.shared().readTree(writer.get(path));
	}

	private boolean recorded(String listener, String watch, String type, String key) {
		return this.events.entries()
			.stream()
			.anyMatch((entry) -> entry.listener().equals(listener) && entry.watch().equals(watch)
					&& entry.type().equals(type) && entry.key().equals(key) && !entry.initialList());
	}

	private Map<String, Object> get(String path) {
		return this.http.get().uri(path).retrieve().body(new ParameterizedTypeReference<Map<String, Object>>() {
		});
	}

}
