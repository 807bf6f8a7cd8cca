package dev.listwatch.informer;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import dev.listwatch.KubernetesObject;
import org.jspecify.annotations.Nullable;

/**
 * What a watch lists and watches, as a value: the resource, the namespaces, the
 * selectors, the Java type, whether only metadata is asked, and the resync period. Equal
 * declarations are one watch: {@link InformerFactory#informer(String, WatchDeclaration)}
 * gives every caller that asks for an equal declaration, and the watch declared equally
 * under {@code listwatch.watches}, the same shared {@link Informer}, with one cache and
 * one request stream. How the watch runs (timeouts, backoff, page size, streaming lists)
 * is not part of a declaration: it comes from {@code listwatch.defaults}.
 * <p>
 * Kind and plural are compared as written: declare a resource the same way (by kind, or
 * by plural) everywhere it should be shared. Namespaces are compared as a set.
 * <pre>{@code
 * WatchDeclaration<KubernetesObject> pods = WatchDeclaration.of("v1", "Pod")
 *     .inNamespaces("shop", "billing")
 *     .withLabelSelector("app=web");
 * }</pre>
 *
 * @param <T> the Java type of the objects
 * @param apiVersion the group/version, for example {@code v1} or {@code apps/v1}
 * @param kind the kind, for example {@code ConfigMap} (resolved to the plural through
 * discovery), or {@code null} when {@code resource} is given
 * @param resource the plural, for example {@code configmaps}, or {@code null} when
 * {@code kind} is given
 * @param namespaces the namespaces, sorted, without repeats: empty for all namespaces (or
 * a cluster-scoped resource), one for one namespace, several for a namespace set (one
 * watch per namespace underneath, into one cache)
 * @param labelSelector the label selector, or {@code null}
 * @param fieldSelector the field selector, or {@code null}
 * @param type the Java type the objects are bound to
 * @param metadataOnly whether only metadata is listed and watched
 * (PartialObjectMetadata); only with {@link KubernetesObject} as the type
 * @param resyncPeriod how often the cache is delivered again to listeners,
 * {@link Duration#ZERO} for never, or {@code null} for
 * {@code listwatch.defaults.resync-period}
 */
