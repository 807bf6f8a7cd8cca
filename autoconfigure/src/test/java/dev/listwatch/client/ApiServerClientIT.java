package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.Resource;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStream;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.ConnectionOptions;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.ClientCertificate;
import dev.listwatch.testsupport.KeyFormat;
import dev.listwatch.testsupport.KeyType;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The ListerWatcher against a real kube-apiserver: paged lists, ordered watch events,
 * bookmarks, 410, and each way of authenticating.
 */
@ExtendWith(LocalApiServerExtension.class)
class ApiServerClientIT {

	private static LocalApiServer server;

	@TempDir
	static Path dir;

	@BeforeAll
	static void start(LocalApiServer localApiServer) {
		server = localApiServer;
	}

	@Test
	void listsThousandsOfConfigMapsInPages() {
		String namespace = server.createNamespace("lw-pages");
		List<String> objects = IntStream.range(0, 3000)
			.mapToObj((i) -> ApiWriter.configMap(namespace, "cm-" + i, "i", Integer.toString(i)))
			.toList();
		server.writer().createAll("/api/v1/namespaces/" + namespace + "/configmaps", objects, 32);
		ListerWatcher<KubernetesObject> configMaps = client(server.kubeconfig()).listerWatcher(
				client(server.kubeconfig()).resolve("v1", "ConfigMap", null, namespace), KubernetesObject.class,
				ApiServerClient.Decoding.DEFAULTS);
		Set<String> names = new HashSet<>();
		int pages = 0;
		String resourceVersion = null;
		ListOptions options = ListOptions.none().withLimit(500L).withLabelSelector("app=listwatch-test");
		while (true) {
			ObjectList<KubernetesObject> page = configMaps.list(options);
			pages++;
			resourceVersion = (resourceVersion != null) ? resourceVersion : page.resourceVersion();
			assertThat(page.resourceVersion()).isEqualTo(resourceVersion);
			assertThat(page.objects()).hasSizeLessThanOrEqualTo(500);
			page.objects().forEach((cm) -> assertThat(names.add(cm.name())).as("seen once: %s", cm.name()).isTrue());
			if (!page.hasMore()) {
				break;
			}
			options = options.withContinueToken(page.continueToken());
		}
		assertThat(pages).isEqualTo(6);
		assertThat(names).hasSize(3000).contains("cm-0", "cm-2999");
	}

	@Test
	void watchFromTheListSeesCreateUpdateDeleteInOrder() {
		String namespace = server.createNamespace("lw-watch");
		ApiServerClient client = client(server.kubeconfig());
		ListerWatcher<KubernetesObject> configMaps = client.listerWatcher(
				client.resolve("v1", null, "configmaps", namespace), KubernetesObject.class,
				ApiServerClient.Decoding.DEFAULTS);
		ObjectList<KubernetesObject> list = configMaps.list(ListOptions.none());
		String path = "/api/v1/namespaces/" + namespace + "/configmaps";
		try (WatchStream<KubernetesObject> watch = configMaps.watch(ListOptions.none()
			.withResourceVersion(list.resourceVersion())
			.withAllowWatchBookmarks(true)
			.withTimeout(Duration.ofSeconds(60)))) {
			ApiWriter writer = server.writer();
			writer.create(path, ApiWriter.configMap(namespace, "w", "color", "red"));
			writer.patch(path + "/w", "{\"data\":{\"color\":\"blue\"}}");
			writer.delete(path + "/w");
			List<WatchEvent<KubernetesObject>> events = new ArrayList<>();
			while (events.size() < 3) {
				WatchEvent<KubernetesObject> event = watch.next();
				if (event.type() != WatchEvent.Type.BOOKMARK) {
					events.add(event);
				}
			}
			assertThat(events).extracting(WatchEvent::type)
				.containsExactly(WatchEvent.Type.ADDED, WatchEvent.Type.MODIFIED, WatchEvent.Type.DELETED);
			assertThat(events).allSatisfy((e) -> assertThat(e.object().key()).isEqualTo(namespace + "/w"));
			assertThat(events.get(0).object().at("/data/color").asString()).isEqualTo("red");
			assertThat(events.get(1).object().at("/data/color").asString()).isEqualTo("blue");
			assertThat(Long.parseLong(events.get(1).resourceVersion()))
				.isGreaterThan(Long.parseLong(events.get(0).resourceVersion()));
			assertThat(events.get(1).object().json()).doesNotContain("managedFields");
		}
	}

