package dev.listwatch.autoconfigure.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.listwatch.informer.Informer;
import dev.listwatch.reflector.ReflectorStatus;
import dev.listwatch.reflector.WatchState;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The health of one watch, from its status snapshot:
 * <ul>
 * <li>{@code unhealthy-status} (DOWN) when it has stopped after a failure retrying cannot mend,
 * or has been failing for longer than the grace period;</li>
 * <li>{@code not-synced-status} (OUT_OF_SERVICE) before its initial sync, and when it is not
 * running;</li>
 * <li>UP otherwise, also while it fails within the grace period (the details say so).</li>
 * </ul>
 * Details never hold secrets: error messages are those of {@code KubernetesApiException}, which
 * never carry credentials, and object names are not shown.
 */
final class WatchHealthIndicator implements HealthIndicator {

	private static final int MAX_MESSAGE = 500;

	private final Informer<?> informer;

	private final Clock clock;

	private final Duration gracePeriod;

	private final Status unhealthy;

	private final Status notSynced;

	WatchHealthIndicator(Informer<?> informer, Clock clock, Duration gracePeriod, Status unhealthy, Status notSynced) {
		this.informer = informer;
		this.clock = clock;
		this.gracePeriod = gracePeriod;
		this.unhealthy = unhealthy;
		this.notSynced = notSynced;
	}

	@Override
	public Health health() {
		ReflectorStatus status = this.informer.status();
		Instant failingSince = status.failingSince();
		ReflectorStatus.Snapshot snapshot = status.snapshot();
		Instant now = this.clock.instant();
		Status verdict;
		String reason = null;
		if (snapshot.state() == WatchState.FAILED) {
			verdict = this.unhealthy;
			reason = "stopped after a failure that retrying cannot mend";
		}
		else if (failingSince != null && Duration.between(failingSince, now).compareTo(this.gracePeriod) > 0) {
			verdict = this.unhealthy;
			reason = "failing for " + seconds(Duration.between(failingSince, now)) + ", longer than the grace period of "
					+ seconds(this.gracePeriod);
		}
		else if (!this.informer.isRunning() || snapshot.state() == WatchState.STOPPED) {
			verdict = this.notSynced;
			reason = "not running";
		}
		else if (!snapshot.synced()) {
			verdict = this.notSynced;
			reason = "not synced yet";
		}
		else {
			verdict = Status.UP;
			if (failingSince != null) {
				reason = "failing for " + seconds(Duration.between(failingSince, now)) + ", within the grace period of "
						+ seconds(this.gracePeriod);
			}
		}
		return Health.status(verdict).withDetails(details(snapshot, failingSince, reason)).build();
	}

	private Map<String, Object> details(ReflectorStatus.Snapshot snapshot, Instant failingSince, String reason) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("state", snapshot.state().name());
		details.put("synced", snapshot.synced());
		if (reason != null) {
			details.put("reason", reason);
		}
		details.put("stateSince", snapshot.stateSince().toString());
		putIfNotNull(details, "lastResourceVersion", snapshot.lastResourceVersion());
		details.put("objects", this.informer.size());
		putIfNotNull(details, "lastEventTime", snapshot.lastEventTime());
		putIfNotNull(details, "lastSyncTime", snapshot.lastSyncTime());
		details.put("restarts", snapshot.totalRestarts());
		details.put("restartsByReason", snapshot.restarts());
		details.put("relists", snapshot.relists());
		details.put("consecutiveFailures", snapshot.consecutiveFailures());
		putIfNotNull(details, "failingSince", failingSince);
		ReflectorStatus.ErrorInfo error = snapshot.lastError();
		if (error != null) {
			Map<String, Object> lastError = new LinkedHashMap<>();
			putIfNotNull(lastError, "reason", error.reason());
			putIfNotNull(lastError, "message", truncate(error.message()));
			if (error.code() != 0) {
				lastError.put("code", error.code());
			}
			details.put("lastError", lastError);
		}
		putIfNotNull(details, "streamingList", snapshot.streaming());
		details.put("backlog", this.informer.backlog());
		details.put("listenerFailures", this.informer.listenerFailures());
		return details;
	}

	private static void putIfNotNull(Map<String, Object> details, String key, Object value) {
		if (value != null) {
			details.put(key, (value instanceof Instant instant) ? instant.toString() : value);
		}
	}

	private static String truncate(String message) {
		return (message == null || message.length() <= MAX_MESSAGE) ? message
				: message.substring(0, MAX_MESSAGE) + "...";
	}

	private static String seconds(Duration duration) {
		return (duration.toMillis() / 1000) + " s";
	}

}