public record WatchDeclaration<T>(String apiVersion, @Nullable String kind, @Nullable String resource,
		List<String> namespaces, @Nullable String labelSelector, @Nullable String fieldSelector, Class<T> type,
		boolean metadataOnly, @Nullable Duration resyncPeriod) {

	/**
	 * Makes a declaration.
	 * @throws IllegalArgumentException when the API version is blank or not a
	 * group/version, not exactly one of kind and resource is given, a namespace is blank,
	 * a selector does not parse, the resync period is negative, or a metadata-only
	 * declaration names a type other than {@link KubernetesObject}
	 */
	public WatchDeclaration {
		Objects.requireNonNull(apiVersion, "apiVersion");
		Objects.requireNonNull(type, "type");
		apiVersion = apiVersion.trim();
		if (apiVersion.isEmpty() || apiVersion.split("/").length > 2 || apiVersion.endsWith("/")) {
			throw new IllegalArgumentException("apiVersion '" + apiVersion
					+ "' is not a group/version: write 'v1' for the core group or 'group/version', for example 'apps/v1'");
		}
		kind = blankToNull(kind);
		resource = blankToNull(resource);
		if ((kind == null) == (resource == null)) {
			throw new IllegalArgumentException("Give the kind (for example 'ConfigMap') or the resource (the plural, "
					+ "for example 'configmaps'), one of them: kind is " + kind + ", resource is " + resource);
		}
		for (String namespace : namespaces) {
			if (namespace == null || namespace.isBlank()) {
				throw new IllegalArgumentException("A namespace is blank in " + namespaces
						+ ": name each namespace, or give none for all namespaces");
			}
		}
		namespaces = namespaces.stream().map(String::trim).distinct().sorted().toList();
		labelSelector = blankToNull(labelSelector);
		fieldSelector = blankToNull(fieldSelector);
		// the options check the selectors and the period, with messages that say which
		// and why
		InformerOptions.defaults().withLabelSelector(labelSelector).withFieldSelector(fieldSelector);
		if (resyncPeriod != null && resyncPeriod.isNegative()) {
			throw new IllegalArgumentException("resyncPeriod is negative: " + resyncPeriod);
		}
		if (metadataOnly && type != KubernetesObject.class) {
			throw new IllegalArgumentException("A metadata-only watch caches PartialObjectMetadata as "
					+ "dev.listwatch.KubernetesObject, not " + type.getName()
					+ ": leave the type as KubernetesObject (KubernetesObject.as(...) binds one), or cache whole objects");
		}
	}

	/**
	 * Declares a resource in all namespaces, bound to {@link KubernetesObject}.
	 * @param apiVersion the group/version, for example {@code v1} or {@code apps/v1}
	 * @param kindOrPlural the kind when it starts with an upper-case letter (for example
	 * {@code ConfigMap}), else the plural (for example {@code configmaps})
	 * @return the declaration
	 */
	public static WatchDeclaration<KubernetesObject> of(String apiVersion, String kindOrPlural) {
		boolean kind = !kindOrPlural.isBlank() && Character.isUpperCase(kindOrPlural.trim().charAt(0));
		return new WatchDeclaration<>(apiVersion, kind ? kindOrPlural : null, kind ? null : kindOrPlural, List.of(),
				null, null, KubernetesObject.class, false, null);
	}

	/**
	 * The same declaration in one namespace.
	 * @param namespace the namespace
	 * @return the declaration
	 */
	public WatchDeclaration<T> inNamespace(String namespace) {
		return inNamespaces(List.of(namespace));
	}

	/**
	 * The same declaration over a set of namespaces: one cache, one watch per namespace.
	 * @param namespaces the namespaces
	 * @return the declaration
	 */
	public WatchDeclaration<T> inNamespaces(String... namespaces) {
		return inNamespaces(Arrays.asList(namespaces));
	}

	/**
	 * The same declaration over a set of namespaces (none: all namespaces).
	 * @param namespaces the namespaces
	 * @return the declaration
	 */
	public WatchDeclaration<T> inNamespaces(Collection<String> namespaces) {
		return new WatchDeclaration<>(this.apiVersion, this.kind, this.resource, List.copyOf(namespaces),
				this.labelSelector, this.fieldSelector, this.type, this.metadataOnly, this.resyncPeriod);
	}

	/**
	 * The same declaration with a label selector.
	 * @param labelSelector the selector, or {@code null} for none
	 * @return the declaration
	 */
	public WatchDeclaration<T> withLabelSelector(@Nullable String labelSelector) {
		return new WatchDeclaration<>(this.apiVersion, this.kind, this.resource, this.namespaces, labelSelector,
				this.fieldSelector, this.type, this.metadataOnly, this.resyncPeriod);
	}

	/**
	 * The same declaration with a field selector.
	 * @param fieldSelector the selector, or {@code null} for none
	 * @return the declaration
	 */
	public WatchDeclaration<T> withFieldSelector(@Nullable String fieldSelector) {
		return new WatchDeclaration<>(this.apiVersion, this.kind, this.resource, this.namespaces, this.labelSelector,
				fieldSelector, this.type, this.metadataOnly, this.resyncPeriod);
	}

	/**
	 * The same declaration with its objects bound to a Java type (Jackson binding).
	 * @param <U> the type
	 * @param type the type
	 * @return the declaration
	 */
	public <U> WatchDeclaration<U> as(Class<U> type) {
		return new WatchDeclaration<>(this.apiVersion, this.kind, this.resource, this.namespaces, this.labelSelector,
				this.fieldSelector, type, this.metadataOnly, this.resyncPeriod);
	}

	/**
	 * The same declaration listing and watching only metadata.
	 * @param metadataOnly whether only metadata is asked
	 * @return the declaration
	 */
	public WatchDeclaration<T> withMetadataOnly(boolean metadataOnly) {
		return new WatchDeclaration<>(this.apiVersion, this.kind, this.resource, this.namespaces, this.labelSelector,
				this.fieldSelector, this.type, metadataOnly, this.resyncPeriod);
	}

	/**
	 * The same declaration with a resync period.
	 * @param resyncPeriod the period, {@link Duration#ZERO} for never, {@code null} for
	 * the default
	 * @return the declaration
	 */
	public WatchDeclaration<T> withResyncPeriod(@Nullable Duration resyncPeriod) {
		return new WatchDeclaration<>(this.apiVersion, this.kind, this.resource, this.namespaces, this.labelSelector,
				this.fieldSelector, this.type, this.metadataOnly, resyncPeriod);
	}

	private static @Nullable String blankToNull(@Nullable String value) {
		return (value == null || value.isBlank()) ? null : value.trim();
	}

	@Override
	public String toString() {
		return ((this.kind != null) ? this.kind : this.resource) + "." + this.apiVersion
				+ (this.namespaces.isEmpty() ? " in all namespaces" : " in " + String.join(", ", this.namespaces))
				+ ((this.labelSelector != null) ? " [" + this.labelSelector + "]" : "")
				+ ((this.fieldSelector != null) ? " {" + this.fieldSelector + "}" : "") + " as "
				+ this.type.getSimpleName() + (this.metadataOnly ? " (metadata only)" : "")
				+ ((this.resyncPeriod != null) ? " resync " + this.resyncPeriod : "");
	}

}
