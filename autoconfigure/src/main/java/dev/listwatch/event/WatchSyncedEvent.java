package dev.listwatch.event;

import org.springframework.context.ApplicationEvent;

/**
 * A watch has finished its initial list: its cache holds every object, and the ADDED
 * events of the initial list have all been published before this one.
 * <p>
 * Published once per watch, for its first complete list (not again after a relist or a
 * stop and start), on the watch's dispatch thread like its {@link ResourceEvent}s, never
 * on the thread that reads the watch.
 */
public final class WatchSyncedEvent extends ApplicationEvent {

	private final String watch;

	private final int objects;

	/**
	 * Makes an event.
	 * @param source the informer
	 * @param watch the watch's name
	 * @param objects the number of objects cached at the sync
	 */
	public WatchSyncedEvent(Object source, String watch, int objects) {
		super(source);
		this.watch = watch;
		this.objects = objects;
	}

	/**
	 * @return the name of the watch
	 */
	public String watch() {
		return this.watch;
	}

	/**
	 * @return the name of the watch, for SpEL conditions
	 */
	public String getWatch() {
		return this.watch;
	}

	/**
	 * @return the number of objects cached when the sync completed
	 */
	public int objects() {
		return this.objects;
	}

	@Override
	public String toString() {
		return "WatchSyncedEvent[" + this.watch + ", " + this.objects + " objects]";
	}

}
