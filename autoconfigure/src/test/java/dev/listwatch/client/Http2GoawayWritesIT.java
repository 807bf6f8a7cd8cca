package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesObject;
import dev.listwatch.Resource;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.ConnectionOptions;
import dev.listwatch.testsupport.LocalApiServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writes on a kube-apiserver that sends GOAWAYs as an HA cluster's does
 * ({@code --goaway-chance=0.02}: one HTTP/2 request in 50 is answered, then its
 * connection told to go away). Creates with {@code generateName} run 4 at a time: each is
 * answered, or fails saying that its outcome is unknown (never a plain connection failure
 * a caller would retry into a duplicate); with the connection this Java version gets by
 * default, none fails. And the HTTP/2 ping's path is in API Priority and Fairness's
 * {@code exempt} priority level, {@code /version} (the ping before) is not.
 */
class Http2GoawayWritesIT {

	private static final int THREADS = 4;

	private static final int CREATES = 400;

	private static LocalApiServer server;

	@TempDir
	static Path dir;

	@BeforeAll
	static void start() {
		server = new LocalApiServer(LocalApiServer.Options.defaults().withFlags("--goaway-chance=0.02")).start();
	}

	@AfterAll
	static void stop() {
		if (server != null) {
			server.close();
		}
	}

	@Test
	void createsOnHttp2AreAnsweredOrReportedAsOfUnknownOutcome() throws Exception {
		Figures figures = creates("lw-goaway-h2", true);
		long applied = 0;
		for (KubernetesApiException failure : figures.failures) {
			assertThat(failure.getMessage()).as("a write that failed on a GOAWAY")
				.containsAnyOf("outcome is unknown", "was applied (201)");
			applied += failure.getMessage().contains("was applied (201)") ? 1 : 0;
		}
		// nothing is sent twice: the objects are those answered, those said to be
		// applied, and at most those of unknown outcome (and those never answered: the
		// JDK's HTTP/2 before Java 24 once left a create without an answer after a
		// GOAWAY, counted here rather than waited for)
		assertThat(figures.objects).isBetween((int) (figures.answered + applied),
				figures.answered + figures.failures.size() + figures.unanswered);
	}

	@Test
	void theDefaultConnectionOfThisJavaVersionFailsNoWriteOnGoaways() throws Exception {
		Figures figures = creates("lw-goaway-default", ApiServerClient.DEFAULT_HTTP2);
		assertThat(figures.failures).as("writes failed").isEmpty();
		assertThat(figures.unanswered).as("writes never answered").isZero();
		assertThat(figures.objects).isEqualTo(CREATES);
	}

	@Test
	void thePingIsExemptFromPriorityAndFairnessAndVersionIsNot() throws Exception {
		// a user outside system:masters (whose every request is exempt): the ping must
		// not queue behind the client's own traffic on a busy server
		java.security.KeyStore trust = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
		trust.load(null, null);
		trust.setCertificateEntry("ca", java.security.cert.CertificateFactory.getInstance("X.509")
			.generateCertificate(
					new java.io.ByteArrayInputStream(server.caCertificatePem().getBytes(StandardCharsets.US_ASCII))));
		javax.net.ssl.TrustManagerFactory trustManagers = javax.net.ssl.TrustManagerFactory
			.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
		trustManagers.init(trust);
		javax.net.ssl.SSLContext tls = javax.net.ssl.SSLContext.getInstance("TLS");
		tls.init(null, trustManagers.getTrustManagers(), null);
		java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
			.sslContext(tls)
			.version(java.net.http.HttpClient.Version.HTTP_1_1)
			.build();
		String exempt = server.kubectl("get", "prioritylevelconfiguration", "exempt", "-o", "jsonpath={.metadata.uid}");
		java.util.function.Function<String, String> level = (path) -> {
			try {
				return http
					.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(server.serverUrl() + path))
						.header("Authorization", "Bearer " + server.forbiddenToken())
						.build(), java.net.http.HttpResponse.BodyHandlers.discarding())
					.headers()
					.firstValue("X-Kubernetes-PF-PriorityLevel-UID")
					.orElse("(none)");
			}
			catch (java.io.IOException ex) {
				throw new java.io.UncheckedIOException(ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		};
		assertThat(exempt).isNotBlank();
		assertThat(level.apply(Http2Pool.PING_PATH)).as("the ping's priority level").isEqualTo(exempt);
		assertThat(level.apply("/version")).as("/version's priority level").isNotEqualTo(exempt);
	}

	private static Figures creates(String namespace, boolean http2) throws Exception {
		server.createNamespace(namespace);
		Resource configMaps = new Resource("", "v1", "configmaps", "ConfigMap", true, namespace);
		AtomicInteger answered = new AtomicInteger();
		int unanswered;
		List<KubernetesApiException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
		ExecutorService threads = Executors.newFixedThreadPool(THREADS);
		try (ApiServerClient client = ApiServerClient.create(Cluster.load(ConnectionOptions.builder()
			.kubeconfig(server.kubeconfig().toString())
			.environment(Map.of())
			.homeDirectory(dir)
			.serviceAccountDirectory(dir)
			.build()), RestClient.builder(), JsonMapper.shared(), Clock.systemUTC(), http2)) {
			ResourceWriter<KubernetesObject> writer = client.writer(configMaps, KubernetesObject.class);
			KubernetesObject object = new ObjectDecoder<>(KubernetesObject.class, JsonMapper.shared(), false)
				.decodeObject(("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"generateName\":\"gw-\"},"
						+ "\"data\":{\"a\":\"b\"}}")
					.getBytes(StandardCharsets.UTF_8));
			List<CompletableFuture<Void>> all = new ArrayList<>();
			for (int i = 0; i < CREATES; i++) {
				all.add(CompletableFuture.runAsync(() -> {
					try {
						writer.create(object);
						answered.incrementAndGet();
					}
					catch (KubernetesApiException ex) {
						failures.add(ex);
					}
				}, threads));
			}
			try {
				CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).get(2, TimeUnit.MINUTES);
			}
			catch (java.util.concurrent.TimeoutException ex) {
				Thread.getAllStackTraces().forEach((thread, stack) -> {
					if (thread.getName().startsWith("pool-")) {
						System.out.println("THREAD " + thread.getName() + " " + thread.getState());
						for (StackTraceElement element : stack) {
							System.out.println("    at " + element);
						}
					}
				});
			}
			unanswered = (int) all.stream().filter((create) -> !create.isDone()).count();
		}
		finally {
			threads.shutdownNow();
		}
		int objects = (int) server.kubectl("get", "configmaps", "-n", namespace, "-o", "name")
			.lines()
			.filter((line) -> line.startsWith("configmap/gw-"))
			.count();
		Figures figures = new Figures(answered.get(), failures, objects, unanswered);
		System.out.println("GOAWAY figures, Java " + Runtime.version() + ", http2=" + http2 + ": " + CREATES
				+ " creates, " + figures.answered + " answered, " + failures.size() + " failed, " + unanswered
				+ " never answered, " + objects + " objects on the server; failures: "
				+ failures.stream().map(Throwable::getMessage).distinct().limit(5).toList());
		return figures;
	}

	private record Figures(int answered, List<KubernetesApiException> failures, int objects, int unanswered) {
	}

}
