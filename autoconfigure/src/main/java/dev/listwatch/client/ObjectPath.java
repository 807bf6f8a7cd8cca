package dev.listwatch.client;

import java.nio.charset.StandardCharsets;

import dev.listwatch.ObjectMeta;
import dev.listwatch.Resource;
import org.jspecify.annotations.Nullable;

import org.springframework.web.util.UriUtils;

/**
 * Where a {@link ResourceWriter}'s request goes: the resource, the namespace and the
 * object's name, both as path segments.
 *
 * @param resource the resource
 * @param namespace the namespace, {@code null} for a cluster-scoped resource
 * @param name the name as a path segment, or a placeholder for a name the server
 * generates (only a create, which goes to the collection)
 */
record ObjectPath(Resource resource, @Nullable String namespace, String name) {

	/**
	 * The collection: {@code /api/v1/namespaces/default/configmaps},
	 * {@code /apis/rbac.authorization.k8s.io/v1/clusterroles}.
	 * @return the path
	 */
	String collection() {
		Resource r = this.resource;
		return (r.group().isEmpty() ? "/api/" + r.version() : "/apis/" + r.group() + "/" + r.version())
				+ ((this.namespace != null) ? "/namespaces/" + this.namespace : "") + "/" + r.plural();
	}

	/**
	 * The object, or its status subresource.
	 * @param status whether the status subresource
	 * @return the path
	 */
	String path(boolean status) {
		return collection() + "/" + this.name + (status ? "/status" : "");
	}

	/**
	 * The resource and the object, for messages.
	 * @return e.g. {@code configmaps.v1 default/app}
	 */
	@Override
	public String toString() {
		return this.resource.plural() + "." + this.resource.apiVersion() + " "
				+ ObjectMeta.key(this.namespace, this.name);
	}

	/**
	 * A name or namespace as a path segment. One that the API server could take for
	 * another path ({@code .}, {@code ..}, or with {@code /} or {@code %}) is refused, as
	 * the server refuses such names.
	 * @param value the name or namespace
	 * @param what {@code name} or {@code namespace}, for the message
	 * @return the segment, encoded
	 * @throws IllegalArgumentException when it is empty or could be taken for another
	 * path
	 */
	static String segment(@Nullable String value, String what) {
		String text = requireText(value, what);
		if (text.equals(".") || text.equals("..") || text.indexOf('/') >= 0 || text.indexOf('%') >= 0) {
			throw new IllegalArgumentException("A " + what + " may not be '.' or '..' nor hold '/' or '%'");
		}
		return UriUtils.encodePathSegment(text, StandardCharsets.UTF_8);
	}

	static String requireText(@Nullable String value, String what) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException("The " + what + " must not be empty");
		}
		return value;
	}

}
