package dev.listwatch.client;

import java.time.Instant;
import java.util.List;

/**
 * What a group/version serves, as {@link ApiServerClient} discovered it at a time.
 * Compared by identity, so that a refresh is claimed by exactly one thread.
 */
final class Discovery {

	private final List<ApiResource> resources;

	private final Instant at;

	Discovery(List<ApiResource> resources, Instant at) {
		this.resources = resources;
		this.at = at;
	}

	List<ApiResource> resources() {
		return this.resources;
	}

	Instant at() {
		return this.at;
	}

	/** A resource of the group/version, subresources ({@code pods/log}) included. */
	record ApiResource(String name, String kind, boolean namespaced) {
	}

}
