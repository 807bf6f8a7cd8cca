package dev.listwatch.sample;

import java.util.List;

import dev.listwatch.KubernetesObject;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.WatchDeclaration;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * A watch declared in code instead of {@code application.yml}: the Services of the
 * {@code default} namespace, from the shared informer factory. Another caller that
 * declares the same gets this very informer (one watch, one cache). The listener added
 * here receives the cache as ADDED events first, then every change, on its own queue;
 * this component starts the informer with the application and stops it with it.
 */
@Component
class ServiceCatalog implements SmartLifecycle {

	static final WatchDeclaration<KubernetesObject> SERVICES = WatchDeclaration.of("v1", "Service")
		.inNamespace("default");

	private final Informer<KubernetesObject> services;

	ServiceCatalog(InformerFactory informers, EventLog log) {
		this.services = informers.informer("services", SERVICES);
		this.services.addListener(
				(event) -> log.record("catalog", event.watch(), event.type().name(), event.key(), event.initialList()));
	}

	/**
	 * The names of the cached Services, sorted.
	 * @return the names
	 */
	List<String> names() {
		return this.services.lister().list().stream().map(KubernetesObject::name).sorted().toList();
	}

	@Override
	public void start() {
		this.services.start();
	}

	@Override
	public void stop() {
		this.services.stop();
	}

	@Override
	public boolean isRunning() {
		return this.services.isRunning();
	}

	@Override
	public int getPhase() {
		return Informer.PHASE;
	}

}