	@Test
	void streamingListEndsItsInitialEventsWithABookmark() {
		String namespace = server.createNamespace("lw-bookmark");
		server.writer()
			.create("/api/v1/namespaces/" + namespace + "/configmaps", ApiWriter.configMap(namespace, "b", "k", "v"));
		ApiServerClient client = client(server.kubeconfig());
		ListerWatcher<KubernetesObject> configMaps = client.listerWatcher(
				client.resolve("v1", "ConfigMap", null, namespace), KubernetesObject.class,
				ApiServerClient.Decoding.DEFAULTS);
		try (WatchStream<KubernetesObject> watch = configMaps.watch(ListOptions.none()
			.withSendInitialEvents(true)
			.withResourceVersionMatch(ListOptions.NOT_OLDER_THAN)
			.withAllowWatchBookmarks(true)
			.withTimeout(Duration.ofSeconds(60)))) {
			WatchEvent<KubernetesObject> first = watch.next();
			assertThat(first.type()).isEqualTo(WatchEvent.Type.ADDED);
			assertThat(first.object().name()).isEqualTo("b");
			WatchEvent<KubernetesObject> bookmark = watch.next();
			assertThat(bookmark.type()).isEqualTo(WatchEvent.Type.BOOKMARK);
			assertThat(bookmark.initialEventsEnd()).isTrue();
			assertThat(bookmark.resourceVersion()).isNotBlank();
		}
	}

	@Test
	void aCompactedResourceVersionIsATyped410() throws Exception {
		// a server of its own that compacts etcd every second, so an old resourceVersion
		// really goes; without a watch cache, whose snapshots would still answer for it
		try (LocalApiServer compacting = new LocalApiServer(
				LocalApiServer.Options.defaults().withFlags("--etcd-compaction-interval=1s", "--watch-cache=false"))
			.start()) {
			ApiServerClient client = client(compacting.kubeconfig());
			ListerWatcher<KubernetesObject> configMaps = client.listerWatcher(
					client.resolve("v1", "ConfigMap", null, "default"), KubernetesObject.class,
					ApiServerClient.Decoding.DEFAULTS);
			String old = configMaps.list(ListOptions.none()).resourceVersion();
			ApiWriter writer = compacting.writer();
			KubernetesApiException gone = null;
			long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
			for (int i = 0; gone == null && System.nanoTime() < deadline; i++) {
				// each write moves etcd's revision on; the compactor catches up within
				// two intervals
				writer.create("/api/v1/namespaces/default/configmaps",
						ApiWriter.configMap("default", "c" + i, "k", "v"));
				try {
					configMaps
						.list(ListOptions.none().withResourceVersion(old).withResourceVersionMatch(ListOptions.EXACT));
				}
				catch (KubernetesApiException ex) {
					gone = ex;
				}
			}
			assertThat(gone).isNotNull();
			assertThat(gone.isGone()).isTrue();
			assertThat(gone.code()).isEqualTo(410);
			assertThat(gone.getMessage()).contains("GET /api/v1/namespaces/default/configmaps").contains("410");
			// a watch from there starts one revision later, which the compaction that
			// refused the list may have kept: wait for the next one
			WatchEvent<KubernetesObject> event = null;
			for (int i = 0; System.nanoTime() < deadline; i++) {
				try (WatchStream<KubernetesObject> watch = configMaps
					.watch(ListOptions.none().withResourceVersion(old).withTimeout(Duration.ofSeconds(30)))) {
					event = watch.next();
				}
				catch (KubernetesApiException ex) {
					assertThat(ex.isGone()).as("a watch from a compacted resourceVersion: %s", ex).isTrue();
					return;
				}
				if (event.type() == WatchEvent.Type.ERROR) {
					break;
				}
				writer.create("/api/v1/namespaces/default/configmaps",
						ApiWriter.configMap("default", "w" + i, "k", "v"));
			}
			assertThat(event).isNotNull();
			assertThat(event.type()).isEqualTo(WatchEvent.Type.ERROR);
			assertThat(event.status().code()).isEqualTo(410);
			assertThat(KubernetesApiException.of("watch", event.status(), null).isGone()).isTrue();
		}
	}

