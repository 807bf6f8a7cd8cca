package dev.listwatch;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The part of an object's {@code metadata} that list-watch needs, read while the object
 * is decoded, whatever Java type the object is bound to.
 *
 * @param namespace the namespace, {@code null} for a cluster-scoped object (and in a
 * BOOKMARK's metadata)
 * @param name the name; {@code null} only in a BOOKMARK's metadata, which carries a
 * resourceVersion alone
 * @param uid the uid, or {@code null} when the JSON has none (a BOOKMARK's metadata)
 * @param resourceVersion the resourceVersion, opaque
 * @param labels the labels, never {@code null}
 */
public record ObjectMeta(@Nullable String namespace, @Nullable String name, @Nullable String uid,
		String resourceVersion, Map<String, String> labels) {

	/**
	 * Makes metadata; {@code null} labels are taken as none.
	 * @param namespace the namespace, {@code null} for a cluster-scoped object
	 * @param name the name, {@code null} only for a BOOKMARK's metadata
	 * @param uid the uid, or {@code null}
	 * @param resourceVersion the resourceVersion
	 * @param labels the labels, or {@code null} for none
	 */
	public ObjectMeta(@Nullable String namespace, @Nullable String name, @Nullable String uid, String resourceVersion,
			@Nullable Map<String, String> labels) {
		this.namespace = namespace;
		this.name = name;
		this.uid = uid;
		this.resourceVersion = resourceVersion;
		this.labels = (labels != null) ? labels : Map.of();
	}

	/**
	 * The cache key, as client-go's {@code MetaNamespaceKeyFunc} makes it:
	 * {@code namespace/name}, or {@code name} for a cluster-scoped object.
	 * @return the key; {@code null} only for a BOOKMARK's metadata, which has neither
	 * namespace nor name
	 */
	public @Nullable String key() {
		return (this.namespace == null || this.namespace.isEmpty()) ? this.name : this.namespace + "/" + this.name;
	}

	/**
	 * The cache key of an object.
	 * @param namespace the namespace or {@code null}
	 * @param name the name
	 * @return {@code namespace/name}, or {@code name} without a namespace
	 */
	public static String key(@Nullable String namespace, String name) {
		return (namespace == null || namespace.isEmpty()) ? name : namespace + "/" + name;
	}

}
