package dev.listwatch;

import org.jspecify.annotations.Nullable;

/**
 * A resource of the Kubernetes API as a list-watch addresses it.
 *
 * @param group the API group, empty for the core group
 * @param version the version, for example {@code v1}
 * @param plural the plural resource name used in paths, for example {@code configmaps}
 * @param kind the kind, for example {@code ConfigMap}; may be {@code null} when unknown
 * @param namespaced whether objects of this resource live in namespaces
 * @param namespace the namespace watched, or {@code null} for all namespaces
 */
public record Resource(String group, String version, String plural, @Nullable String kind, boolean namespaced,
		@Nullable String namespace) {

	/**
	 * The {@code apiVersion}: {@code v1} or {@code group/version}.
	 * @return the API version
	 */
	public String apiVersion() {
		return (this.group == null || this.group.isEmpty()) ? this.version : this.group + "/" + this.version;
	}

	/**
	 * The collection path: {@code /api/v1/namespaces/default/configmaps},
	 * {@code /apis/apps/v1/deployments} and so on.
	 * @return the path, without query
	 */
	public String path() {
		StringBuilder path = new StringBuilder();
		path.append((this.group == null || this.group.isEmpty()) ? "/api/" + this.version
				: "/apis/" + this.group + "/" + this.version);
		if (this.namespaced && this.namespace != null && !this.namespace.isEmpty()) {
			path.append("/namespaces/").append(this.namespace);
		}
		return path.append('/').append(this.plural).toString();
	}

	@Override
	public String toString() {
		return this.plural + "." + apiVersion()
				+ ((this.namespace != null && !this.namespace.isEmpty()) ? " in " + this.namespace : "");
	}

}
