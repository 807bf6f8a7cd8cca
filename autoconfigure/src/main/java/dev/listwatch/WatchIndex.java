package dev.listwatch;

import java.util.Objects;

/**
 * Declares a custom index on the cache of one watch. Declare one bean per index; the
 * auto-configuration hands every {@code WatchIndex} bean whose {@link #watch()} names a
 * configured watch to that watch's cache before the watch starts, and the index is then
 * available through {@link Lister#byIndex(String, String)} of the {@code <watch>Lister}
 * bean:
 *
 * <pre class="code">
 * &#64;Bean
 * WatchIndex&lt;KubernetesObject&gt; configmapsByApp() {
 *     return WatchIndex.of("configmaps", "byApp",
 *             (object, meta) -&gt; List.of(meta.labels().getOrDefault("app", "")));
 * }
 *
 * // later
 * List&lt;KubernetesObject&gt; web = configmapsLister.byIndex("byApp", "web");
 * </pre>
 *
 * The index name {@value #NAMESPACE} is reserved for the built-in namespace index every
 * cache has. Index names are unique per watch; two beans declaring the same index of the
 * same watch are a configuration error.
 *
 * @param <T> the Java type of the watch's objects
 * @param watch the name of the watch, as under {@code listwatch.watches}
 * @param name the index name, unique within the watch
 * @param function the index function
 */
public record WatchIndex<T>(String watch, String name, IndexFunction<? super T> function) {

	/**
	 * The name of the built-in index of every cache, by namespace (client-go's
	 * {@code NamespaceIndex}).
	 */
	public static final String NAMESPACE = "namespace";

	/**
	 * Makes a declaration.
	 * @throws IllegalArgumentException when the watch or the name is empty, or the name
	 * is {@value #NAMESPACE}
	 * @throws NullPointerException when the function is {@code null}
	 */
	public WatchIndex {
		requireText(watch, "watch");
		requireText(name, "name");
		if (NAMESPACE.equals(name)) {
			throw new IllegalArgumentException(
					"Index name '" + NAMESPACE + "' is reserved for the built-in namespace index");
		}
		Objects.requireNonNull(function, "function must not be null");
	}

	/**
	 * Declares an index.
	 * @param <T> the Java type of the watch's objects
	 * @param watch the name of the watch
	 * @param name the index name, not {@value #NAMESPACE}
	 * @param function the index function
	 * @return the declaration
	 */
	public static <T> WatchIndex<T> of(String watch, String name, IndexFunction<? super T> function) {
		return new WatchIndex<>(watch, name, function);
	}

	private static void requireText(String value, String what) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException(what + " must not be empty");
		}
	}

}
