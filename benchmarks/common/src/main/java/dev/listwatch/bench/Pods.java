package dev.listwatch.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Realistic Pods (a Deployment's pod with two containers, full status and the
 * {@code metadata.managedFields} of kube-controller-manager and the kubelet), generated from one
 * template ({@code pod.json}, minified like the API server's output): pod {@code i} has the name
 * {@code web-7c9f8d6b5d-<i>}, namespace {@code ns-<i mod 20>}, a uid derived from {@code i} and the
 * resourceVersion it is given.
 * <p>
 * Resource versions are 10 digits: the pods are first at {@code BASE + i}; the k-th watch event
 * (from 0) changes pod {@code k mod pods} to {@code BASE + pods + 1 + k}.
 */
public final class Pods {

	/** The first resourceVersion. */
	public static final long BASE = 1_000_000_000L;

	/** Namespaces the pods are spread over. */
	public static final int NAMESPACES = 20;

	private static final String[] KEYS = { "@NAME@", "@NAMESPACE@", "@UID@", "@RV@", "@SHARD@", "@NODE@", "@IP@" };

	private final Template pod;

	/** The same pod as the API server's PartialObjectMetadata of it (a metadata-only list item). */
	private final Template metadata;

	public Pods() {
		String json = minify(read("pod.json"));
		this.pod = new Template(json);
		this.metadata = new Template("{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
				+ "\"metadata\":" + member(json, "\"metadata\":") + "}");
	}

	/** Writes pod {@code i} at resourceVersion {@code rv}. */
	public void write(Bytes out, int i, long rv) {
		this.pod.write(out, i, rv);
	}

	/**
	 * Writes pod {@code i} at resourceVersion {@code rv} as a PartialObjectMetadata: kind,
	 * apiVersion and the pod's whole metadata (managedFields included), as kube-apiserver answers
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

		Template(String json) {
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
					case 1 -> out.ascii(namespace(i));
					case 2 -> out.ascii(String.format("00000000-0000-4000-8000-%012d", i));
					case 3 -> out.decimal(rv);
					case 4 -> out.decimal(i % 50);
					case 5 -> out.decimal(i % 200);
					default -> out.decimal(i % 250);
				}
			}
			out.write(this.literals[this.literals.length - 1]);
		}

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
