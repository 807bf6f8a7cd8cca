package dev.listwatch.controller;

import java.util.Optional;

import dev.listwatch.ObjectMeta;

/**
 * One key to reconcile, and the object as the watch's cache holds it when the reconcile
 * starts.
 *
 * @param <T> the Java type of the watch's objects
 * @param key the object's key: {@code namespace/name}, or {@code name} for a
 * cluster-scoped object
 * @param object the object as cached now; empty when it is gone (deleted, or never there)
 * @param failures how often the reconcile of this key failed in a row before this one
 */
public record Request<T>(String key, Optional<T> object, int failures) {

	/**
	 * The namespace of the key.
	 * @return the namespace, or empty for a cluster-scoped object
	 */
	public Optional<String> namespace() {
		int slash = this.key.indexOf('/');
		return (slash < 0) ? Optional.empty() : Optional.of(this.key.substring(0, slash));
	}

	/**
	 * The name of the key.
	 * @return the name
	 */
	public String name() {
		int slash = this.key.indexOf('/');
		return (slash < 0) ? this.key : this.key.substring(slash + 1);
	}

	/**
	 * The key of an object's metadata.
	 * @param meta the metadata
	 * @return its key, as requests carry it
	 */
	static String keyOf(ObjectMeta meta) {
		String name = meta.name();
		return ObjectMeta.key(meta.namespace(), (name != null) ? name : "");
	}

}
