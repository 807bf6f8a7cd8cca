package dev.listwatch.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.ListerWatcher;
import dev.listwatch.WatchStatus;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.informer.Informer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

/**
 * What startup checks around the informers: just before they start, that each declared
 * resource is served by the cluster (when the cluster can be reached; an unreachable
 * cluster is retried in the background, and a resource whose discovery fails otherwise,
 * as an aggregated API answering 503, by its watch, the others checked all the same);
 * just after, when {@code listwatch.startup.wait-for-sync} is set, that every watch
 * synced in time.
 */
final class WatchStartupChecks {

	private static final Log logger = LogFactory.getLog(WatchStartupChecks.class);

	private final ObjectProvider<Informer<?>> informers;

	private final ListwatchProperties.Startup startup;

	WatchStartupChecks(ObjectProvider<Informer<?>> informers, ListwatchProperties.Startup startup) {
		this.informers = informers;
		this.startup = startup;
	}

	SmartLifecycle resolution() {
		return new Phase(Informer.PHASE - 1, this::resolveAll);
	}

	SmartLifecycle waitForSync() {
		return new Phase(Informer.PHASE + 1, this::awaitSynced);
	}

	private void resolveAll() {
		for (Informer<?> informer : this.informers.orderedStream().toList()) {
			ListerWatcher<?> first = informer.listerWatchers().get(0);
			try {
				// the namespaces of a set share the resource: resolving one resolves it
				// for all
				for (ListerWatcher<?> listerWatcher : informer.listerWatchers()) {
					ApiServerClient.resolveNow(listerWatcher);
				}
			}
			catch (KubernetesApiException ex) {
				if (ex.kind() == KubernetesApiException.Kind.NOT_FOUND) {
					throw new WatchDeclarationException(informer.watch(),
							(first.resource().kind() != null) ? "kind" : "resource",
							"names a resource the cluster does not serve: " + ex.getMessage(),
							"Check the kind (or plural resource) and api-version against `kubectl api-resources`; "
									+ "for a custom resource, install its CustomResourceDefinition first.",
							ex);
				}
				if (ex.kind() == KubernetesApiException.Kind.CONNECTION
						|| ex.kind() == KubernetesApiException.Kind.CREDENTIALS) {
					// no request gets through: each watch finds its resource as it lists
					logger.warn("Cannot reach the cluster to check the declared watches (" + ex.getMessage()
							+ "); they will retry in the background");
					return;
				}
				// one group failing (an aggregated API answering 503) holds up no other
				logger.warn("Cannot check watch " + informer.watch() + " (" + ex.getMessage()
						+ "); it will retry in the background");
			}
		}
	}

	private void awaitSynced() {
		if (!this.startup.isWaitForSync()) {
			return;
		}
		Duration timeout = this.startup.getSyncTimeout();
		Instant deadline = Instant.now().plus(timeout);
		List<String> unsynced = new ArrayList<>();
		for (Informer<?> informer : this.informers.orderedStream().toList()) {
			if (!informer.isAutoStartup()) {
				// the application starts it when it wants: startup does not wait for it
				continue;
			}
			Duration left = Duration.between(Instant.now(), deadline);
			try {
				if (!informer.awaitSynced(left.isNegative() ? Duration.ZERO : left)) {
					WatchStatus status = informer.status();
					unsynced.add("'" + informer.watch() + "' (" + status.state()
							+ ((status.lastError() != null) ? ", last error: " + status.lastError().message() : "")
							+ ")");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new WatchSyncTimeoutException("Interrupted while waiting for the watches to sync");
			}
		}
		if (!unsynced.isEmpty()) {
			throw new WatchSyncTimeoutException(
					"listwatch.startup.wait-for-sync is set and these watches did not sync within "
							+ timeout.toSeconds() + " s: " + String.join("; ", unsynced));
		}
	}

	/** A step that runs whenever the context starts, in a given lifecycle phase. */
	static final class Phase implements SmartLifecycle {

		private final int phase;

		private final Runnable action;

		private volatile boolean running;

		Phase(int phase, Runnable action) {
			this.phase = phase;
			this.action = action;
		}

		@Override
		public void start() {
			this.action.run();
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return this.phase;
		}

	}

}
