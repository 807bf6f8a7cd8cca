package dev.listwatch;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonValue;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.util.RawValue;

/**
 * A Kubernetes object of any kind, held compactly: its JSON bytes as the server sent them
 * (by default without {@code metadata.managedFields}) and the metadata that list-watch
 * needs, read once while decoding. Nothing else is parsed until asked for:
 * {@link #toTree()}, {@link #at(String)} and {@link #as(Class)} parse the bytes on each
 * call.
 * <p>
 * An object made by an {@link ObjectCompressor} (a watch with {@code compress-objects})
 * holds its JSON compressed instead, and inflates it on each call that needs it
 * ({@link #json()}, {@link #toByteArray()}, {@link #toTree()}, {@link #at(String)},
 * {@link #as(Class)}); its metadata is held decoded all the same. Nothing else tells the
 * two apart.
 * <p>
 * Instances are immutable and thread-safe. Two objects are equal when their JSON bytes
 * are, compressed or not. Jackson writes an instance as its JSON, so a web endpoint can
 * return it as it is.
 */
public final class KubernetesObject {

	/** The JSON, or its compressed form when {@link #dictionary} is set. */
	private final byte[] json;

	/**
	 * The dictionary the JSON is compressed with, or {@code null} when it is held as it
	 * is.
	 */
	private final @Nullable JsonDictionary dictionary;

	private final ObjectMeta metadata;

	private final @Nullable String apiVersion;

	private final @Nullable String kind;

	private KubernetesObject(byte[] json, @Nullable JsonDictionary dictionary, ObjectMeta metadata,
			@Nullable String apiVersion, @Nullable String kind) {
		this.json = json;
		this.dictionary = dictionary;
		this.metadata = metadata;
		this.apiVersion = apiVersion;
		this.kind = kind;
	}

	/**
	 * Makes an object from its parts, as a decoder has read them. The array is taken as
	 * it is, not copied: the caller hands it over and must not change it.
	 * @param metadata the metadata read from {@code json}
	 * @param apiVersion the {@code apiVersion} read from {@code json}, or {@code null}
	 * when it has none
	 * @param kind the {@code kind} read from {@code json}, or {@code null} when it has
	 * none
	 * @param json the object's UTF-8 JSON
	 * @return the object
	 */
	public static KubernetesObject of(ObjectMeta metadata, @Nullable String apiVersion, @Nullable String kind,
			byte[] json) {
		return new KubernetesObject(json, null, metadata, apiVersion, kind);
	}

	/**
	 * An object whose JSON is held compressed with a dictionary (see
	 * {@link ObjectCompressor}).
	 */
	static KubernetesObject compressed(ObjectMeta metadata, @Nullable String apiVersion, @Nullable String kind,
			byte[] packed, JsonDictionary dictionary) {
		return new KubernetesObject(packed, dictionary, metadata, apiVersion, kind);
	}

	/** Whether the JSON is held compressed. */
	boolean isCompressed() {
		return this.dictionary != null;
	}

	/** The bytes held: the JSON, or its compressed form. */
	int heldSize() {
		return this.json.length;
	}

	/**
	 * The JSON bytes: the array held, or a new one inflated. Never handed out as it is.
	 */
	private byte[] bytes() {
		JsonDictionary dictionary = this.dictionary;
		return (dictionary != null) ? dictionary.inflate(this.json) : this.json;
	}

	/**
	 * The {@code apiVersion}, for example {@code v1} or {@code apps/v1}.
	 * @return the API version, or {@code null} when the JSON has none
	 */
	public @Nullable String apiVersion() {
		return this.apiVersion;
	}

	/**
	 * The {@code kind}, for example {@code ConfigMap}.
	 * @return the kind, or {@code null} when the JSON has none
	 */
	public @Nullable String kind() {
		return this.kind;
	}

	/**
	 * The metadata the cache keys and indexes by.
	 * @return the metadata, never {@code null}
	 */
	public ObjectMeta metadata() {
		return this.metadata;
	}

	/**
	 * The namespace.
	 * @return the namespace, or {@code null} for a cluster-scoped object
	 */
	public @Nullable String namespace() {
		return this.metadata.namespace();
	}

	/**
	 * The name.
	 * @return the name, which the API server gives every object
	 */
	public String name() {
		return Objects.requireNonNull(this.metadata.name(), "only a BOOKMARK's metadata has no name");
	}

	/**
	 * The UID.
	 * @return the UID, or {@code null} when the JSON has none
	 */
	public @Nullable String uid() {
		return this.metadata.uid();
	}

	/**
	 * The resourceVersion of this state of the object.
	 * @return the resourceVersion
	 */
	public String resourceVersion() {
		return this.metadata.resourceVersion();
	}

	/**
	 * The labels.
	 * @return the labels, unmodifiable, empty when none
	 */
	public Map<String, String> labels() {
		return this.metadata.labels();
	}

	/**
	 * The cache key: {@code namespace/name}, or {@code name} for a cluster-scoped object.
	 * @return the key
	 */
	public String key() {
		return Objects.requireNonNull(this.metadata.key(), "only a BOOKMARK's metadata has no name");
	}

	/**
	 * The object's JSON.
	 * @return the JSON text
	 */
	public String json() {
		return new String(bytes(), StandardCharsets.UTF_8);
	}

	/**
	 * The object's JSON as UTF-8 bytes (a copy).
	 * @return the bytes
	 */
	public byte[] toByteArray() {
		return (this.dictionary != null) ? bytes() : this.json.clone();
	}

	/**
	 * The size of the object's JSON in bytes.
	 * @return the size
	 */
	public int jsonSize() {
		return (this.dictionary != null) ? JsonDictionary.jsonLength(this.json) : this.json.length;
	}

	/**
	 * Parses the whole object into a tree.
	 * @return the tree
	 */
	public JsonNode toTree() {
		return JsonMapper.shared().readTree(bytes());
	}

	/**
	 * The node at a JSON Pointer, for example {@code /data/key} or
	 * {@code /spec/replicas}.
	 * @param jsonPointer the pointer
	 * @return the node, a missing node when there is none
	 */
	public JsonNode at(String jsonPointer) {
		return toTree().at(jsonPointer);
	}

	/**
	 * Binds the object to a Java type with Jackson's shared mapper.
	 * @param <T> the type
	 * @param type the class
	 * @return the bound object
	 */
	public <T> T as(Class<T> type) {
		return as(type, JsonMapper.shared());
	}

	/**
	 * Binds the object to a Java type with the given mapper (for example the
	 * application's).
	 * @param <T> the type
	 * @param type the class
	 * @param mapper the mapper
	 * @return the bound object
	 */
	public <T> T as(Class<T> type, ObjectMapper mapper) {
		return mapper.readValue(bytes(), type);
	}

	@JsonValue
	RawValue jsonValue() {
		return new RawValue(json());
	}

	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		if (!(other instanceof KubernetesObject that)) {
			return false;
		}
		if (this.dictionary == that.dictionary) {
			// both as they are, or both compressed with one dictionary, which is
			// deterministic
			return Arrays.equals(this.json, that.json);
		}
		return jsonSize() == that.jsonSize() && Arrays.equals(bytes(), that.bytes());
	}

	@Override
	public int hashCode() {
		return Arrays.hashCode(bytes());
	}

	@Override
	public String toString() {
		return this.kind + " " + this.metadata.key() + " (resourceVersion " + this.metadata.resourceVersion() + ")";
	}

}
