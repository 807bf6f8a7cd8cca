package dev.listwatch.autoconfigure.health;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.listwatch.UnbindableObject;
import dev.listwatch.informer.Store;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.ReflectorStatus;
import dev.listwatch.informer.WatchState;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The health of one watch, from its status snapshot. The rule: <b>a watch that is not making
 * progress is never reported healthy past its grace period, and the reason is in its
 * details.</b> Progress is an event or bookmark received, or a sync completed; a watch that only
 * reconnects does not make progress (see {@link ReflectorStatus}). So:
 * <ul>
 * <li>{@code unhealthy-status} (DOWN) when its reading thread failed ({@link WatchState#FAILED},
 * until a resync succeeds), or when it has been failing for longer than the grace period: the
 * server cannot be reached, every event fails to decode, every watch goes silent and is replaced,
 * every relist fails;</li>
 * <li>{@code not-synced-status} (OUT_OF_SERVICE) before its initial sync, and when it is not
 * running;</li>
 * <li>UP otherwise, also while it fails within the grace period (the details say so) and while
 * its stream has been silent for longer than the API server's bookmark interval (the details say
 * so). The API server sends a bookmark about every minute while the resource changes anywhere, and
 * none while it does not change at all, so silence alone is not a failure: the idle timeout
 * replaces a silent stream from its last resourceVersion, and through a half-open path that
 * replacement cannot connect, which is a failure.</li>
 * </ul>
 * Objects the watch cannot hold are listed in the details (key, JSON path, target type, never a
 * value) without changing the status: the rest of the cache is in step.
 * <p>
 * Details never hold secrets: error messages are those of {@code KubernetesApiException}, which
 * never carry credentials, and object names appear only as the keys of unbindable objects.
 */
final class WatchHealthIndicator implements HealthIndicator {

	/**
	 * How often the API server's watch cache sends a watch a bookmark, while the resource changes
	 * anywhere (it sends none at a resourceVersion the watch already has).
	 */
	static final Duration BOOKMARK_INTERVAL = Duration.ofMinutes(1);

	private static final int MAX_MESSAGE = 500;

	private static final int MAX_UNBINDABLE_LISTED = 20;

	private final Informer<?> informer;

	private final Duration gracePeriod;

	private final Status unhealthy;

	private final Status notSynced;

	WatchHealthIndicator(Informer<?> informer, Duration gracePeriod, Status unhealthy, Status notSynced) {
		this.informer = informer;
		this.gracePeriod = gracePeriod;
		this.unhealthy = unhealthy;
		this.notSynced = notSynced;
	}

	@Override
	public Health health() {
		ReflectorStatus status = this.informer.status();
		Instant failingSince = status.failingSince();
		Duration failingFor = status.failingFor();
		Duration silentFor = status.silentFor();
		ReflectorStatus.Snapshot snapshot = status.snapshot();
		Status verdict;
		String reason = null;
		if (!this.informer.isRunning() || snapshot.state() == WatchState.STOPPED) {
			verdict = this.notSynced;
			reason = "not running";
		}
		else if (snapshot.state() == WatchState.FAILED) {
			verdict = this.unhealthy;
			reason = "its thread failed" + ((snapshot.lastError() != null) ? " (" + snapshot.lastError().message() + ")" : "")
					+ "; it stays down until a resync succeeds";
		}
		else if (failingFor != null && failingFor.compareTo(this.gracePeriod) > 0) {
			verdict = this.unhealthy;
			reason = "failing without progress for " + seconds(failingFor) + ", longer than the grace period of "
					+ seconds(this.gracePeriod);
		}
		else if (!snapshot.synced()) {
			verdict = this.notSynced;
			reason = "not synced yet";
		}
		else {
			verdict = Status.UP;
			if (failingFor != null) {
				reason = "failing for " + seconds(failingFor) + ", within the grace period of "
						+ seconds(this.gracePeriod);
			}
			else if (snapshot.state() == WatchState.WATCHING && silentFor != null
					&& silentFor.compareTo(BOOKMARK_INTERVAL.plusSeconds(10)) > 0) {
				reason = "no event or bookmark for " + seconds(silentFor) + " (the API server sends one about every "
						+ seconds(BOOKMARK_INTERVAL) + " while the resource changes anywhere); the stream is replaced once "
						+ "silent for " + seconds(this.informer.options().idleTimeout());
			}
		}
		return Health.status(verdict).withDetails(details(snapshot, failingSince, silentFor, reason)).build();
	}

	private Map<String, Object> details(ReflectorStatus.Snapshot snapshot, Instant failingSince, Duration silentFor,
			String reason) {
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
		if (silentFor != null) {
			details.put("silentFor", seconds(silentFor));
		}
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
		long indexFailures = this.informer.indexFailures();
		details.put("indexFailures", indexFailures);
		Store.IndexFailure lastIndexFailure = this.informer.lastIndexFailure();
		if (indexFailures > 0 && lastIndexFailure != null) {
			details.put("lastIndexFailure", Map.of("index", lastIndexFailure.index(), "key", lastIndexFailure.key(),
					"error", lastIndexFailure.error()));
		}
		List<UnbindableObject> unbindable = this.informer.unbindable();
		details.put("unbindable", unbindable.size());
		if (!unbindable.isEmpty()) {
			List<Map<String, Object>> listed = new ArrayList<>();
			for (UnbindableObject object : unbindable.subList(0, Math.min(unbindable.size(), MAX_UNBINDABLE_LISTED))) {
				Map<String, Object> entry = new LinkedHashMap<>();
				entry.put("key", object.key());
				entry.put("path", object.path());
				entry.put("targetType", object.targetType());
				entry.put("reason", truncate(object.reason()));
				listed.add(entry);
			}
			details.put("unbindableObjects", listed);
		}
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
