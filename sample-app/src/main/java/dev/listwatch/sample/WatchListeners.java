package dev.listwatch.sample;

import dev.listwatch.event.ResourceEvent;
import dev.listwatch.event.WatchSyncedEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Listens to what listwatch publishes. Each method runs on a listwatch dispatch thread;
 * events of one object arrive in order.
 */
@Component
class WatchListeners {

	private static final Logger logger = LoggerFactory.getLogger(WatchListeners.class);

	private final EventLog log;

	WatchListeners(EventLog log) {
		this.log = log;
	}

	/**
	 * Every event of every watch (the wildcard matches whatever type a watch is bound
	 * to).
	 */
	@EventListener
	void onAny(ResourceEvent<?> event) {
		logger.info("{} {} {}{}{}", event.watch(), event.type(), event.key(),
				event.initialList() ? " (initial list)" : "",
				event.finalStateUnknown() ? " (deleted while the watch was down; final state unknown)" : "");
		this.log.record("any", event.watch(), event.type().name(), event.key(), event.initialList());
	}

	/** Only watches bound to {@link WebConfig}: here, {@code labeled}. */
	@EventListener
	void onWebConfig(ResourceEvent<WebConfig> event) {
		WebConfig config = event.object();
		logger.info("web config {} {}: {}", event.type(), config.metadata().name(), config.data());
		this.log.record("web-config", event.watch(), event.type().name(), event.key(), event.initialList());
	}

	/** Only the {@code deployments} watch, picked by a SpEL condition. */
	@EventListener(condition = "#event.watch == 'deployments'")
	void onDeployment(ResourceEvent<?> event) {
		logger.info("deployment {} {}", event.type(), event.key());
		this.log.record("deployments", event.watch(), event.type().name(), event.key(), event.initialList());
	}

	/** A watch has its initial list in its cache: its Lister is complete from now on. */
	@EventListener
	void onSynced(WatchSyncedEvent event) {
		logger.info("watch {} synced with {} objects", event.watch(), event.objects());
		this.log.record("synced", event.watch(), "SYNCED", Integer.toString(event.objects()), true);
	}

}
