package dev.listwatch.reliability;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.listwatch.KubernetesObject;
import dev.listwatch.event.ResourceEvent;

import org.springframework.context.event.EventListener;

/**
 * Records the {@link ResourceEvent}s of a context's watches of {@link KubernetesObject}s,
 * for the tests of this package: register it with {@code withBean(EventRecorder.class)}.
 */
class EventRecorder {

	/** Every event, in the order it was published. */
	final List<ResourceEvent<KubernetesObject>> all = new CopyOnWriteArrayList<>();

	/** The last event of each object, by {@code "<watch> <namespace>/<name>"}. */
	final Map<String, ResourceEvent<KubernetesObject>> last = new ConcurrentHashMap<>();

	@EventListener
	void on(ResourceEvent<KubernetesObject> event) {
		this.all.add(event);
		this.last.put(event.watch() + " " + event.key(), event);
	}

	/**
	 * @return the events after the initial lists
	 */
	List<ResourceEvent<KubernetesObject>> changes() {
		return this.all.stream().filter((event) -> !event.initialList()).toList();
	}

	/**
	 * @return the deliveries of the periodic resync
	 */
	List<ResourceEvent<KubernetesObject>> resyncs() {
		return this.all.stream().filter(ResourceEvent::resync).toList();
	}

}
