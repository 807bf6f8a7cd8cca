package dev.listwatch.autoconfigure.health;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The settings of the {@code listwatchControllers} health contributor.
 */
@ConfigurationProperties("management.health.listwatch-controllers")
public class ControllersHealthProperties {

	/**
	 * How long one reconcile may run before its controller is reported with
	 * unhealthy-status: a worker stuck on a call without a timeout, or on a lock.
	 */
	private Duration stuckAfter = Duration.ofMinutes(10);

	/**
	 * How long a key may wait ready for a worker before its controller is reported with
	 * unhealthy-status: the workers cannot keep up, or are all stuck. Keys waiting out a
	 * backoff or a requeue delay do not count.
	 */
	private Duration maxQueueWait = Duration.ofMinutes(10);

	/**
	 * Health status of a controller with a stuck worker or a key waiting too long.
	 */
	private String unhealthyStatus = "DOWN";

	public Duration getStuckAfter() {
		return this.stuckAfter;
	}

	public void setStuckAfter(Duration stuckAfter) {
		this.stuckAfter = stuckAfter;
	}

	public Duration getMaxQueueWait() {
		return this.maxQueueWait;
	}

	public void setMaxQueueWait(Duration maxQueueWait) {
		this.maxQueueWait = maxQueueWait;
	}

	public String getUnhealthyStatus() {
		return this.unhealthyStatus;
	}

	public void setUnhealthyStatus(String unhealthyStatus) {
		this.unhealthyStatus = unhealthyStatus;
	}

}
