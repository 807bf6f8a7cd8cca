package dev.listwatch.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Realistic Pods (a Deployment's pod with two containers, full status and the
 * {@code metadata.managedFields} of kube-controller-manager and the kubelet), generated
 * from one template ({@code pod.json}, minified like the API server's output): pod
 * {@code i} has the name {@code web-7c9f8d6b5d-<i>}, namespace {@code ns-<i mod 20>} (or
 * mod the count of namespaces given, {@link #Pods(boolean, int)}), a uid derived from
 * {@code i} and the resourceVersion it is given.
 * <p>
 * {@linkplain #Pods(boolean) Varied} Pods (the {@code bigcache} benchmark's
 * {@code variedPods}) also differ in what differs between real Pods: a random-looking
 * uid, container IDs and the projected token volume's suffix per Pod, timestamps per Pod
 * (one creation minute each), and per Deployment shard ({@code i mod 50}) the image tags,
 * image digests and owner's uid. The template's Pods differ only in name, namespace,
 * node, IPs and resourceVersion, which a compressor with a dictionary learned from them
 * shrinks unrealistically well.
 * <p>
 * Resource versions are 10 digits: the pods are first at {@code BASE + i}; the k-th watch
 * event (from 0) changes pod {@code k mod pods} to {@code BASE + pods + 1 + k}.
 */
public final class Pods {

	/** The first resourceVersion. */
	public static final long BASE = 1_000_000_000L;

	/** Namespaces the pods are spread over. */
	public static final int NAMESPACES = 20;

	private static final String[] KEYS = { "@NAME@", "@NAMESPACE@", "@UID@", "@RV@", "@SHARD@", "@NODE@", "@IP@",
			"@TS@", "@CID1@", "@CID2@", "@OWNER@", "@TOK@", "@DIGEST1@", "@DIGEST2@" };

	/**
	 * What varied Pods vary beyond the template's holes: literal of the template, key.
	 */
	private static final String[][] VARIED = { { "2025-11-20T09:14:", "@TS@" },
			{ "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b", "@CID1@" },
			{ "1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c", "@CID2@" },
			{ "5f0c2d1e-8a47-4b6e-9d3a-2c1b0e9f8a71", "@OWNER@" }, { "x7k2p", "@TOK@" },
			{ "3f1d0c2b9e8a7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170f6e5d", "@DIGEST1@" },
			{ "0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7", "@DIGEST2@" },
			{ "app:1.42.7", "app:1.@SHARD@.7" }, { "proxy:1.24.3", "proxy:1.24.@SHARD@" } };

	private final Template pod;

	/** How many namespaces the Pods are spread over. */
	private final int namespaces;

	/**
	 * The same pod as the API server's PartialObjectMetadata of it (a metadata-only list
	 * item).
	 */
	private final Template metadata;

	public Pods() {
		this(false);
	}

	/**
	 * Pods from the template, varied as real Pods vary or not (see the class
	 * description).
	 * @param varied whether uids, container IDs, timestamps and images vary too
	 */
	public Pods(boolean varied) {
		this(varied, NAMESPACES);
	}

	/**
	 * Pods from the template spread over a number of namespaces: pod {@code i} in
	 * {@code ns-<i mod namespaces>}.
	 * @param varied whether uids, container IDs, timestamps and images vary too
	 * @param namespaces how many namespaces
	 */
	public Pods(boolean varied, int namespaces) {
		if (namespaces < 1) {
			throw new IllegalArgumentException("namespaces must be at least 1");
		}
		this.namespaces = namespaces;
		String json = minify(read("pod.json"));
		if (varied) {
			for (String[] literal : VARIED) {
				json = json.replace(literal[0], literal[1]);
			}
		}
		this.pod = new Template(json, namespaces);
		this.metadata = new Template("{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
				+ "\"metadata\":" + member(json, "\"metadata\":") + "}", namespaces);
	}

	/** Writes pod {@code i} at resourceVersion {@code rv}. */
	public void write(Bytes out, int i, long rv) {
		this.pod.write(out, i, rv);
	}

	/**
	 * Writes pod {@code i} at resourceVersion {@code rv} as a PartialObjectMetadata:
	 * kind, apiVersion and the pod's whole metadata (managedFields included), as
	 * kube-apiserver answers
	 * {@code Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1}.
	 */
	public void writeMetadata(Bytes out, int i, long rv) {
		this.metadata.write(out, i, rv);
	}

	public byte[] metadata(int i, long rv) {
		Bytes out = new Bytes(8192);
		writeMetadata(out, i, rv);
		return out.toByteArray();
	}

	/** A JSON text with placeholders, split into literals and holes once. */
	private static final class Template {

		private final byte[][] literals;

		private final int[] holes;

		/** Whether the uid is random-looking (varied Pods). */
		private final boolean varied;

		private final int namespaces;

		Template(String json, int namespaces) {
			this.varied = json.contains("@OWNER@");
			this.namespaces = namespaces;
			List<byte[]> literals = new ArrayList<>();
			List<Integer> holes = new ArrayList<>();
			int at = 0;
			while (true) {
				int next = -1;
				int key = -1;
				for (int k = 0; k < KEYS.length; k++) {
					int i = json.indexOf(KEYS[k], at);
					if (i >= 0 && (next < 0 || i < next)) {
						next = i;
						key = k;
					}
				}
				if (next < 0) {
					literals.add(json.substring(at).getBytes(StandardCharsets.UTF_8));
					break;
				}
				literals.add(json.substring(at, next).getBytes(StandardCharsets.UTF_8));
				holes.add(key);
				at = next + KEYS[key].length();
			}
			this.literals = literals.toArray(new byte[0][]);
			this.holes = holes.stream().mapToInt(Integer::intValue).toArray();
		}

		void write(Bytes out, int i, long rv) {
			for (int h = 0; h < this.holes.length; h++) {
				out.write(this.literals[h]);
				switch (this.holes[h]) {
					case 0 -> out.ascii(name(i));
					case 1 -> out.ascii("ns-" + (i % this.namespaces));
					case 2 -> out.ascii(this.varied ? uuid(i) : String.format("00000000-0000-4000-8000-%012d", i));
					case 3 -> out.decimal(rv);
					case 4 -> out.decimal(i % 50);
					case 5 -> out.decimal(i % 200);
					case 6 -> out.decimal(i % 250);
					// varied Pods only
					case 7 -> out.ascii(timestamp(i));
					case 8 -> out.ascii(hex(i, 1, 64));
					case 9 -> out.ascii(hex(i, 2, 64));
					case 10 -> out.ascii(uuid(-1 - (i % 50)));
					case 11 -> out.ascii(hex(i, 3, 5));
					case 12 -> out.ascii(hex(-1 - (i % 50), 4, 64));
					default -> out.ascii(hex(-1 - (i % 50), 5, 64));
				}
			}
			out.write(this.literals[this.literals.length - 1]);
		}

	}

	/** A 64-bit mix of {@code i} and a salt (SplitMix64's finalizer). */
	static long mix(long i, long salt) {
		long z = i * 0x9E3779B97F4A7C15L + salt * 0xBF58476D1CE4E5B9L;
		z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
		z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
		return z ^ (z >>> 31);
	}

	/**
	 * {@code digits} lowercase hex digits that look random, from {@code i} and a salt.
	 */
	static String hex(long i, int salt, int digits) {
		StringBuilder out = new StringBuilder(digits);
		for (int k = 0; out.length() < digits; k++) {
			String part = Long.toHexString(mix(i, salt * 1000L + k));
			out.append("0".repeat(16 - part.length())).append(part);
		}
		return out.substring(0, digits);
	}

	static String uuid(long i) {
		String h = hex(i, 6, 32);
		return h.substring(0, 8) + "-" + h.substring(8, 12) + "-4" + h.substring(13, 16) + "-a" + h.substring(17, 20)
				+ "-" + h.substring(20, 32);
	}

	/** A creation minute per Pod within about a month: {@code 2025-11-DDTHH:MM:}. */
	static String timestamp(int i) {
		long m = Math.floorMod(mix(i, 7), 30L * 24 * 60);
		return String.format("2025-11-%02dT%02d:%02d:", 1 + m / (24 * 60), (m / 60) % 24, m % 60);
	}

	public byte[] pod(int i, long rv) {
		Bytes out = new Bytes(8192);
		write(out, i, rv);
		return out.toByteArray();
	}

	/** A watch event line: {@code {"type":"MODIFIED","object":<pod>}\n}. */
	public void writeEvent(Bytes out, String type, int i, long rv) {
		out.ascii("{\"type\":\"");
		out.ascii(type);
		out.ascii("\",\"object\":");
		write(out, i, rv);
		out.ascii("}\n");
	}

	/** The resourceVersion of the k-th watch event. */
	public static long eventRv(int pods, long k) {
		return BASE + pods + 1 + k;
	}

	/** The resourceVersion of pod {@code j} after {@code m} watch events. */
	public static long podRv(int pods, int j, long m) {
		if (m <= j) {
			return BASE + j;
		}
		long k = j + (long) pods * ((m - 1 - j) / pods);
		return eventRv(pods, k);
	}

	/** The resourceVersion of a list taken after {@code m} watch events. */
	public static long listRv(int pods, long m) {
		return BASE + pods + m;
	}

	public static String name(int i) {
		return "web-7c9f8d6b5d-" + i;
	}

	public static String namespace(int i) {
		return "ns-" + (i % NAMESPACES);
	}

	/** How many namespaces these Pods are spread over. */
	public int namespaces() {
		return this.namespaces;
	}

	/** The size of a pod's JSON as the server sends it, and without managedFields. */
	public int[] sizes() {
		String json = new String(pod(12345, BASE + 12345), StandardCharsets.UTF_8);
		int start = json.indexOf("\"managedFields\":");
		int end = json.indexOf("]", json.indexOf("\"subresource\":\"status\"")) + 1;
		return new int[] { json.getBytes(StandardCharsets.UTF_8).length,
				json.getBytes(StandardCharsets.UTF_8).length - (end - start + 1) };
	}

	/** The object value of the member that starts with {@code name} in minified JSON. */
	static String member(String json, String name) {
		int start = json.indexOf(name) + name.length();
		int depth = 0;
		boolean inString = false;
		boolean escaped = false;
		for (int i = start; i < json.length(); i++) {
			char c = json.charAt(i);
			if (inString) {
				if (escaped) {
					escaped = false;
				}
				else if (c == '\\') {
					escaped = true;
				}
				else if (c == '"') {
					inString = false;
				}
			}
			else if (c == '"') {
				inString = true;
			}
			else if (c == '{') {
				depth++;
			}
			else if (c == '}' && --depth == 0) {
				return json.substring(start, i + 1);
			}
		}
		throw new IllegalArgumentException("no object " + name);
	}

	/**
	 * The size of a pod's PartialObjectMetadata as the server sends it, and without
	 * managedFields.
	 */
	public int[] metadataSizes() {
		String json = new String(metadata(12345, BASE + 12345), StandardCharsets.UTF_8);
		int start = json.indexOf("\"managedFields\":");
		int end = json.indexOf("]", json.indexOf("\"subresource\":\"status\"")) + 1;
		return new int[] { json.getBytes(StandardCharsets.UTF_8).length,
				json.getBytes(StandardCharsets.UTF_8).length - (end - start + 1) };
	}

	/** Removes whitespace outside strings. */
	static String minify(String json) {
		StringBuilder out = new StringBuilder(json.length());
		boolean inString = false;
		boolean escaped = false;
		for (int i = 0; i < json.length(); i++) {
			char c = json.charAt(i);
			if (inString) {
				out.append(c);
				if (escaped) {
					escaped = false;
				}
				else if (c == '\\') {
					escaped = true;
				}
				else if (c == '"') {
					inString = false;
				}
			}
			else if (c == '"') {
				inString = true;
				out.append(c);
			}
			else if (!Character.isWhitespace(c)) {
				out.append(c);
			}
		}
		return out.toString();
	}

	private static String read(String resource) {
		try (InputStream in = Pods.class.getResourceAsStream(resource)) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
