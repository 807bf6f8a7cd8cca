package dev.listwatch.autoconfigure;

/**
 * {@code listwatch.startup.wait-for-sync} is set and some watches had not synced within
 * {@code listwatch.startup.sync-timeout}.
 */
class WatchSyncTimeoutException extends RuntimeException {

	WatchSyncTimeoutException(String message) {
		super(message);
	}

}
