package dev.listwatch;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ObjectCompressor} and compressed {@link KubernetesObject}s: the dictionary is
 * learned from the first objects (held as they are meanwhile), later objects are
 * compressed, and a compressed object keeps the API and semantics of one held as it is.
 */
class ObjectCompressorTests {

	/** A Pod of about 1.3 KB whose name, uid and IP vary with {@code i}. */
	static String pod(int i) {
		return "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"web-" + i
				+ "\",\"namespace\":\"shop\",\"uid\":\"00000000-0000-4000-8000-" + String.format("%012d", i)
				+ "\",\"resourceVersion\":\"" + (1000 + i) + "\",\"labels\":{\"app\":\"web\",\"tier\":\"front\"}},"
				+ "\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"registry.example.com/web/app:1.42.7\","
				+ "\"ports\":[{\"name\":\"http\",\"containerPort\":8080,\"protocol\":\"TCP\"}],\"resources\":{\"limits\":"
				+ "{\"memory\":\"512Mi\"},\"requests\":{\"cpu\":\"250m\",\"memory\":\"256Mi\"}},\"livenessProbe\":{"
				+ "\"httpGet\":{\"path\":\"/actuator/health/liveness\",\"port\":8080,\"scheme\":\"HTTP\"},"
				+ "\"timeoutSeconds\":1,\"periodSeconds\":10},\"terminationMessagePath\":\"/dev/termination-log\","
				+ "\"imagePullPolicy\":\"IfNotPresent\"}],\"restartPolicy\":\"Always\",\"dnsPolicy\":\"ClusterFirst\","
				+ "\"serviceAccountName\":\"web\",\"nodeName\":\"worker-" + (i % 7) + "\",\"tolerations\":[{\"key\":"
				+ "\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
				+ "\"tolerationSeconds\":300}]},\"status\":{\"phase\":\"Running\",\"podIP\":\"10.244.3." + (i % 250)
				+ "\",\"startTime\":\"2025-11-20T09:14:07Z\",\"qosClass\":\"Burstable\",\"note\":\"\u00e9t\u00e9 \u2713\"}}";
	}

	static KubernetesObject make(ObjectCompressor compressor, String json) {
		Map<String, Object> metadata = JsonMapper.shared().readValue(json, Map.class);
		@SuppressWarnings("unchecked")
		Map<String, Object> meta = (Map<String, Object>) metadata.get("metadata");
		ObjectMeta objectMeta = new ObjectMeta((String) meta.get("namespace"), (String) meta.get("name"),
				(String) meta.get("uid"), String.valueOf(meta.get("resourceVersion")), Map.of());
		return compressor.object(objectMeta, "v1", "Pod", json.getBytes(StandardCharsets.UTF_8));
	}

	static KubernetesObject plain(String json) {
		return KubernetesObject.of(new ObjectMeta("shop", "x", null, "1", Map.of()), "v1", "Pod",
				json.getBytes(StandardCharsets.UTF_8));
	}

	/** Feeds objects until the dictionary is learned; returns how many it took. */
	static int learn(ObjectCompressor compressor) {
		int i = 0;
		while (true) {
			KubernetesObject object = make(compressor, pod(i++));
			if (compressor.dictionarySize() > 0) {
				// the object that completes the samples is the first one compressed
				assertThat(object.isCompressed()).isTrue();
				return i;
			}
			assertThat(object.isCompressed()).as("object %d, before the dictionary", i - 1).isFalse();
		}
	}

	@Test
	void firstObjectsAreHeldAsTheyAreUntilTheDictionaryIsLearnedFromThem() {
		ObjectCompressor compressor = ObjectCompressor.learning();
		int length = pod(0).getBytes(StandardCharsets.UTF_8).length;
		int samples = learn(compressor);
		// about 1.3 KB each: the sample count bounds it before the 32 KB do
		assertThat(length * ObjectCompressor.SAMPLES).isLessThan(JsonDictionary.MAX_SIZE);
		assertThat(samples).isEqualTo(ObjectCompressor.SAMPLES);
		// Pods of one shape: the latest one, the others adding little to it
		assertThat(compressor.dictionarySize()).isBetween(length - 8, length + 8);
		KubernetesObject next = make(compressor, pod(1000));
		assertThat(next.isCompressed()).isTrue();
		assertThat(next.heldSize()).isLessThan(length / 5);
	}

	@Test
	void theDictionaryIsBoundedTo32KiBOfTheLatestSamples() {
		ObjectCompressor compressor = ObjectCompressor.learning();
		assertThat(compressor
			.object(new ObjectMeta(null, "a", null, "1", Map.of()), "v1", "ConfigMap",
					noise(1, 20_000).getBytes(StandardCharsets.UTF_8))
			.isCompressed()).isFalse();
		assertThat(compressor.dictionarySize()).isZero();
		compressor.object(new ObjectMeta(null, "b", null, "2", Map.of()), "v1", "ConfigMap",
				noise(2, 20_000).getBytes(StandardCharsets.UTF_8));
		assertThat(compressor.dictionarySize()).isEqualTo(JsonDictionary.MAX_SIZE);
	}

	@Test
	void objectsOfSeveralShapesEachGiveTheDictionaryOneSample() {
		ObjectCompressor compressor = ObjectCompressor.learning();
		String configMap = "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},\"data\":{\"lines\":\""
				+ "the quick brown fox jumps over the lazy dog; ".repeat(30) + "\"}}";
		int pod = pod(0).length();
		for (int i = 0; i < ObjectCompressor.SAMPLES; i++) {
			make(compressor, (i % 2 == 0) ? pod(i) : configMap.replace("\"c\"", "\"c" + i + "\""));
		}
		// the latest ConfigMap and the latest Pod, nothing of the others
		assertThat(compressor.dictionarySize()).isBetween(pod + configMap.length(), pod + configMap.length() + 16);
		assertThat(make(compressor, configMap).heldSize()).isLessThan(configMap.length() / 10);
		assertThat(make(compressor, pod(99)).heldSize()).isLessThan(pod / 5);
	}

