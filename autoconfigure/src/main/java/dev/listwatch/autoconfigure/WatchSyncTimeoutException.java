package dev.listwatch.autoconfigure;

/**
 * {@code listwatch.startup.wait-for-sync} is set and some watches had not synced within
 * {@code listwatch.startup.sync-timeout}.
 */
public class WatchSyncTimeoutException extends RuntimeException {

	public WatchSyncTimeoutException(String message) {
		super(message);
	}

}
