package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Resource;
import dev.listwatch.client.ResourceWriter.ApplyOptions;
import dev.listwatch.client.ResourceWriter.DeleteOptions;
import dev.listwatch.client.ResourceWriter.Patch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The writer's requests (method, path, query, media type, body) and how it reads the
 * answers, against a plain HTTP server: errors by kind, and messages that name the
 * request, the resource and the object but never the object's values.
 */
class ResourceWriterTests {

	private static final Resource CONFIG_MAPS = new Resource("", "v1", "configmaps", "ConfigMap", true, "default");

	private static final Resource DEPLOYMENTS = new Resource("apps", "v1", "deployments", "Deployment", true, null);

	private static final Resource NAMESPACES = new Resource("", "v1", "namespaces", "Namespace", false, null);

	private static final String ITEM = "/api/v1/namespaces/default/configmaps/app";

	private static final String APP = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"app\","
			+ "\"namespace\":\"default\",\"resourceVersion\":\"7\",\"uid\":\"u-1\"},\"data\":{\"color\":\"red\"}}";

	private final TestApiServer server = new TestApiServer();

	private final ApiServerClient client = this.server.client(Clock.systemUTC());

	private final List<Sent> sent = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		this.server.close();
	}

	@Test
	void createPostsTheObjectsJsonToTheCollectionWithTheFieldManager() {
		answer("/api/v1/namespaces/default/configmaps", 201, APP);
		ResourceWriter<KubernetesObject> writer = this.client.writer(CONFIG_MAPS, KubernetesObject.class)
			.withFieldManager("my-app");
		KubernetesObject object = object("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
				+ "\"metadata\":{\"name\":\"app\"},\"data\":{\"color\":\"red\"}}");
		KubernetesObject created = writer.create(object);
		assertThat(this.sent).singleElement().satisfies((s) -> {
			assertThat(s.method()).isEqualTo("POST");
			assertThat(s.pathAndQuery()).isEqualTo("/api/v1/namespaces/default/configmaps?fieldManager=my-app");
			assertThat(s.contentType()).isEqualTo("application/json");
			assertThat(s.body()).isEqualTo(object.json());
		});
		assertThat(created.key()).isEqualTo("default/app");
		assertThat(created.resourceVersion()).isEqualTo("7");
		assertThat(created.at("/data/color").asString()).isEqualTo("red");
	}

	@Test
	void aTypedObjectIsWrittenByTheMapperWithTheResourcesApiVersionAndKindAndReadBackAsListItemsAre() {
		answer(ITEM, 200, APP.replace("\"7\"", "\"8\""));
		ResourceWriter<ConfigMap> writer = this.client.writer(CONFIG_MAPS, ConfigMap.class);
		ConfigMap updated = writer
			.update(new ConfigMap(new ObjectMeta(null, "app", null, "7", null), Map.of("color", "blue")));
		Sent put = this.sent.get(0);
		assertThat(put.method()).isEqualTo("PUT");
		assertThat(put.pathAndQuery()).isEqualTo(ITEM);
		JsonNode body = JsonMapper.shared().readTree(put.body());
		assertThat(body.path("apiVersion").asString()).isEqualTo("v1");
		assertThat(body.path("kind").asString()).isEqualTo("ConfigMap");
		assertThat(body.at("/metadata/resourceVersion").asString()).isEqualTo("7");
		assertThat(body.at("/data/color").asString()).isEqualTo("blue");
		assertThat(updated.metadata().resourceVersion()).isEqualTo("8");
		assertThat(updated.metadata().uid()).isEqualTo("u-1");
		assertThat(updated.data()).containsEntry("color", "red");
	}

	@Test
	void statusIsWrittenToTheStatusSubresource() {
		String path = "/apis/apps/v1/namespaces/prod/deployments/web/status";
		String web = "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
				+ "\"namespace\":\"prod\",\"resourceVersion\":\"3\"},\"status\":{\"replicas\":1}}";
		answer(path, 200, web);
		ResourceWriter<KubernetesObject> writer = this.client.writer(DEPLOYMENTS, KubernetesObject.class);
		writer.updateStatus(object(web));
		writer.patchStatus("prod", "web", Patch.merge("{\"status\":{\"replicas\":2}}"));
		writer.applyStatus(object(web), ApplyOptions.DEFAULTS.withFieldManager("status-writer"));
		assertThat(this.sent).extracting(Sent::method).containsExactly("PUT", "PATCH", "PATCH");
		assertThat(this.sent).extracting(Sent::pathAndQuery)
			.containsExactly(path, path, path + "?fieldManager=status-writer");
		assertThat(this.sent).extracting(Sent::contentType)
			.containsExactly("application/json", "application/merge-patch+json", "application/apply-patch+yaml");
	}

	@Test
	void eachPatchTypeIsSentWithItsMediaType() {
		answer(ITEM, 200, APP);
		ResourceWriter<KubernetesObject> writer = this.client.writer(CONFIG_MAPS, KubernetesObject.class);
		writer.patch(null, "app", Patch.merge("{\"data\":{\"color\":\"red\"}}"));
		writer.patch("default", "app", Patch.json("[{\"op\":\"remove\",\"path\":\"/data/old\"}]"));
		writer.patch("default", "app", Patch.strategicMerge("{\"data\":{\"color\":\"red\"}}"));
		assertThat(this.sent).extracting(Sent::contentType)
			.containsExactly("application/merge-patch+json", "application/json-patch+json",
					"application/strategic-merge-patch+json");
		assertThat(this.sent).extracting(Sent::pathAndQuery).containsOnly(ITEM);
		assertThat(this.sent.get(1).body()).isEqualTo("[{\"op\":\"remove\",\"path\":\"/data/old\"}]");
	}

	@Test
	void applySendsTheObjectAsAnApplyPatchWithTheFieldManagerAndForce() {
		answer(ITEM, 200, APP);
		ResourceWriter<KubernetesObject> writer = this.client.writer(CONFIG_MAPS, KubernetesObject.class)
			.withFieldManager("default-manager");
		KubernetesObject intent = object("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
				+ "\"metadata\":{\"name\":\"app\",\"namespace\":\"default\"},\"data\":{\"color\":\"red\"}}");
		writer.apply(intent, ApplyOptions.DEFAULTS);
		writer.apply(intent, ApplyOptions.DEFAULTS.withFieldManager("other").withForce(true));
		assertThat(this.sent).extracting(Sent::pathAndQuery)
			.containsExactly(ITEM + "?fieldManager=default-manager", ITEM + "?fieldManager=other&force=true");
		assertThat(this.sent).allSatisfy((s) -> {
			assertThat(s.method()).isEqualTo("PATCH");
			assertThat(s.contentType()).isEqualTo("application/apply-patch+yaml");
			assertThat(s.body()).isEqualTo(intent.json());
		});
	}

	@Test
	void applyWithoutAFieldManagerIsRefusedBeforeAnyRequest() {
		ResourceWriter<KubernetesObject> writer = this.client.writer(CONFIG_MAPS, KubernetesObject.class);
		assertThat(writer.fieldManager()).isNull();
		assertThatIllegalArgumentException().isThrownBy(() -> writer.apply(object(APP), ApplyOptions.DEFAULTS))
			.withMessageContaining("field manager");
		assertThatIllegalArgumentException().isThrownBy(() -> writer.withFieldManager(" "));
		assertThat(this.server.requests()).isEmpty();
	}

	@Test
	void aMissingObjectIsEmptyOnGetAndFalseOnDelete() {
		ResourceWriter<KubernetesObject> writer = this.client.writer(CONFIG_MAPS, KubernetesObject.class);
		assertThat(writer.get(null, "gone")).isEmpty();
		assertThat(writer.delete("default", "gone")).isFalse();
		assertThat(this.server.requests()).containsExactly("/api/v1/namespaces/default/configmaps/gone",
				"/api/v1/namespaces/default/configmaps/gone");
	}

	@Test
	void getReadsTheObjectAndDeleteSendsItsPreconditionsAndPropagation() {
		answer(ITEM, 200, APP);
		ResourceWriter<KubernetesObject> writer = this.client.writer(CONFIG_MAPS, KubernetesObject.class);
		assertThat(writer.get("default", "app")).hasValueSatisfying((o) -> assertThat(o.uid()).isEqualTo("u-1"));
		assertThat(writer.delete("default", "app")).isTrue();
		assertThat(writer.delete("default", "app",
				DeleteOptions.NONE.withUid("u-1")
					.withResourceVersion("7")
					.withPropagation(DeleteOptions.Propagation.FOREGROUND)))
			.isTrue();
		assertThat(this.sent).extracting(Sent::method).containsExactly("GET", "DELETE", "DELETE");
		assertThat(this.sent.get(1).body()).isEmpty();
		JsonNode options = JsonMapper.shared().readTree(this.sent.get(2).body());
		assertThat(this.sent.get(2).contentType()).isEqualTo("application/json");
		assertThat(options.path("kind").asString()).isEqualTo("DeleteOptions");
		assertThat(options.at("/preconditions/uid").asString()).isEqualTo("u-1");
		assertThat(options.at("/preconditions/resourceVersion").asString()).isEqualTo("7");
		assertThat(options.path("propagationPolicy").asString()).isEqualTo("Foreground");
	}

	@Test
	void aClusterScopedResourceIgnoresTheNamespace() {
		answer("/api/v1/namespaces/team-a", 200, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
				+ "\"metadata\":{\"name\":\"team-a\",\"resourceVersion\":\"1\"}}");
		ResourceWriter<KubernetesObject> writer = this.client.writer(NAMESPACES, KubernetesObject.class);
		assertThat(writer.get("ignored", "team-a"))
			.hasValueSatisfying((ns) -> assertThat(ns.key()).isEqualTo("team-a"));
		assertThat(writer.patch(null, "team-a", Patch.merge("{}")).namespace()).isNull();
		assertThat(this.server.requests()).containsOnly("/api/v1/namespaces/team-a");
	}

	@Test
	void namesAndNamespacesThatCannotBeSentAreRefusedBeforeAnyRequest() {
		ResourceWriter<KubernetesObject> anyNamespace = this.client
			.writer(new Resource("", "v1", "configmaps", "ConfigMap", true, null), KubernetesObject.class);
		assertThatIllegalArgumentException().isThrownBy(() -> anyNamespace.get(null, "app"))
			.withMessageContaining("needs a namespace");
		assertThatIllegalArgumentException().isThrownBy(() -> anyNamespace.create(object(
				"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\"},\"data\":{\"k\":\"v\"}}")))
			.withMessageContaining("needs a namespace");
		ResourceWriter<KubernetesObject> writer = this.client.writer(CONFIG_MAPS, KubernetesObject.class);
		assertThatIllegalArgumentException().isThrownBy(() -> writer.get(null, ".."));
		assertThatIllegalArgumentException().isThrownBy(() -> writer.delete(null, "a/b"));
		assertThatIllegalArgumentException().isThrownBy(() -> writer.get("x/y", "app"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> writer.update(object("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{}}")))
			.withMessageContaining("no metadata.name");
		assertThat(this.server.requests()).isEmpty();
	}

	@Test
	void aStaleUpdateIsAConflictNamingTheRequestAndTheObject() {
		answer(ITEM, 409, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":"
				+ "\"Operation cannot be fulfilled on configmaps \\\"app\\\": the object has been modified; please apply "
				+ "your changes to the latest version and try again\",\"reason\":\"Conflict\",\"details\":{\"name\":"
				+ "\"app\",\"kind\":\"configmaps\"},\"code\":409}");
		ResourceWriter<KubernetesObject> writer = this.client.writer(CONFIG_MAPS, KubernetesObject.class);
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> writer.update(object(APP)))
			.satisfies((ex) -> {
				assertThat(ex.kind()).isEqualTo(Kind.CONFLICT);
				assertThat(ex.code()).isEqualTo(409);
				assertThat(ex.reason()).isEqualTo("Conflict");
			})
			.withMessageStartingWith("update configmaps.v1 default/app failed: 409 Conflict: ")
			.withMessageContaining("the object has been modified")
			.withMessageNotContaining("red");
	}

	@Test
	void anInvalidObjectNamesTheFieldsButNeverTheValues() {
		String secretValue = "s3cr3t value!";
		answer("/api/v1/namespaces/default/configmaps", 422, "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
				+ "\"status\":\"Failure\",\"message\":\"ConfigMap \\\"app\\\" is invalid: metadata.labels: Invalid value: "
				+ "\\\"" + secretValue
				+ "\\\": a valid label must be...\",\"reason\":\"Invalid\",\"details\":{\"name\":"
				+ "\"app\",\"kind\":\"ConfigMap\",\"causes\":[{\"reason\":\"FieldValueInvalid\",\"message\":"
				+ "\"Invalid value: \\\"" + secretValue
				+ "\\\": a valid label must be...\",\"field\":\"metadata.labels\"},"
				+ "{\"reason\":\"FieldValueRequired\",\"message\":\"Required value\",\"field\":\"data\"}]},\"code\":422}");
		ResourceWriter<KubernetesObject> writer = this.client.writer(CONFIG_MAPS, KubernetesObject.class);
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> writer
				.create(object(APP.replace("\"uid\":\"u-1\"", "\"labels\":{\"a\":\"" + secretValue + "\"}"))))
			.satisfies((ex) -> {
				assertThat(ex.kind()).isEqualTo(Kind.INVALID);
				assertThat(ex.status().message()).doesNotContain(secretValue);
			})
			.withMessage("create configmaps.v1 default/app failed: 422 Invalid: invalid fields: "
					+ "metadata.labels (FieldValueInvalid), data (FieldValueRequired)");
	}

	@Test
	void aBadRequestWithoutCausesNeverQuotesTheServersMessage() {
		answer(ITEM, 400,
				"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":"
						+ "\"error decoding patch: invalid character 's' looking for beginning of value in s3cr3t\","
						+ "\"reason\":\"BadRequest\",\"code\":400}");
		ResourceWriter<KubernetesObject> writer = this.client.writer(CONFIG_MAPS, KubernetesObject.class);
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> writer.patch(null, "app", Patch.merge("{\"data\":{\"k\":s3cr3t}}")))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.BAD_REQUEST))
			.withMessageStartingWith("patch configmaps.v1 default/app failed: 400 BadRequest: ")
			.withMessageNotContaining("s3cr3t");
	}

	@Test
	void throttlingKeepsTheDelayTheServerAskedFor() {
		this.server.on(ITEM, (exchange) -> {
			exchange.getResponseHeaders().set("Retry-After", "3");
			TestApiServer.respond(exchange, 429, "{\"kind\":\"Status\",\"reason\":\"TooManyRequests\",\"code\":429}"
				.getBytes(StandardCharsets.UTF_8));
		});
		ResourceWriter<KubernetesObject> writer = this.client.writer(CONFIG_MAPS, KubernetesObject.class);
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> writer.update(object(APP)))
			.satisfies((ex) -> {
				assertThat(ex.kind()).isEqualTo(Kind.TOO_MANY_REQUESTS);
				assertThat(ex.retryAfter()).isEqualTo(Duration.ofSeconds(3));
			});
	}

	@Test
	void anAnswerThatDoesNotBindIsADecodeFailureWithoutTheValue() {
		answer(ITEM, 200, APP.replace("{\"color\":\"red\"}", "\"s3cr3t\""));
		ResourceWriter<ConfigMap> writer = this.client.writer(CONFIG_MAPS, ConfigMap.class);
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> writer.update(new ConfigMap(new ObjectMeta(null, "app", null, "7", null), Map.of())))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.DECODE))
			.withMessageStartingWith("update configmaps.v1 default/app succeeded, but the answer cannot be held")
			.withMessageContaining("/data")
			.withMessageNotContaining("s3cr3t");
	}

	@Test
	void aWriterOfADeclaredKindFindsItThroughDiscoveryOnFirstUse() {
		this.server.on("/apis/apps/v1",
				"{\"kind\":\"APIResourceList\",\"groupVersion\":\"apps/v1\",\"resources\":[{\"name\":\"deployments\","
						+ "\"namespaced\":true,\"kind\":\"Deployment\"},{\"name\":\"deployments/status\","
						+ "\"namespaced\":true,\"kind\":\"Deployment\"}]}");
		ResourceWriter<KubernetesObject> writer = this.client
			.writer(new ApiServerClient.Target("apps/v1", "Deployment", null, "prod"), KubernetesObject.class);
		assertThat(writer).hasToString("ResourceWriter[(not yet resolved)]");
		assertThat(this.server.requests()).isEmpty();
		assertThat(writer.delete(null, "web")).isFalse();
		assertThat(writer.withFieldManager("m").resource())
			.isEqualTo(new Resource("apps", "v1", "deployments", "Deployment", true, "prod"));
		assertThat(this.server.requests()).containsExactly("/apis/apps/v1",
				"/apis/apps/v1/namespaces/prod/deployments/web");
	}

	@Test
	void aWriteThatMeetsA401IsSentOnceMoreWithRefreshedCredentialsAndTheSameBody() {
		AtomicReference<String> token = new AtomicReference<>("Bearer old");
		List<String> bodies = new CopyOnWriteArrayList<>();
		this.server.on(ITEM, (exchange) -> {
			bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
			boolean fresh = "Bearer new".equals(exchange.getRequestHeaders().getFirst("Authorization"));
			TestApiServer.respond(exchange, fresh ? 200 : 401, (fresh ? APP : "").getBytes(StandardCharsets.UTF_8));
		});
		ApiServerClient refreshing = this.server.client(RestClient.builder()
			.requestInterceptor(new AuthorizationInterceptor(token::get, () -> token.getAndSet("Bearer new") != null)),
				Clock.systemUTC());
		String patch = "{\"data\":{\"color\":\"red\"}}";
		KubernetesObject patched = refreshing.writer(CONFIG_MAPS, KubernetesObject.class)
			.patch(null, "app", Patch.merge(patch));
		assertThat(patched.key()).isEqualTo("default/app");
		assertThat(bodies).containsExactly(patch, patch);
	}

	@Test
	void aPatchNeverShowsItsBody() {
		assertThat(Patch.json("[{\"op\":\"add\",\"path\":\"/data/k\",\"value\":\"s3cr3t\"}]").toString())
			.isEqualTo("Patch[JSON, 48 chars]");
	}

	@Test
	void conflictIsTheKindOf409() {
		assertThat(Kind.of(409)).isEqualTo(Kind.CONFLICT);
		assertThat(Kind.of(404)).isEqualTo(Kind.NOT_FOUND);
		assertThat(Kind.of(410)).isEqualTo(Kind.GONE);
		assertThat(Kind.of(408)).isEqualTo(Kind.OTHER);
	}

	@Test
	void aCreateWhoseConnectionBreaksBeforeItsAnswerFailsSayingItsOutcomeIsUnknown() throws Exception {
		// as a GOAWAY on Java 17 does: the request went, no answer came back, and the
		// server may have made the object: a caller that sent it again could make two
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 50,
				java.net.InetAddress.getLoopbackAddress())) {
			Thread server = new Thread(() -> {
				try (java.net.Socket connection = socket.accept()) {
					java.io.InputStream in = connection.getInputStream();
					StringBuilder request = new StringBuilder();
					while (!request.toString().endsWith("}}")) {
						int b = in.read();
						if (b < 0) {
							break;
						}
						request.append((char) b);
					}
					// the whole request arrived; the connection breaks before an answer
				}
				catch (java.io.IOException ex) {
					// the test fails on what the client saw
				}
			});
			server.start();
			ApiServerClient client = new ApiServerClient(
					RestClient.builder()
						.requestFactory(new org.springframework.http.client.JdkClientHttpRequestFactory())
						.build(),
					java.net.URI.create("http://127.0.0.1:" + socket.getLocalPort()), JsonMapper.shared(),
					Clock.systemUTC());
			ResourceWriter<KubernetesObject> writer = client.writer(CONFIG_MAPS, KubernetesObject.class);
			assertThatExceptionOfType(KubernetesApiException.class)
				.isThrownBy(() -> writer.create(object("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
						+ "\"metadata\":{\"generateName\":\"app-\"},\"data\":{\"a\":\"b\"}}")))
				.satisfies((ex) -> {
					assertThat(ex.kind()).isEqualTo(Kind.CONNECTION);
					assertThat(ex.getMessage()).contains("outcome is unknown").contains("generateName");
				});
			server.join(10_000);
		}
	}

	@Test
	void aCreateThatCouldNotConnectIsNotSaidToHaveAnUnknownOutcome() throws Exception {
		int port;
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
				java.net.InetAddress.getLoopbackAddress())) {
			port = socket.getLocalPort();
		}
		ApiServerClient client = new ApiServerClient(RestClient.builder()
			.requestFactory(new org.springframework.http.client.JdkClientHttpRequestFactory())
			.build(), java.net.URI.create("http://127.0.0.1:" + port), JsonMapper.shared(), Clock.systemUTC());
		ResourceWriter<KubernetesObject> writer = client.writer(CONFIG_MAPS, KubernetesObject.class);
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> writer.create(object(
					"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"," + "\"metadata\":{\"generateName\":\"app-\"}}")))
			.satisfies((ex) -> {
				assertThat(ex.kind()).isEqualTo(Kind.CONNECTION);
				assertThat(ex.getMessage()).doesNotContain("outcome is unknown");
			});
	}

	private void answer(String path, int code, String body) {
		this.server.on(path, (exchange) -> {
			String query = exchange.getRequestURI().getRawQuery();
			this.sent.add(new Sent(exchange.getRequestMethod(), path + ((query != null) ? "?" + query : ""),
					exchange.getRequestHeaders().getFirst("Content-Type"),
					new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
			TestApiServer.respond(exchange, code, body.getBytes(StandardCharsets.UTF_8));
		});
	}

	private static KubernetesObject object(String json) {
		return new ObjectDecoder<>(KubernetesObject.class, JsonMapper.shared(), false)
			.decodeObject(json.getBytes(StandardCharsets.UTF_8));
	}

	record ConfigMap(ObjectMeta metadata, Map<String, String> data) {
	}

	private record Sent(String method, String pathAndQuery, String contentType, String body) {
	}

}
