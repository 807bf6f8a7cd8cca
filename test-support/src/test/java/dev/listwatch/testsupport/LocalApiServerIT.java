package dev.listwatch.testsupport;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpClient.Version;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

@ExtendWith(LocalApiServerExtension.class)
class LocalApiServerIT {

	private static final String STREAMING_LIST = "?watch=1&sendInitialEvents=true"
			+ "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=20";

	@Test
	void isSharedAcrossTheJvm(LocalApiServer server) {
		assertThat(server).isSameAs(LocalApiServer.shared());
		server.close();
		assertThat(server.serverUrl()).as("close() leaves the shared server running").startsWith("https://127.0.0.1:");
	}

	@Test
	void kubectlListsTheDefaultNamespace(LocalApiServer server) throws Exception {
		assertThat(server.kubectl("get", "ns", "-o", "name")).contains("namespace/default");
		String kubeconfig = Files.readString(server.kubeconfig());
		assertThat(kubeconfig).contains("current-context: listwatch-test", "server: " + server.serverUrl(),
				"certificate-authority: \"" + server.caCertificatePath() + "\"");
		assertThat(server.caCertificatePath()).isAbsolute().content().isEqualTo(server.caCertificatePem());
	}

	@Test
	void kubectlFailsWithItsStderr(LocalApiServer server) {
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> server.kubectl("get", "configmap", "does-not-exist"))
			.withMessageContaining("NotFound");
	}

	@Test
	void createNamespaceIsIdempotent(LocalApiServer server) {
		assertThat(server.createNamespace("twice")).isEqualTo("twice");
		assertThat(server.createNamespace("twice")).isEqualTo("twice");
		assertThat(server.kubectl("get", "ns", "twice", "-o", "name")).isEqualTo("namespace/twice\n");
	}

	@Test
	void adminTokenIsAllowedAndForbiddenTokenGets403(LocalApiServer server) throws Exception {
		HttpClient client = TestHttp.client(server.caCertificatePem(), null);
		HttpResponse<String> admin = TestHttp.send(client,
				TestHttp.get(server, "/api/v1/configmaps")
					.header("Authorization", "Bearer " + server.adminToken())
					.build());
		assertThat(admin.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(admin.body(), "$.kind")).isEqualTo("ConfigMapList");
		HttpResponse<String> forbidden = TestHttp.send(client,
				TestHttp.get(server, "/api/v1/configmaps")
					.header("Authorization", "Bearer " + server.forbiddenToken())
					.build());
		assertThat(forbidden.statusCode()).isEqualTo(403);
		assertThat((String) JsonPath.read(forbidden.body(), "$.reason")).isEqualTo("Forbidden");
		assertThat((String) JsonPath.read(forbidden.body(), "$.message")).contains(LocalApiServer.FORBIDDEN_USER);
		// HTTP/1.1: over HTTP/2 the server answers an unauthenticated request and sends
		// GOAWAY (UnauthenticatedHTTP2DOSMitigation), and the JDK 17 HttpClient then
		// fails the request with "GOAWAY received" instead of handing over the 401
		HttpResponse<String> wrong = TestHttp.send(TestHttp.client(server.caCertificatePem(), null, Version.HTTP_1_1),
				TestHttp.get(server, "/api/v1/configmaps").header("Authorization", "Bearer not-a-token").build());
		assertThat(wrong.statusCode()).isEqualTo(401);
	}

	@Test
	void servingCertificateNamesLocalhost(LocalApiServer server) throws Exception {
		HttpClient client = TestHttp.client(server.caCertificatePem(), null);
		String port = server.serverUrl().substring(server.serverUrl().lastIndexOf(':') + 1);
		HttpResponse<String> version = TestHttp.send(client,
				HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/version"))
					.header("Authorization", "Bearer " + server.adminToken())
					.build());
		assertThat(version.statusCode()).isEqualTo(200);
	}

	@Test
	void versionIs1344(LocalApiServer server) throws Exception {
		HttpClient client = TestHttp.client(server.caCertificatePem(), null);
		HttpResponse<String> version = TestHttp.send(client,
				TestHttp.get(server, "/version").header("Authorization", "Bearer " + server.adminToken()).build());
		assertThat(version.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(version.body(), "$.gitVersion")).isEqualTo("v1.34.4");
	}

	@ParameterizedTest
	@CsvSource({ "EC, SEC1, -----BEGIN EC PRIVATE KEY-----", "EC, PKCS8, -----BEGIN PRIVATE KEY-----",
			"RSA, PKCS1, -----BEGIN RSA PRIVATE KEY-----", "RSA, PKCS8, -----BEGIN PRIVATE KEY-----" })
	void mintedClientCertificatesAuthenticate(KeyType type, KeyFormat format, String header, LocalApiServer server)
			throws Exception {
		String user = "user-" + type.name().toLowerCase(Locale.ROOT) + "-" + format.name().toLowerCase(Locale.ROOT);
		ClientCertificate admin = server.mintClientCertificate(type, format, user, "system:masters", "team-a");
		assertThat(admin.privateKeyPem()).startsWith(header);
		assertThat(admin.certificatePem()).startsWith("-----BEGIN CERTIFICATE-----");
		assertThat(admin.toString()).doesNotContain(admin.privateKeyPem());
		HttpClient adminClient = TestHttp.client(server.caCertificatePem(), admin);
		HttpResponse<String> review = TestHttp.send(adminClient,
				HttpRequest
					.newBuilder(URI.create(server.serverUrl() + "/apis/authentication.k8s.io/v1/selfsubjectreviews"))
					.header("Content-Type", "application/json")
					.POST(HttpRequest.BodyPublishers
						.ofString("{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}"))
					.build());
		assertThat(review.statusCode()).as(review.body()).isEqualTo(201);
		assertThat((String) JsonPath.read(review.body(), "$.status.userInfo.username")).isEqualTo(user);
		assertThat((List<String>) JsonPath.read(review.body(), "$.status.userInfo.groups")).contains("system:masters",
				"team-a", "system:authenticated");
		assertThat(TestHttp.send(adminClient, TestHttp.get(server, "/api/v1/configmaps").build()).statusCode())
			.isEqualTo(200);

		ClientCertificate nobody = server.mintClientCertificate(type, format, user + "-nobody");
		HttpResponse<String> forbidden = TestHttp.send(TestHttp.client(server.caCertificatePem(), nobody),
				TestHttp.get(server, "/api/v1/configmaps").build());
		assertThat(forbidden.statusCode()).isEqualTo(403);
		assertThat(forbidden.body()).contains(user + "-nobody");
	}

	@Test
	void mintRejectsKeyFormatsThatDoNotFit(LocalApiServer server) {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> server.mintClientCertificate(KeyType.EC, KeyFormat.PKCS1, "x"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> server.mintClientCertificate(KeyType.RSA, KeyFormat.SEC1, "x"));
	}

	@Test
	void streamingListEndsItsInitialEventsWithAnAnnotatedBookmark(LocalApiServer server) throws Exception {
		String namespace = server.createNamespace("streaming-list");
		for (int i = 0; i < 3; i++) {
			server.kubectl("create", "configmap", "cm-" + i, "-n", namespace, "--from-literal=i=" + i);
		}
		HttpClient client = TestHttp.client(server.caCertificatePem(), null);
		List<String> events = new ArrayList<>();
		HttpResponse<Stream<String>> response = client
			.send(TestHttp.get(server, "/api/v1/namespaces/" + namespace + "/configmaps" + STREAMING_LIST)
				.header("Authorization", "Bearer " + server.adminToken())
				.build(), HttpResponse.BodyHandlers.ofLines());
		assertThat(response.statusCode()).isEqualTo(200);
		try (Stream<String> lines = response.body()) {
			Iterator<String> iterator = lines.iterator();
			while (iterator.hasNext()) {
				String line = iterator.next();
				events.add(line);
				if ("BOOKMARK".equals(JsonPath.read(line, "$.type"))) {
					break;
				}
			}
		}
		assertThat(events).hasSize(4);
		assertThat(events.subList(0, 3))
			.allSatisfy((event) -> assertThat((String) JsonPath.read(event, "$.type")).isEqualTo("ADDED"));
		assertThat(
				events.subList(0, 3).stream().map((event) -> (String) JsonPath.read(event, "$.object.metadata.name")))
			.containsExactlyInAnyOrder("cm-0", "cm-1", "cm-2");
		Map<String, String> annotations = JsonPath.read(events.get(3), "$.object.metadata.annotations");
		assertThat(annotations).containsEntry("k8s.io/initial-events-end", "true");
		assertThat((String) JsonPath.read(events.get(3), "$.object.metadata.resourceVersion")).isNotBlank();
	}

	@Test
	void ownServerStartsStopsAndCanTurnStreamingListsOff() throws Exception {
		long started = System.nanoTime();
		Path dir;
		String url;
		try (LocalApiServer server = new LocalApiServer(LocalApiServer.Options.defaults().withWatchList(false))) {
			server.start();
			long millis = (System.nanoTime() - started) / 1_000_000;
			System.out.println("MEASURE own (warm) LocalApiServer start: " + millis + " ms");
			url = server.serverUrl();
			assertThat(url).isNotEqualTo(LocalApiServer.shared().serverUrl());
			assertThat(server.caCertificatePem()).isNotEqualTo(LocalApiServer.shared().caCertificatePem());
			dir = server.kubeconfig().getParent();
			assertThat(server.kubectl("get", "ns", "default", "-o", "name")).isEqualTo("namespace/default\n");
			HttpClient client = TestHttp.client(server.caCertificatePem(), null);
			HttpResponse<String> streamingList = TestHttp.send(client,
					TestHttp.get(server, "/api/v1/namespaces/default/configmaps" + STREAMING_LIST)
						.header("Authorization", "Bearer " + server.adminToken())
						.build());
			System.out.println("MEASURE WatchList=false answers a streaming list with " + streamingList.statusCode()
					+ ": " + streamingList.body());
			assertThat(streamingList.statusCode()).isEqualTo(422);
		}
		assertThat(dir).doesNotExist();
		HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
		assertThatExceptionOfType(java.io.IOException.class).isThrownBy(
				() -> client.send(HttpRequest.newBuilder(URI.create(url.replace("https", "http") + "/version")).build(),
						HttpResponse.BodyHandlers.ofString()));
	}

	@Nested
	class ConstructorInjection {

		private final LocalApiServer server;

		ConstructorInjection(LocalApiServer server) {
			this.server = server;
		}

		@Test
		void getsTheSharedServer() {
			assertThat(this.server).isSameAs(LocalApiServer.shared());
		}

	}

	@Test
	void accessorsNeedAStartedServer() {
		LocalApiServer server = new LocalApiServer();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(server::serverUrl)
			.withMessageContaining("not started");
		server.close();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(server::start)
			.withMessageContaining("closed");
	}

}