	@Test
	void aKindInstalledAfterItsGroupVersionWasDiscoveredIsFoundWithoutARestart() {
		ApiServerClient client = client(server.kubeconfig());
		ApiWriter writer = server.writer();
		writer.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd("alphas", "Alpha"));
		await().atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.until(() -> client.resolve("lw.example.com/v1", "Alpha", null, null) != null);
		// the group/version's list is cached now, without Beta
		writer.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd("betas", "Beta"));
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofSeconds(1))
			.ignoreExceptionsMatching((ex) -> ex instanceof KubernetesApiException api
					&& api.kind() == KubernetesApiException.Kind.NOT_FOUND)
			.untilAsserted(() -> assertThat(client.resolve("lw.example.com/v1", "Beta", null, null).plural())
				.isEqualTo("betas"));
	}

	private static String crd(String plural, String kind) {
		return """
				{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
				 "metadata":{"name":"%1$s.lw.example.com"},
				 "spec":{"group":"lw.example.com","scope":"Namespaced",
				  "names":{"plural":"%1$s","singular":"%3$s","kind":"%2$s"},
				  "versions":[{"name":"v1","served":true,"storage":true,
				   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}
				""".formatted(plural, kind, kind.toLowerCase(java.util.Locale.ROOT));
	}

	@Test
	void unknownKindsAndForbiddenRequestsAreTypedErrors() {
		ApiServerClient client = client(server.kubeconfig());
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> client.resolve("v1", "ConfigMapz", null, null))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(KubernetesApiException.Kind.NOT_FOUND))
			.withMessageContaining("kind 'ConfigMapz'")
			.withMessageContaining("ConfigMap (configmaps)");
		Path forbidden = kubeconfig("forbidden", "token: " + server.forbiddenToken());
		ApiServerClient nobody = client(forbidden);
		Resource configMaps = new Resource("", "v1", "configmaps", "ConfigMap", true, null);
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(
					() -> nobody
						.listerWatcher(configMaps, KubernetesObject.class,
								ApiServerClient.Decoding.DEFAULTS.withMaxEventBytes(1 << 20))
						.list(ListOptions.none()))
			.satisfies((ex) -> {
				assertThat(ex.kind()).isEqualTo(KubernetesApiException.Kind.FORBIDDEN);
				assertThat(ex.code()).isEqualTo(403);
				assertThat(ex.reason()).isEqualTo("Forbidden");
				assertThat(ex.getMessage()).contains("GET /api/v1/configmaps").contains("cannot list resource");
			});
	}

	@Test
	void authenticatesWithAnEcClientCertificate() {
		ClientCertificate sec1 = server.mintClientCertificate(KeyType.EC, KeyFormat.SEC1, "ec-user", "system:masters");
		ClientCertificate pkcs8 = server.mintClientCertificate(KeyType.EC, KeyFormat.PKCS8, "ec-user8",
				"system:masters");
		for (ClientCertificate certificate : List.of(sec1, pkcs8)) {
			Path kubeconfig = kubeconfig("ec", "client-certificate-data: " + base64(certificate.certificatePem())
					+ "\n      client-key-data: " + base64(certificate.privateKeyPem()));
			assertThat(listNamespaces(kubeconfig)).contains("default");
		}
	}

	@Test
	void authenticatesWithABearerToken() {
		Path kubeconfig = kubeconfig("token", "token: " + server.adminToken());
		assertThat(listNamespaces(kubeconfig)).contains("default");
	}

	@Test
	void authenticatesWithAnExecPlugin() throws Exception {
		Path plugin = dir.resolve("plugin-" + UUID.randomUUID() + ".sh");
		Files.writeString(plugin, "#!/bin/sh\ncat <<EOF\n{\"apiVersion\":\"client.authentication.k8s.io/v1\","
				+ "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"" + server.adminToken() + "\"}}\nEOF\n");
		Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwx------"));
		Path kubeconfig = kubeconfig("exec", "exec:\n        apiVersion: client.authentication.k8s.io/v1\n"
				+ "        command: " + plugin + "\n        interactiveMode: Never");
		assertThat(listNamespaces(kubeconfig)).contains("default");
	}

	@Test
	void refusesAServerSignedByAnotherCa() throws Exception {
		ClientCertificate stranger = server.mintClientCertificate(KeyType.EC, KeyFormat.PKCS8, "x");
		Path kubeconfig = dir.resolve("wrong-ca-" + UUID.randomUUID() + ".yaml");
		Files.writeString(kubeconfig, """
				apiVersion: v1
				kind: Config
				clusters:
				- name: c
				  cluster:
				    server: %s
				    certificate-authority-data: %s
				users:
				- name: u
				  user:
				    token: %s
				contexts:
				- name: x
				  context: {cluster: c, user: u}
				current-context: x
				""".formatted(server.serverUrl(), base64(stranger.certificatePem()), server.adminToken()));
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> listNamespaces(kubeconfig))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(KubernetesApiException.Kind.CONNECTION))
			.withMessageContaining("/api/v1/namespaces failed: SSLHandshakeException: PKIX path building failed");
	}

	private static List<String> listNamespaces(Path kubeconfig) {
		ApiServerClient client = client(kubeconfig);
		Resource namespaces = new Resource("", "v1", "namespaces", "Namespace", false, null);
		return client
			.listerWatcher(namespaces, KubernetesObject.class,
					ApiServerClient.Decoding.DEFAULTS.withMaxEventBytes(1 << 20))
			.list(ListOptions.none())
			.objects()
			.stream()
			.map(KubernetesObject::name)
			.toList();
	}

	private static Path kubeconfig(String name, String user) {
		try {
			Path file = dir.resolve(name + "-" + UUID.randomUUID() + ".yaml");
			Files.writeString(file, """
					apiVersion: v1
					kind: Config
					clusters:
					- name: local
					  cluster:
					    server: %s
					    certificate-authority-data: %s
					users:
					- name: %s
					  user:
					      %s
					contexts:
					- name: %s
					  context: {cluster: local, user: %s}
					current-context: %s
					""".formatted(server.serverUrl(), base64(server.caCertificatePem()), name, user, name, name, name));
			return file;
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	private static String base64(String pem) {
		return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII));
	}

	static ApiServerClient client(Path kubeconfig) {
		return ApiServerClient.create(Cluster.load(ConnectionOptions.builder()
			.kubeconfig(kubeconfig.toString())
			.environment(java.util.Map.of())
			.homeDirectory(dir)
			.serviceAccountDirectory(dir)
			.build()), RestClient.builder(), JsonMapper.shared(), Clock.systemUTC());
	}

}
