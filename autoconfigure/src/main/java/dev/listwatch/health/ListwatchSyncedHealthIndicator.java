package dev.listwatch.health;

import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStatus.State;
import dev.listwatch.informer.Informer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code listwatchSynced} health indicator, for the readiness group: <b>is this
 * replica's cache fit to serve from?</b> It answers a different question from the
 * {@code listwatch} contributor ("is every watch making progress?"), as Spring Boot's
 * guidance on probes asks: a readiness check must not fail for an outage of something
 * that every replica shares, since taking every replica out of service helps no one,
 * while each could serve from its cache.
 * <ul>
 * <li>{@code notSynced} (OUT_OF_SERVICE) while a running watch has not completed a sync
 * since it started (its cache is not a whole copy yet), and while a watch's thread has
 * failed ({@link State#FAILED}: a fault of this replica, whose cache may miss changes
 * until its resync completes);</li>
 * <li>UP otherwise: through an API server outage, a network that cuts streams, and a
 * watch that backs off, each cache keeps serving its last state. How stale it may be
 * shows in the details ({@code failingFor}) and in the meter {@code listwatch.staleness};
 * the {@code listwatch} contributor reports the watch DOWN once it fails past its grace
 * period.</li>
 * </ul>
 * Watches the application context does not start (with {@code auto-startup: false}, or
 * leader-only: each leader's term syncs afresh) and watches that are not running are left
 * out: a replica's readiness does not flap with leadership, and a replica that runs none
 * is ready. Computed from each watch's {@link WatchStatus}; the informers are looked up
 * on every call. Thread-safe; the details hold no secret.
 */
public final class ListwatchSyncedHealthIndicator implements HealthIndicator {

	private final ObjectProvider<Informer<?>> informers;

	private final Status notSynced;

	/**
	 * Makes the indicator.
	 * @param informers the informers, looked up on every call
	 * @param notSynced the status while a running watch is not synced (default:
	 * OUT_OF_SERVICE)
	 */
	public ListwatchSyncedHealthIndicator(ObjectProvider<Informer<?>> informers, Status notSynced) {
		this.informers = informers;
		this.notSynced = notSynced;
	}

	@Override
	public Health health() {
		List<WatchStatus> statuses = this.informers.stream()
			.sorted(Comparator.comparing(Informer::watch))
			.map(Informer::status)
			.toList();
		Status verdict = Status.UP;
		Map<String, Object> watches = new LinkedHashMap<>();
		for (WatchStatus status : statuses) {
			if (!status.running() || status.state() == State.STOPPED || !status.watched().autoStartup()) {
				// not started with the application: its runs (a leader's terms, the
				// application's own starts) are not what makes a replica fit to serve,
				// and would flap readiness with them
				continue;
			}
			Map<String, Object> entry = new LinkedHashMap<>();
			entry.put("synced", status.synced());
			entry.put("state", status.state().name());
			if (!status.synced()) {
				verdict = this.notSynced;
				entry.put("reason", "not synced since it started");
			}
			else if (status.state() == State.FAILED) {
				verdict = this.notSynced;
				entry.put("reason", WatchHealthIndicator.refused(status.lastError())
						? "refused by the API server and stopped (on-refusal: fail); ready again once started and synced"
						: "its thread failed; ready again once a resync succeeds");
			}
			Duration failingFor = status.failingFor();
			if (failingFor != null) {
				entry.put("failingFor", (failingFor.toMillis() / 1000) + " s");
			}
			if (status.lastSyncTime() != null) {
				entry.put("lastSyncTime", status.lastSyncTime().toString());
			}
			watches.put(status.watch(), entry);
		}
		return Health.status(verdict).withDetail("watches", watches).build();
	}

}
