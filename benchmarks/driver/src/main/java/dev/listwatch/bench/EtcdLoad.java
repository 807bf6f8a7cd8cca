package dev.listwatch.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes the benchmark's Pods into etcd through etcd's own write path (one
 * {@code /v3/kv/put} per Pod, so one revision each, as the API server writes one object
 * per revision), from {@code writers} threads at once, so that etcd batches their fsyncs.
 * Pod {@code i} is the key {@code /pods/<namespace>/<name>} with the same JSON the fake
 * API server serves.
 */
final class EtcdLoad implements AutoCloseable {

	private static final Pattern REVISION = Pattern.compile("\"revision\":\"?(\\d+)");

	private final URI put;

	private final Pods pods = new Pods();

	private final HttpClient http;

	private final ExecutorService writers;

	private final int writerCount;

	EtcdLoad(String endpoint, int writers) {
		this.put = URI.create(endpoint + "/v3/kv/put");
		this.writerCount = writers;
		this.writers = Executors.newFixedThreadPool(writers);
		this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
	}

	static String key(int i) {
		return "/pods/" + Pods.namespace(i) + "/" + Pods.name(i);
	}

	/**
	 * Writes every Pod once (pod {@code i}'s JSON carries resourceVersion
	 * {@code BASE + pass * count + i}, so that every pass changes every value).
	 * @return the highest revision written
	 */
	long pass(int count, int pass) throws Exception {
		List<Future<Long>> parts = new ArrayList<>();
		for (int w = 0; w < this.writerCount; w++) {
			int first = w;
			parts.add(this.writers.submit(() -> {
				long max = 0;
				for (int i = first; i < count; i += this.writerCount) {
					max = Math.max(max, put(key(i), this.pods.pod(i, Pods.BASE + (long) pass * count + i)));
				}
				return max;
			}));
		}
		long max = 0;
		for (Future<Long> part : parts) {
			max = Math.max(max, part.get());
		}
		return max;
	}

	/** Writes one key; returns its revision. */
	long put(String key, byte[] value) throws IOException, InterruptedException {
		String body = "{\"key\":\"" + Base64.getEncoder().encodeToString(key.getBytes(StandardCharsets.UTF_8))
				+ "\",\"value\":\"" + Base64.getEncoder().encodeToString(value) + "\"}";
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(this.put)
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.timeout(Duration.ofSeconds(60))
			.build(), HttpResponse.BodyHandlers.ofString());
		Matcher matcher = REVISION.matcher(response.body());
		if (response.statusCode() != 200 || !matcher.find()) {
			throw new IllegalStateException("etcd put answered " + response.statusCode() + ": " + response.body());
		}
		return Long.parseLong(matcher.group(1));
	}

	/**
	 * The gateway alone: one watch of {@code /pods/} from {@code startRevision}, its
	 * bytes read and dropped (no JSON decoding) until the stop key's event has arrived.
	 * @return seconds from the request until then, and the bytes read
	 */
	double[] drain(long startRevision, String stopKey) throws IOException, InterruptedException {
		Base64.Encoder b64 = Base64.getEncoder();
		String body = "{\"create_request\":{\"key\":\"" + b64.encodeToString("/pods/".getBytes(StandardCharsets.UTF_8))
				+ "\",\"range_end\":\"" + b64.encodeToString("/pods0".getBytes(StandardCharsets.UTF_8))
				+ "\",\"start_revision\":" + startRevision + "}}";
		byte[] needle = b64.encodeToString(stopKey.getBytes(StandardCharsets.UTF_8))
			.getBytes(StandardCharsets.US_ASCII);
		long t0 = System.nanoTime();
		HttpResponse<InputStream> response = this.http.send(HttpRequest.newBuilder(this.put.resolve("/v3/watch"))
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofInputStream());
		try (InputStream in = response.body()) {
			byte[] buffer = new byte[1 << 16];
			int kept = 0;
			long total = 0;
			while (true) {
				int n = in.read(buffer, kept, buffer.length - kept);
				if (n < 0) {
					throw new IllegalStateException("the watch ended before the stop key");
				}
				total += n;
				int end = kept + n;
				if (indexOf(buffer, end, needle) >= 0) {
					return new double[] { (System.nanoTime() - t0) / 1e9, total };
				}
				// keep the tail, in case the key is split between two reads
				kept = Math.min(end, needle.length - 1);
				System.arraycopy(buffer, end - kept, buffer, 0, kept);
			}
		}
	}

	private static int indexOf(byte[] haystack, int length, byte[] needle) {
		outer: for (int i = 0; i <= length - needle.length; i++) {
			for (int j = 0; j < needle.length; j++) {
				if (haystack[i + j] != needle[j]) {
					continue outer;
				}
			}
			return i;
		}
		return -1;
	}

	/**
	 * CPU time of the etcd processes this JVM started, in ms (from
	 * {@code /proc/<pid>/stat}).
	 */
	static long etcdCpuMs() {
		long ticks = 0;
		for (ProcessHandle child : ProcessHandle.current().children().toList()) {
			if (child.info().command().map((c) -> c.endsWith("/etcd")).orElse(false)) {
				try {
					String stat = Files.readString(Path.of("/proc/" + child.pid() + "/stat"));
					String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
					// fields from the 3rd of stat: utime is the 14th, stime the 15th
					ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
				}
				catch (IOException | RuntimeException ex) {
					return -1;
				}
			}
		}
		return ticks * 10; // USER_HZ = 100
	}

	@Override
	public void close() {
		this.writers.shutdownNow();
	}

}
