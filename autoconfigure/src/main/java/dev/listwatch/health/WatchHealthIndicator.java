package dev.listwatch.health;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;

import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStatus.State;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The health of one watch, from its status snapshot. The rule: <b>a watch that is not
 * making progress is never reported healthy past its grace period, and the reason is in
 * its details.</b> Progress is an event or bookmark received, a sync completed, or a
 * stream held open for a second without an error; a watch that only reconnects, to fail
 * again at once, does not make progress (see {@link WatchStatus}). So a quiet watch
 * behind a proxy that closes idle connections is UP, and:
 * <ul>
 * <li>{@code unhealthy-status} (DOWN) when its reading thread failed
 * ({@link State#FAILED}, until a resync succeeds), or when it has been failing for longer
 * than the grace period: the server cannot be reached, every event fails to decode, every
 * stream fails at once, every relist fails;</li>
 * <li>{@code not-synced-status} (OUT_OF_SERVICE) before its initial sync, and when it is
 * not running;</li>
 * <li>{@code not-started-status} (UP) for a watch with {@code auto-startup: false} that
 * the application has not started yet;</li>
 * <li>UP otherwise, also while it fails within the grace period (the details say so) and
 * while its stream has been silent for longer than the API server's bookmark interval
 * (the details say so). The API server sends a bookmark about every minute while the
 * resource changes anywhere, and none while it does not change at all, so silence alone
 * is not a failure: the idle timeout replaces a silent stream from its last
 * resourceVersion, and through a half-open path that replacement cannot connect, which is
 * a failure.</li>
 * </ul>
 * Objects the watch cannot hold are listed in the details (key, JSON path, target type,
 * never a value) without changing the status: the rest of the cache is in step.
 * <p>
 * Details never hold secrets: error messages are those of {@code KubernetesApiException},
 * which never carry credentials, and object names appear only as the keys of unbindable
 * objects.
 */
final class WatchHealthIndicator implements HealthIndicator {

	/**
	 * How often the API server's watch cache sends a watch a bookmark, while the resource
	 * changes anywhere (it sends none at a resourceVersion the watch already has).
	 */
	static final Duration BOOKMARK_INTERVAL = Duration.ofMinutes(1);

	private static final int MAX_MESSAGE = 500;

	private static final int MAX_UNBINDABLE_LISTED = 20;

	private final Supplier<WatchStatus> status;

	private final Duration gracePeriod;

	private final Status unhealthy;

	private final Status notSynced;

	private final Status notStarted;

	WatchHealthIndicator(Supplier<WatchStatus> status, Duration gracePeriod, Status unhealthy, Status notSynced,
			Status notStarted) {
		this.status = status;
		this.gracePeriod = gracePeriod;
		this.unhealthy = unhealthy;
		this.notSynced = notSynced;
		this.notStarted = notStarted;
	}

	@Override
	public Health health() {
		WatchStatus snapshot = this.status.get();
		Duration failingFor = snapshot.failingFor();
		Duration silentFor = snapshot.silentFor();
		Status verdict;
		String reason = null;
		if (!snapshot.running() && !snapshot.watched().autoStartup()) {
			// started and stopped by the application when it wants (say, on leadership):
			// not running is a normal state of such a watch, before its first start and
			// after a stop
			verdict = this.notStarted;
			reason = (snapshot.state() == State.STARTING)
					? "not started: auto-startup is false, and the application has not called its informer's start()"
					: "not started: auto-startup is false, and the application has stopped it";
		}
		else if (!snapshot.running() || snapshot.state() == State.STOPPED) {
			verdict = this.notSynced;
			reason = "not running";
		}
		else if (snapshot.state() == State.FAILED && refused(snapshot.lastError())) {
			verdict = this.unhealthy;
			reason = "the API server refused it (" + Objects.requireNonNull(snapshot.lastError()).message()
					+ "), and on-refusal is fail: it stays stopped until its informer is started again";
		}
		else if (snapshot.state() == State.FAILED) {
			verdict = this.unhealthy;
			reason = "its thread failed"
					+ ((snapshot.lastError() != null) ? " (" + snapshot.lastError().message() + ")" : "")
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
			else if (snapshot.state() == State.WATCHING && silentFor != null
					&& silentFor.compareTo(BOOKMARK_INTERVAL.plusSeconds(10)) > 0) {
				reason = "no event or bookmark for " + seconds(silentFor) + " (the API server sends one about every "
						+ seconds(BOOKMARK_INTERVAL)
						+ " while the resource changes anywhere); the stream is replaced once " + "silent for "
						+ seconds(snapshot.watched().idleTimeout());
			}
		}
		return Health.status(verdict).withDetails(details(snapshot, reason)).build();
	}

	private Map<String, Object> details(WatchStatus snapshot, @Nullable String reason) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("state", snapshot.state().name());
		details.put("synced", snapshot.synced());
		if (reason != null) {
			details.put("reason", reason);
		}
		details.put("stateSince", snapshot.stateSince().toString());
		putIfNotNull(details, "lastResourceVersion", snapshot.lastResourceVersion());
		details.put("objects", snapshot.objects());
		putIfNotNull(details, "lastEventTime", snapshot.lastEventTime());
		if (snapshot.silentFor() != null) {
			details.put("silentFor", seconds(snapshot.silentFor()));
		}
		putIfNotNull(details, "lastSyncTime", snapshot.lastSyncTime());
		details.put("restarts", snapshot.totalRestarts());
		Map<String, Long> restarts = new TreeMap<>();
		snapshot.restarts().forEach((restart, count) -> restarts.put(restart.tag(), count));
		details.put("restartsByReason", restarts);
		details.put("relists", snapshot.relists());
		details.put("consecutiveFailures", snapshot.consecutiveFailures());
		putIfNotNull(details, "failingSince", snapshot.failingSince());
		WatchStatus.Failure error = snapshot.lastError();
		if (error != null) {
			Map<String, Object> lastError = new LinkedHashMap<>();
			putIfNotNull(lastError, "reason", error.reason());
			putIfNotNull(lastError, "message", truncate(error.message()));
			if (error.code() != 0) {
				lastError.put("code", error.code());
			}
			details.put("lastError", lastError);
		}
		putIfNotNull(details, "streamingList", snapshot.streamingList());
		details.put("backlog", snapshot.backlog());
		details.put("listenerFailures", snapshot.listenerFailures());
		long indexFailures = snapshot.indexFailures();
		details.put("indexFailures", indexFailures);
		WatchStatus.IndexFailure lastIndexFailure = snapshot.lastIndexFailure();
		if (indexFailures > 0 && lastIndexFailure != null) {
			details.put("lastIndexFailure", Map.of("index", lastIndexFailure.index(), "key", lastIndexFailure.key(),
					"error", lastIndexFailure.error()));
		}
		List<UnbindableObject> unbindable = snapshot.unbindable();
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
		if (!snapshot.namespaces().isEmpty()) {
			// a namespace set: each namespace's own watch, briefly
			Map<String, Object> namespaces = new LinkedHashMap<>();
			snapshot.namespaces().forEach((namespace, status) -> {
				Map<String, Object> entry = new LinkedHashMap<>();
				entry.put("state", status.state().name());
				entry.put("synced", status.synced());
				putIfNotNull(entry, "lastResourceVersion", status.lastResourceVersion());
				entry.put("objects", status.objects());
				entry.put("restarts", status.totalRestarts());
				entry.put("relists", status.relists());
				putIfNotNull(entry, "failingSince", status.failingSince());
				namespaces.put(namespace, entry);
			});
			details.put("namespaces", namespaces);
		}
		return details;
	}

	private static void putIfNotNull(Map<String, Object> details, String key, @Nullable Object value) {
		if (value != null) {
			details.put(key, (value instanceof Instant instant) ? instant.toString() : value);
		}
	}

	private static @Nullable String truncate(@Nullable String message) {
		return (message == null || message.length() <= MAX_MESSAGE) ? message
				: message.substring(0, MAX_MESSAGE) + "...";
	}

	/**
	 * Whether a FAILED watch stopped after a refusal that retrying will not mend
	 * ({@code on-refusal: fail}) rather than after an error on its thread: its last error
	 * is the refusal's 401, 403 or 404 (an error on the thread has no HTTP code).
	 */
	static boolean refused(WatchStatus.@Nullable Failure error) {
		return error != null && (error.code() == 401 || error.code() == 403 || error.code() == 404);
	}

	private static String seconds(Duration duration) {
		return (duration.toMillis() / 1000) + " s";
	}

}