	/**
	 * A JSON object with {@code length} random letters and digits, which hardly compress.
	 */
	static String noise(int seed, int length) {
		String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		Random random = new Random(seed);
		StringBuilder noise = new StringBuilder();
		for (int i = 0; i < length; i++) {
			noise.append(alphabet.charAt(random.nextInt(alphabet.length())));
		}
		return "{\"metadata\":{\"name\":\"n\"},\"data\":\"" + noise + "\"}";
	}

	@Test
	void aCompressedObjectRoundTripsItsJsonAndKeepsItsApi() {
		ObjectCompressor compressor = ObjectCompressor.learning();
		learn(compressor);
		String json = pod(4242);
		KubernetesObject object = make(compressor, json);
		assertThat(object.isCompressed()).isTrue();
		byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
		assertThat(object.json()).isEqualTo(json);
		assertThat(object.toByteArray()).isEqualTo(bytes);
		assertThat(object.toByteArray()).isNotSameAs(object.toByteArray());
		assertThat(object.jsonSize()).isEqualTo(bytes.length);
		assertThat(object.toTree()).isEqualTo(JsonMapper.shared().readTree(json));
		assertThat(object.at("/status/podIP").asString()).isEqualTo("10.244.3." + (4242 % 250));
		assertThat(object.as(Map.class)).isEqualTo(JsonMapper.shared().readValue(json, Map.class));
		assertThat(JsonMapper.shared().writeValueAsString(object)).isEqualTo(json);
		assertThat(object.name()).isEqualTo("web-4242");
		assertThat(object.toString()).isEqualTo("Pod shop/web-4242 (resourceVersion 5242)");
	}

	@Test
	void compressedAndPlainObjectsWithTheSameJsonAreEqual() {
		ObjectCompressor compressor = ObjectCompressor.learning();
		learn(compressor);
		ObjectCompressor other = ObjectCompressor.learning();
		other.object(new ObjectMeta(null, "a", null, "1", Map.of()), null, null,
				"{\"something\":\"else entirely, another shape\"}".getBytes(StandardCharsets.UTF_8));
		for (int i = 0; i < ObjectCompressor.SAMPLES; i++) {
			make(other, "{\"metadata\":{\"name\":\"p" + i + "\"},\"padding\":\"" + "p".repeat(3000) + "\"}");
		}
		KubernetesObject compressed = make(compressor, pod(7));
		KubernetesObject again = make(compressor, pod(7));
		KubernetesObject otherDictionary = make(other, pod(7));
		KubernetesObject plain = plain(pod(7));
		assertThat(compressed.isCompressed()).isTrue();
		assertThat(otherDictionary.isCompressed()).isTrue();
		assertThat(compressed).isEqualTo(again).isEqualTo(plain).isEqualTo(otherDictionary);
		assertThat(plain).isEqualTo(compressed);
		assertThat(otherDictionary).isEqualTo(compressed);
		assertThat(compressed.hashCode()).isEqualTo(plain.hashCode()).isEqualTo(otherDictionary.hashCode());
		assertThat(compressed).isNotEqualTo(make(compressor, pod(8))).isNotEqualTo(plain(pod(8)));
		assertThat(plain(pod(8))).isNotEqualTo(compressed);
	}

	@Test
	void objectsUnlikeTheDictionaryStillRoundTrip() {
		ObjectCompressor compressor = ObjectCompressor.learning();
		learn(compressor);
		// another shape altogether: compressed, less well
		String configMap = "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c\"},\"data\":{"
				+ "\"lines\":\"" + "the quick brown fox jumps over the lazy dog; ".repeat(40) + "\"}}";
		KubernetesObject different = make(compressor, configMap);
		assertThat(different.isCompressed()).isTrue();
		assertThat(different.json()).isEqualTo(configMap);
		// random text hardly compresses: held as it is or a little smaller, never larger
		String noisy = noise(17, 4000);
		KubernetesObject incompressible = make(compressor, noisy);
		assertThat(incompressible.json()).isEqualTo(noisy);
		assertThat(incompressible.heldSize()).isLessThanOrEqualTo(noisy.length());
		// tiny and empty objects too
		assertThat(make(compressor, "{\"metadata\":{\"name\":\"t\"}}").json())
			.isEqualTo("{\"metadata\":{\"name\":\"t\"}}");
		assertThat(compressor.object(new ObjectMeta(null, "e", null, "1", Map.of()), null, null, new byte[0]).json())
			.isEmpty();
	}

	@Test
	void concurrentReadsOfCompressedObjectsAllSeeTheirJson() throws Exception {
		ObjectCompressor compressor = ObjectCompressor.learning();
		learn(compressor);
		List<KubernetesObject> objects = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			objects.add(make(compressor, pod(100 + i)));
		}
		int threads = 8;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Integer>> results = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int offset = t;
				results.add(executor.submit(() -> {
					start.await();
					int checked = 0;
					for (int round = 0; round < 40; round++) {
						for (int i = 0; i < objects.size(); i++) {
							int at = (i + offset * 7) % objects.size();
							if (!objects.get(at).json().equals(pod(100 + at))) {
								throw new AssertionError("object " + at + " read wrong");
							}
							checked++;
						}
						// writers compress while readers inflate
						make(compressor, pod(10_000 + offset * 100 + round)).json();
					}
					return checked;
				}));
			}
			start.countDown();
			for (Future<Integer> result : results) {
				assertThat(result.get(60, TimeUnit.SECONDS)).isEqualTo(40 * 50);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

}
