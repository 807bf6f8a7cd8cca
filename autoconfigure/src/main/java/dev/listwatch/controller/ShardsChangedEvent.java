package dev.listwatch.controller;

import java.util.Collections;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

import org.springframework.context.ApplicationEvent;

/**
 * The shards a sharded {@link Controller} runs on this replica changed: some started
 * (their keys are queued here), some stopped (handed over, or all of them at a self-fence
 * or a stop). The source is the controller.
 *
 * <p>
 * Published on a thread of the controller's own, one at a time and in order, after the
 * change took effect; a slow listener delays later events only, never the membership.
 */
public final class ShardsChangedEvent extends ApplicationEvent {

	private final String controller;

	private final SortedSet<Integer> shards;

	private final SortedSet<Integer> started;

	private final SortedSet<Integer> stopped;

	ShardsChangedEvent(Object source, String controller, Set<Integer> shards, Set<Integer> started,
			Set<Integer> stopped) {
		super(source);
		this.controller = controller;
		this.shards = Collections.unmodifiableSortedSet(new TreeSet<>(shards));
		this.started = Collections.unmodifiableSortedSet(new TreeSet<>(started));
		this.stopped = Collections.unmodifiableSortedSet(new TreeSet<>(stopped));
	}

	/**
	 * The controller's name.
	 * @return the name
	 */
	public String controller() {
		return this.controller;
	}

	/**
	 * The shards this replica runs now.
	 * @return the shards, sorted
	 */
	public SortedSet<Integer> shards() {
		return this.shards;
	}

	/**
	 * The shards this change started.
	 * @return the shards, sorted, perhaps empty
	 */
	public SortedSet<Integer> started() {
		return this.started;
	}

	/**
	 * The shards this change stopped.
	 * @return the shards, sorted, perhaps empty
	 */
	public SortedSet<Integer> stopped() {
		return this.stopped;
	}

	@Override
	public String toString() {
		return "ShardsChangedEvent[" + this.controller + ": runs " + this.shards + ", started " + this.started
				+ ", stopped " + this.stopped + "]";
	}

}
