package dev.listwatch.sample;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import org.springframework.stereotype.Component;

/**
 * The last events the listeners saw, newest last, served at {@code GET /events}. Bounded;
 * safe for concurrent use (listeners run on listwatch's dispatch threads).
 */
@Component
public class EventLog {

	private static final int CAPACITY = 500;

	private final Deque<Entry> entries = new ArrayDeque<>();

	void record(String listener, String watch, String type, String key, boolean initialList) {
		synchronized (this.entries) {
			if (this.entries.size() == CAPACITY) {
				this.entries.removeFirst();
			}
			this.entries.addLast(new Entry(Instant.now(), listener, watch, type, key, initialList));
		}
	}

	/**
	 * The recorded events.
	 * @return a snapshot, oldest first
	 */
	public List<Entry> entries() {
		synchronized (this.entries) {
			return List.copyOf(new ArrayList<>(this.entries));
		}
	}

	/**
	 * One recorded event.
	 *
	 * @param time when the listener saw it
	 * @param listener which listener recorded it
	 * @param watch the watch's name
	 * @param type ADDED, MODIFIED, DELETED, or SYNCED for a {@code WatchSyncedEvent}
	 * @param key {@code namespace/name}, or the number of objects for SYNCED
	 * @param initialList whether the event came from the watch's initial list
	 */
	public record Entry(Instant time, String listener, String watch, String type, String key, boolean initialList) {

	}

}
