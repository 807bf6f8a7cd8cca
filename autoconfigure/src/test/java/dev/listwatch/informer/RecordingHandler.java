package dev.listwatch.informer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.listwatch.ObjectList;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;

/**
 * Records what a {@link Reflector} delivers, as strings:
 * {@code replace initial=true [a@1, b@1]} and {@code ADDED c@2}. Calls can be awaited one
 * by one.
 */
final class RecordingHandler implements ReflectorHandler<String> {

	private static final Duration WAIT = Duration.ofSeconds(10);

	final List<String> calls = new CopyOnWriteArrayList<>();

	private final LinkedBlockingQueue<String> arrivals = new LinkedBlockingQueue<>();

	/** Thrown by the next apply, once, when set. */
	volatile Throwable failNextApply;

	/**
	 * Runs after each apply, on the reflector's thread (a test stops the reflector
	 * there).
	 */
	volatile Runnable afterApply = () -> {
	};

	@Override
	public void replace(List<ObjectList.Item<String>> items, List<UnbindableObject> unbindable, boolean initial) {
		for (ObjectList.Item<String> item : items) {
			if (!item.object().startsWith(item.meta().name() + "@")) {
				throw new AssertionError("meta " + item.meta() + " does not go with " + item.object());
			}
		}
		record("replace initial=" + initial + " " + items.stream().map(ObjectList.Item::object).toList()
				+ (unbindable.isEmpty() ? ""
						: " unbindable " + unbindable.stream().map(UnbindableObject::key).toList()));
	}

	@Override
	public void apply(WatchEvent<String> event) {
		Throwable failure = this.failNextApply;
		if (failure != null) {
			this.failNextApply = null;
			if (failure instanceof Error error) {
				throw error;
			}
			throw (RuntimeException) failure;
		}
		record(event.type() + " "
				+ ((event.unbindable() != null) ? "unbindable " + event.meta().key() : event.object()));
		this.afterApply.run();
	}

	/** How many calls had been recorded at each {@link #release()}. */
	final LinkedBlockingQueue<Integer> releases = new LinkedBlockingQueue<>();

	@Override
	public void release() {
		this.releases.add(this.calls.size());
	}

	private void record(String call) {
		this.calls.add(call);
		this.arrivals.add(call);
	}

	/**
	 * Waits for the next call not yet awaited.
	 * @return the call
	 */
	String next() {
		try {
			String call = this.arrivals.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
			if (call == null) {
				throw new AssertionError("No handler call within " + WAIT + "; calls so far: " + this.calls);
			}
			return call;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError(ex);
		}
	}

}
