package dev.listwatch.sample;

import java.util.List;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Lister;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Serves ConfigMaps from the {@code configmaps} watch's cache, Secrets' metadata from the
 * {@code secrets} watch's, and Services from the one declared in code: no request reaches
 * the API server.
 */
@RestController
class ConfigMapController {

	private final Lister<KubernetesObject> configmaps;

	private final Lister<KubernetesObject> secrets;

	private final ServiceCatalog services;

	private final EventLog events;

	ConfigMapController(@Qualifier("configmapsLister") Lister<KubernetesObject> configmaps,
			@Qualifier("secretsLister") Lister<KubernetesObject> secrets, ServiceCatalog services, EventLog events) {
		this.configmaps = configmaps;
		this.secrets = secrets;
		this.services = services;
		this.events = events;
	}

	/**
	 * Names of the cached ConfigMaps, sorted; {@code ?selector=app=web} filters by
	 * labels.
	 */
	@GetMapping("/configmaps")
	List<String> names(@RequestParam(required = false) String selector) {
		return names(this.configmaps.listByLabels(selector));
	}

	/** One ConfigMap as the API server sent it (without managedFields). */
	@GetMapping("/configmaps/{name}")
	ResponseEntity<KubernetesObject> get(@PathVariable String name) {
		return ResponseEntity.of(this.configmaps.get("default", name));
	}

	/**
	 * Names of the ConfigMaps labelled {@code app=<app>}, through the {@code byApp}
	 * index.
	 */
	@GetMapping("/configmaps/by-app/{app}")
	List<String> byApp(@PathVariable String app) {
		return names(this.configmaps.byIndex(SampleIndexes.BY_APP, app));
	}

	/**
	 * The Secrets of the {@code default} namespace from the metadata-only {@code secrets}
	 * watch: names and labels, never their data, which the watch does not even receive.
	 */
	@GetMapping("/secrets")
	List<KubernetesObject> secrets() {
		return this.secrets.list();
	}

	/** Names of the Services of the watch declared in code ({@link ServiceCatalog}). */
	@GetMapping("/services")
	List<String> services() {
		return this.services.names();
	}

	/** The events the listeners recorded, oldest first. */
	@GetMapping("/events")
	List<EventLog.Entry> events() {
		return this.events.entries();
	}

	/**
	 * A malformed label selector is the client's mistake: 400, with where it is wrong.
	 */
	@ExceptionHandler(IllegalArgumentException.class)
	ProblemDetail badSelector(IllegalArgumentException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

	private static List<String> names(List<KubernetesObject> objects) {
		return objects.stream().map(KubernetesObject::name).sorted().toList();
	}

}
