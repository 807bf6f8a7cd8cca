package dev.listwatch.autoconfigure.health;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * How the {@code listwatch} health contributor judges a watch:
 * {@code management.health.listwatch.*}, where Spring Boot keeps a health indicator's
 * settings. It is switched on and off with {@code management.health.listwatch.enabled}.
 * The keys of earlier versions, {@code listwatch.health.*}, are still read (a key set
 * under both takes the new one) and are deprecated.
 */
@ConfigurationProperties("management.health.listwatch")
public class ListwatchHealthProperties {

	/**
	 * How long a watch may keep failing without progress (no event, bookmark or sync, and
	 * no stream held open for a second) before the listwatch contributor reports it with
	 * unhealthy-status. Shorter failures are reported UP with the failure in the details.
	 * Readiness does not depend on it: the listwatchSynced indicator stays UP through an
	 * outage.
	 */
	private Duration backoffGracePeriod = Duration.ofSeconds(60);

	/**
	 * Health status of a watch that has failed for longer than backoff-grace-period, or
	 * that has stopped after a failure retrying cannot mend.
	 */
	private String unhealthyStatus = "DOWN";

	/**
	 * Health status of a watch that has not completed its initial sync (its cache is not
	 * yet a full copy of the API server's objects), and of the listwatchSynced indicator
	 * while a running watch has not synced since it started.
	 */
	private String notSyncedStatus = "OUT_OF_SERVICE";

	/**
	 * Health status of a watch with auto-startup false that the application has not
	 * started yet; UP by default, so that it does not hold readiness back.
	 */
	private String notStartedStatus = "UP";

	public String getNotStartedStatus() {
		return this.notStartedStatus;
	}

	public void setNotStartedStatus(String notStartedStatus) {
		this.notStartedStatus = notStartedStatus;
	}

	public Duration getBackoffGracePeriod() {
		return this.backoffGracePeriod;
	}

	public void setBackoffGracePeriod(Duration backoffGracePeriod) {
		this.backoffGracePeriod = backoffGracePeriod;
	}

	public String getUnhealthyStatus() {
		return this.unhealthyStatus;
	}

	public void setUnhealthyStatus(String unhealthyStatus) {
		this.unhealthyStatus = unhealthyStatus;
	}

	public String getNotSyncedStatus() {
		return this.notSyncedStatus;
	}

	public void setNotSyncedStatus(String notSyncedStatus) {
		this.notSyncedStatus = notSyncedStatus;
	}

}
