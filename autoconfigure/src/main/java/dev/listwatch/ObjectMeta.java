package dev.listwatch;

import java.util.Map;

/**
 * The part of an object's {@code metadata} that list-watch needs, read while the object is
 * decoded, whatever Java type the object is bound to.
 *
 * @param namespace the namespace, {@code null} for a cluster-scoped object
 * @param name the name
 * @param uid the uid
 * @param resourceVersion the resourceVersion, opaque
 * @param labels the labels, never {@code null}
 */
public record ObjectMeta(String namespace, String name, String uid, String resourceVersion,
		Map<String, String> labels) {

	/**
	 * Makes metadata; {@code null} labels are taken as none.
	 */
	public ObjectMeta {
		labels = (labels != null) ? labels : Map.of();
	}

	/**
	 * The cache key, as client-go's {@code MetaNamespaceKeyFunc} makes it: {@code namespace/name},
	 * or {@code name} for a cluster-scoped object.
	 * @return the key
	 */
	public String key() {
		return key(this.namespace, this.name);
	}

	/**
	 * The cache key of an object.
	 * @param namespace the namespace or {@code null}
	 * @param name the name
	 * @return {@code namespace/name}, or {@code name} without a namespace
	 */
	public static String key(String namespace, String name) {
		return (namespace == null || namespace.isEmpty()) ? name : namespace + "/" + name;
	}

}
