package dev.listwatch.sample;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

import dev.listwatch.client.ApiServerClient;
import dev.listwatch.client.ResourceWriter;
import dev.listwatch.client.ResourceWriter.Patch;
import dev.listwatch.controller.Reconciler;
import dev.listwatch.controller.Request;
import dev.listwatch.controller.Result;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * The reconciler of the controller {@code web-status} ({@code application.yml}): it marks
 * each ConfigMap labelled {@code app=web} with a digest of its data, in the annotation
 * {@value #ANNOTATION}, so that {@code kubectl get configmap -o yaml} shows which data
 * this application has seen.
 * <p>
 * It converges: its own write changes the ConfigMap, which brings the key back here, and
 * then the annotation already matches, so nothing is written. (A resourceVersion would
 * not do as the value: each write makes a new one.)
 */
@Component
class WebStatusReconciler implements Reconciler<WebConfig> {

	static final String ANNOTATION = "listwatch.dev/reconciled";

	private static final Logger logger = LoggerFactory.getLogger(WebStatusReconciler.class);

	private final ResourceWriter<WebConfig> configMaps;

	WebStatusReconciler(ApiServerClient client) {
		// writes as field manager spring.application.name: managedFields name this
		// application as the owner of the annotation
		this.configMaps = client.writer(new ApiServerClient.Target("v1", "ConfigMap", null, null), WebConfig.class);
	}

	@Override
	public Result reconcile(Request<WebConfig> request) throws Exception {
		if (request.object().isEmpty()) {
			return Result.done(); // deleted: there is nothing to clean up
		}
		WebConfig config = request.object().get();
		String digest = digest(config.data());
		if (digest.equals(config.metadata().annotations().get(ANNOTATION))) {
			return Result.done(); // already marked: nothing to write
		}
		// a JSON merge patch of the annotation alone; with the resourceVersion,
		// the server answers 409 Conflict if the ConfigMap changed since it was
		// cached, and the controller quietly reconciles it again, as it is now
		String patch = """
				{"metadata":{"resourceVersion":"%s","annotations":{"%s":"%s"}}}
				""".formatted(config.metadata().resourceVersion(), ANNOTATION, digest);
		this.configMaps.patch(config.metadata().namespace(), config.metadata().name(), Patch.merge(patch));
		logger.info("marked {} with {} {}", request.key(), ANNOTATION, digest);
		return Result.done();
	}

	/**
	 * A digest of a ConfigMap's data: the same data gives the same value on every
	 * replica.
	 * @param data the data
	 * @return the first 16 hex digits of the SHA-256 of the entries, sorted by key
	 * @throws NoSuchAlgorithmException never: every JVM has SHA-256
	 */
	static String digest(Map<String, String> data) throws NoSuchAlgorithmException {
		MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
		new TreeMap<>(data)
			.forEach((key, value) -> sha256.update((key + "=" + value + "\0").getBytes(StandardCharsets.UTF_8)));
		return HexFormat.of().formatHex(sha256.digest(), 0, 8);
	}

}
