package dev.listwatch.informer;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.listwatch.event.ResourceEvent;
import dev.listwatch.event.WatchSyncedEvent;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.context.ApplicationEvent;

/**
 * The scaffolding of the informer tests over a scripted lister-watcher of strings: a
 * runtime whose published events are kept as text ({@code ADDED a@1 initial},
 * {@code MODIFIED a@2 old=a@1}, {@code DELETED a@3}, {@code SYNCED 2}), a wait for the
 * next of them, and the informers to stop after each test. One per test instance,
 * registered as an extension ({@code @RegisterExtension}), which stops them.
 */
final class InformerHarness implements AfterEachCallback {

	/** How long a test waits for an event or a state. */
	static final Duration WAIT = Duration.ofSeconds(10);

	private final List<String> published = new CopyOnWriteArrayList<>();

	private final LinkedBlockingQueue<String> arrivals = new LinkedBlockingQueue<>();

	private final InformerFactory runtime = new InformerFactory(Clock.systemUTC(), this::record, 1,
			Duration.ofMinutes(1));

	private final List<Informer<String>> informers = new ArrayList<>();

	/**
	 * The factory whose events are kept.
	 * @return the factory
	 */
	InformerFactory runtime() {
		return this.runtime;
	}

	/**
	 * Stops an informer after the test.
	 * @param informer the informer
	 * @return the informer
	 */
	Informer<String> stopsAfter(Informer<String> informer) {
		this.informers.add(informer);
		return informer;
	}

	/**
	 * Every event published so far, as text.
	 * @return the events
	 */
	List<String> published() {
		return this.published;
	}

	/**
	 * Waits for the next events, each within {@link #WAIT}.
	 * @param count how many
	 * @return them, as text, in the order they came
	 */
	List<String> next(int count) {
		List<String> events = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			try {
				String event = this.arrivals.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
				if (event == null) {
					throw new AssertionError("No event within " + WAIT + "; published so far: " + this.published);
				}
				events.add(event);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError(ex);
			}
		}
		return events;
	}

	/** Stops the informers, then the runtime. */
	@Override
	public void afterEach(ExtensionContext context) {
		this.informers.forEach(Informer::stop);
		this.runtime.close();
	}

	private void record(ApplicationEvent event) {
		String text;
		if (event instanceof ResourceEvent<?> resourceEvent) {
			text = resourceEvent.type() + " " + resourceEvent.object()
					+ ((resourceEvent.oldObject() != null) ? " old=" + resourceEvent.oldObject() : "")
					+ (resourceEvent.initialList() ? " initial" : "");
		}
		else if (event instanceof WatchSyncedEvent synced) {
			text = "SYNCED " + synced.objects();
		}
		else {
			return;
		}
		this.published.add(text);
		this.arrivals.add(text);
	}

}
