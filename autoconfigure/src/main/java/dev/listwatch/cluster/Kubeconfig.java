package dev.listwatch.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * One or more kubeconfig files merged by kubectl's rules: for clusters, users and
 * contexts the first file that defines a name wins; the first file that sets
 * current-context wins. Every entry remembers the file that defined it, so relative paths
 * resolve against that file and errors name it.
 */
final class Kubeconfig {

	private static final YAMLMapper YAML = YAMLMapper.builder().build();

	/**
	 * A named entry of {@code clusters}, {@code users} or {@code contexts}.
	 *
	 * @param kind {@code clusters}, {@code users} or {@code contexts}
	 * @param name the entry's name
	 * @param body the inner object ({@code cluster}, {@code user} or {@code context})
	 * @param file the file that defined it
	 */
	record Entry(String kind, String name, JsonNode body, Path file) {

		/**
		 * The kubectl-style name of a field of the inner object.
		 * @param field the field, e.g. {@code client-key-data}
		 * @return e.g. {@code users[admin].user.client-key-data}
		 */
		String field(String field) {
			return this.kind + "[" + this.name + "]." + inner(this.kind) + ((field != null) ? "." + field : "");
		}

		@Nullable String text(String field) {
			return Kubeconfig.text(this.body.get(field), this.file, field(field));
		}

		boolean flag(String field) {
			JsonNode node = this.body.get(field);
			if (node == null || node.isNull()) {
				return false;
			}
			if (node.isBoolean()) {
				return node.booleanValue();
			}
			if (node.isString() && (node.stringValue().equals("true") || node.stringValue().equals("false"))) {
				return Boolean.parseBoolean(node.stringValue());
			}
			throw new KubeconfigException(this.file.toString(), field(field), "is not true or false",
					"write `" + field + ": true` or remove the line");
		}

		Path resolve(String path) {
			Path p = Path.of(path);
			if (p.isAbsolute()) {
				return p;
			}
			Path directory = Objects.requireNonNull(this.file.toAbsolutePath().getParent(), "a file has a directory");
			return directory.resolve(p).normalize();
		}

	}

	private final List<Path> files;

	private final Map<String, Entry> clusters = new LinkedHashMap<>();

	private final Map<String, Entry> users = new LinkedHashMap<>();

	private final Map<String, Entry> contexts = new LinkedHashMap<>();

	private @Nullable String currentContext;

	private @Nullable Path currentContextFile;

	private Kubeconfig(List<Path> files) {
		this.files = List.copyOf(files);
	}

	/**
	 * Reads and merges the given files, all of which must exist.
	 * @param files the files in priority order
	 * @return the merged configuration
	 */
	static Kubeconfig load(List<Path> files) {
		Kubeconfig config = new Kubeconfig(files);
		for (Path file : files) {
			config.merge(file, read(file));
		}
		return config;
	}

	List<Path> files() {
		return this.files;
	}

	Map<String, Entry> clusters() {
		return this.clusters;
	}

	Map<String, Entry> users() {
		return this.users;
	}

	Map<String, Entry> contexts() {
		return this.contexts;
	}

	@Nullable String currentContext() {
		return this.currentContext;
	}

	@Nullable Path currentContextFile() {
		return this.currentContextFile;
	}

	/**
	 * The file to name in errors that concern the whole configuration.
	 * @return the file, or all files joined with ':'
	 */
	String describeFiles() {
		return String.join(":", this.files.stream().map(Path::toString).toList());
	}

	private static @Nullable JsonNode read(Path file) {
		String text;
		try {
			text = Files.readString(file, StandardCharsets.UTF_8);
		}
		catch (IOException | RuntimeException ex) {
			throw new KubeconfigException(file.toString(), "", "cannot be read (" + ex.getClass().getSimpleName() + ")",
					"check that the file exists and is readable by this process", ex);
		}
		if (text.isBlank()) {
			return null;
		}
		try {
			return YAML.readTree(text);
		}
		catch (JacksonException ex) {
			// Never show the parser's message: YAML parsers quote the offending line,
			// which may hold a token or key.
			TokenStreamLocation location = ex.getLocation();
			String where = (location != null && location.getLineNr() > 0)
					? " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")" : "";
			throw new KubeconfigException(file.toString(), "", "is not valid YAML" + where,
					"fix the YAML syntax, e.g. check indentation and quoting, or regenerate the file (`kind get kubeconfig`, `aws eks update-kubeconfig`, ...)");
		}
	}

	private void merge(Path file, @Nullable JsonNode root) {
		if (root == null || root.isMissingNode() || root.isNull()) {
			return;
		}
		if (!root.isObject()) {
			throw new KubeconfigException(file.toString(), "", "is not a kubeconfig (the top level is not a mapping)",
					"point listwatch.kubeconfig / KUBECONFIG at a kubeconfig file (apiVersion: v1, kind: Config)");
		}
		mergeList(file, root, "clusters", this.clusters);
		mergeList(file, root, "users", this.users);
		mergeList(file, root, "contexts", this.contexts);
		JsonNode current = root.get("current-context");
		if (this.currentContext == null && current != null && current.isString() && !current.stringValue().isEmpty()) {
			this.currentContext = current.stringValue();
			this.currentContextFile = file;
		}
	}

	private static void mergeList(Path file, JsonNode root, String kind, Map<String, Entry> into) {
		JsonNode list = root.get(kind);
		if (list == null || list.isNull()) {
			return;
		}
		if (!list.isArray()) {
			throw new KubeconfigException(file.toString(), kind, "is not a list",
					"write it as a YAML list of entries with `name:` and `" + inner(kind) + ":`");
		}
		for (int i = 0; i < list.size(); i++) {
			JsonNode item = list.get(i);
			JsonNode name = (item != null) ? item.get("name") : null;
			if (name == null || !name.isString() || name.stringValue().isEmpty()) {
				throw new KubeconfigException(file.toString(), kind + "[" + i + "].name", "is missing",
						"give every entry of `" + kind + "` a `name:`");
			}
			JsonNode body = item.get(inner(kind));
			if (body != null && !body.isNull() && !body.isObject()) {
				throw new KubeconfigException(file.toString(), kind + "[" + name.stringValue() + "]." + inner(kind),
						"is not a mapping", "write `" + inner(kind) + ":` as a mapping of fields");
			}
			if (body == null || body.isNull()) {
				body = YAML.createObjectNode();
			}
			into.putIfAbsent(name.stringValue(), new Entry(kind, name.stringValue(), body, file));
		}
	}

	static String inner(String kind) {
		return kind.substring(0, kind.length() - 1);
	}

	static @Nullable String text(JsonNode node, Path file, String field) {
		if (node == null || node.isNull()) {
			return null;
		}
		if (node.isString()) {
			String value = node.stringValue();
			return value.isEmpty() ? null : value;
		}
		if (node.isNumber() || node.isBoolean()) {
			return node.asString();
		}
		throw new KubeconfigException(file.toString(), field, "is not a string", "write it as a plain string value");
	}

	static List<String> names(Map<String, Entry> entries) {
		return new ArrayList<>(entries.keySet());
	}

}
