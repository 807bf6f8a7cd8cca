package dev.listwatch.testsupport;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Writes to a {@link LocalApiServer} as its admin, over HTTP/2, so that tests can create,
 * change and delete many objects quickly (kubectl starts a process per call).
 * Thread-safe.
 */
public final class ApiWriter {

	private final String server;

	private final String token;

	private final HttpClient http;

	ApiWriter(String server, String caPem, String token) {
		this.server = server;
		this.token = token;
		this.http = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_2)
			.sslContext(trusting(caPem))
			.connectTimeout(Duration.ofSeconds(10))
			.build();
	}

	/**
	 * Creates an object.
	 * @param collectionPath for example {@code /api/v1/namespaces/default/configmaps}
	 * @param json the object
	 * @return the created object as the server returned it
	 */
	public String create(String collectionPath, String json) {
		return send(request(collectionPath).header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json)));
	}

	/**
	 * Changes an object with a JSON merge patch.
	 * @param objectPath for example {@code /api/v1/namespaces/default/configmaps/x}
	 * @param mergePatch the patch
	 * @return the changed object
	 */
	public String patch(String objectPath, String mergePatch) {
		return send(request(objectPath).header("Content-Type", "application/merge-patch+json")
			.method("PATCH", HttpRequest.BodyPublishers.ofString(mergePatch)));
	}

	/**
	 * Deletes an object.
	 * @param objectPath the object's path
	 * @return the server's answer
	 */
	public String delete(String objectPath) {
		return send(request(objectPath).DELETE());
	}

	/**
	 * Reads a path.
	 * @param path the path and query
	 * @return the body
	 */
	public String get(String path) {
		return send(request(path).GET());
	}

	/**
	 * Creates many objects, several requests at a time, and waits for all.
	 * @param collectionPath where
	 * @param objects the objects' JSON
	 * @param parallelism how many requests at once
	 */
	public void createAll(String collectionPath, List<String> objects, int parallelism) {
		Semaphore permits = new Semaphore(parallelism);
		List<CompletableFuture<?>> sent = new ArrayList<>();
		for (String json : objects) {
			permits.acquireUninterruptibly();
			HttpRequest request = request(collectionPath).header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString(json))
				.build();
			sent.add(this.http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply((response) -> {
				permits.release();
				if (response.statusCode() >= 300) {
					throw new IllegalStateException(
							"POST " + collectionPath + " answered " + response.statusCode() + ": " + response.body());
				}
				return response;
			}).whenComplete((r, ex) -> {
				if (ex != null) {
					permits.release();
				}
			}));
		}
		CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
	}

	/**
	 * A ConfigMap's JSON.
	 * @param namespace its namespace
	 * @param name its name
	 * @param key a data key
	 * @param value its value
	 * @return the JSON
	 */
	public static String configMap(String namespace, String name, String key, String value) {
		return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\""
				+ namespace + "\",\"labels\":{\"app\":\"listwatch-test\"}},\"data\":{\"" + key + "\":\"" + value
				+ "\"}}";
	}

	private HttpRequest.Builder request(String path) {
		return HttpRequest.newBuilder(URI.create(this.server + path))
			.timeout(Duration.ofSeconds(30))
			.header("Authorization", "Bearer " + this.token)
			.header("Accept", "application/json");
	}

	private String send(HttpRequest.Builder request) {
		HttpRequest built = request.build();
		try {
			HttpResponse<String> response = this.http.send(built, HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() >= 300) {
				throw new IllegalStateException(built.method() + " " + built.uri().getPath() + " answered "
						+ response.statusCode() + ": " + response.body());
			}
			return response.body();
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static SSLContext trusting(String caPem) {
		try {
			KeyStore trust = KeyStore.getInstance("PKCS12");
			trust.load(null, null);
			trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509")
				.generateCertificate(new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII))));
			TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
			factory.init(trust);
			SSLContext context = SSLContext.getInstance("TLS");
			context.init(null, factory.getTrustManagers(), null);
			return context;
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot trust the local API server's CA", ex);
		}
	}

}
