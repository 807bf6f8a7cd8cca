package dev.listwatch;

import java.util.Objects;

/**
 * Binds an {@link ObjectTransform} to one watch. Declare one bean per watch; the
 * auto-configuration hands every {@code WatchTransform} bean whose {@link #watch()} names
 * a configured watch to that watch's informer before the watch starts:
 *
 * <pre class="code">
 * &#64;Bean
 * WatchTransform&lt;KubernetesObject&gt; podsWithoutStatus() {
 *     return WatchTransform.of("pods", ObjectTransform.dropping(List.of("status")));
 * }
 * </pre>
 *
 * A watch has at most one such bean; with {@code listwatch.watches.<name>.keep} or
 * {@code drop} as well, those apply first and the bean's transform to their output.
 *
 * @param <T> the Java type of the watch's objects
 * @param watch the name of the watch, as under {@code listwatch.watches}
 * @param transform the transform
 */
public record WatchTransform<T>(String watch, ObjectTransform<T> transform) {

	/**
	 * Makes a declaration.
	 * @throws IllegalArgumentException when the watch is empty
	 * @throws NullPointerException when the transform is {@code null}
	 */
	public WatchTransform {
		if (watch == null || watch.isBlank()) {
			throw new IllegalArgumentException("watch must not be empty");
		}
		Objects.requireNonNull(transform, "transform must not be null");
	}

	/**
	 * Declares a transform.
	 * @param <T> the Java type of the watch's objects
	 * @param watch the name of the watch
	 * @param transform the transform
	 * @return the declaration
	 */
	public static <T> WatchTransform<T> of(String watch, ObjectTransform<T> transform) {
		return new WatchTransform<>(watch, transform);
	}

}
