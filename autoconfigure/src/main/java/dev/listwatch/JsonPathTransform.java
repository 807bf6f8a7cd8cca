package dev.listwatch;

import java.util.ArrayList;
import java.util.List;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The transform behind {@link ObjectTransform#keeping} and
 * {@link ObjectTransform#dropping}: parses the object's JSON into a tree, keeps or drops
 * the paths, and writes it back. {@code apiVersion}, {@code kind} and {@code metadata}
 * are always kept.
 */
final class JsonPathTransform implements ObjectTransform<KubernetesObject> {

	private static final List<String> ALWAYS_KEPT = List.of("apiVersion", "kind", "metadata");

	private final List<String[]> paths;

	private final boolean keep;

	JsonPathTransform(List<String> paths, boolean keep) {
		List<String[]> parsed = new ArrayList<>();
		for (String path : paths) {
			String[] segments = (path != null) ? path.trim().split("\\.", -1) : new String[] { "" };
			for (String segment : segments) {
				if (segment.isEmpty()) {
					throw new IllegalArgumentException("'" + path + "' is not a dot-separated path of object fields");
				}
			}
			if (!keep && ALWAYS_KEPT.contains(segments[0])) {
				throw new IllegalArgumentException(
						"'" + path + "' cannot be dropped: apiVersion, kind and metadata " + "are always kept");
			}
			parsed.add(segments);
		}
		this.paths = List.copyOf(parsed);
		this.keep = keep;
	}

	@Override
	public KubernetesObject transform(KubernetesObject object) {
		JsonNode tree = object.toTree();
		if (!(tree instanceof ObjectNode root)) {
			return object;
		}
		ObjectNode result;
		if (this.keep) {
			result = root.objectNode();
			for (String field : ALWAYS_KEPT) {
				JsonNode value = root.get(field);
				if (value != null) {
					result.set(field, value);
				}
			}
			for (String[] path : this.paths) {
				copy(root, result, path);
			}
		}
		else {
			result = root;
			for (String[] path : this.paths) {
				remove(root, path);
			}
		}
		byte[] json = JsonMapper.shared().writeValueAsBytes(result);
		return KubernetesObject.of(object.metadata(), object.apiVersion(), object.kind(), json);
	}

	private static void copy(ObjectNode from, ObjectNode to, String[] path) {
		JsonNode source = from;
		for (String segment : path) {
			source = source.get(segment);
			if (source == null) {
				return;
			}
		}
		ObjectNode target = to;
		for (int i = 0; i < path.length - 1; i++) {
			JsonNode next = target.get(path[i]);
			target = (next instanceof ObjectNode nextObject) ? nextObject : target.putObject(path[i]);
		}
		target.set(path[path.length - 1], source);
	}

	private static void remove(ObjectNode root, String[] path) {
		JsonNode parent = root;
		for (int i = 0; i < path.length - 1; i++) {
			parent = parent.get(path[i]);
			if (parent == null) {
				return;
			}
		}
		if (parent instanceof ObjectNode parentObject) {
			parentObject.remove(path[path.length - 1]);
		}
	}

	@Override
	public String toString() {
		return (this.keep ? "keep " : "drop ") + this.paths.stream().map((path) -> String.join(".", path)).toList();
	}

}
