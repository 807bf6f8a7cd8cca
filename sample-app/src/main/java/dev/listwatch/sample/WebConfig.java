package dev.listwatch.sample;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * The application's own view of a ConfigMap labelled {@code app=web}: the {@code labeled}
 * watch is bound to it ({@code listwatch.watches.labeled.type}), so listwatch hands out
 * instances of this record instead of {@code KubernetesObject}. Only the fields named
 * here are read.
 *
 * @param metadata the object's metadata
 * @param data the ConfigMap's data
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record WebConfig(Metadata metadata, Map<String, String> data) {

	public WebConfig {
		data = (data != null) ? Map.copyOf(data) : Map.of();
	}

	/**
	 * The part of the metadata this application reads.
	 *
	 * @param namespace the namespace
	 * @param name the name
	 * @param resourceVersion the resourceVersion
	 * @param labels the labels
	 * @param annotations the annotations (empty when it has none), among them the one
	 * {@link WebStatusReconciler} writes
	 */
	@JsonIgnoreProperties(ignoreUnknown = true)
	public record Metadata(String namespace, String name, String resourceVersion, Map<String, String> labels,
			Map<String, String> annotations) {

		public Metadata {
			annotations = (annotations != null) ? annotations : Map.of();
		}

	}

}
