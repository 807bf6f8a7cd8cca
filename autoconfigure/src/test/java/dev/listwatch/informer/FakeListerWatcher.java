package dev.listwatch.informer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.listwatch.Items;
import dev.listwatch.KubernetesApiException;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Resource;
import dev.listwatch.Status;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStream;

/**
 * An in-memory {@link ListerWatcher} that answers from a script: each {@code list} takes
 * the next scripted page or failure, each {@code watch} the next scripted stream or
 * failure. Every request is recorded, in order, and can be awaited. Objects are strings
 * {@code name@rv}. When the watch script runs dry, a watch opens a stream that stays
 * silent until closed; when the list script runs dry, a list fails as a refused
 * connection would.
 */
final class FakeListerWatcher implements ListerWatcher<String> {

	static final String NAMESPACE = "ns";

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final LinkedBlockingQueue<Object> lists = new LinkedBlockingQueue<>();

	private final LinkedBlockingQueue<Object> watches = new LinkedBlockingQueue<>();

	/** Every request, in order: {@code LIST} or {@code WATCH} with its options. */
	final List<Request> requests = new CopyOnWriteArrayList<>();

	private final LinkedBlockingQueue<Request> arrivals = new LinkedBlockingQueue<>();

	/** Every stream opened, scripted or silent. */
	final List<FakeStream> opened = new CopyOnWriteArrayList<>();

	record Request(boolean watch, ListOptions options, long nanos) {

		Request(boolean watch, ListOptions options) {
			this(watch, options, System.nanoTime());
		}

		@Override
		public String toString() {
			return (this.watch ? "WATCH " : "LIST ") + this.options;
		}

	}

	FakeListerWatcher page(String resourceVersion, String continueToken, String... objects) {
		this.lists.add(objectList(resourceVersion, continueToken, objects));
		return this;
	}

	FakeListerWatcher page(ObjectList<String> page) {
		this.lists.add(page);
		return this;
	}

	FakeListerWatcher listFails(RuntimeException failure) {
		this.lists.add(failure);
		return this;
	}

	FakeListerWatcher stream(FakeStream stream) {
		this.watches.add(stream);
		return this;
	}

	FakeListerWatcher watchFails(RuntimeException failure) {
		this.watches.add(failure);
		return this;
	}

	@Override
	public ObjectList<String> list(ListOptions options) {
		record(new Request(false, options));
		Object next = this.lists.poll();
		if (next == null) {
			throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION, "LIST: no more scripted pages",
					null);
		}
		if (next instanceof RuntimeException failure) {
			throw failure;
		}
		@SuppressWarnings("unchecked")
		ObjectList<String> page = (ObjectList<String>) next;
		return page;
	}

	@Override
	public WatchStream<String> watch(ListOptions options) {
		record(new Request(true, options));
		Object next = this.watches.poll();
		if (next instanceof RuntimeException failure) {
			throw failure;
		}
		FakeStream stream = (next != null) ? (FakeStream) next : new FakeStream();
		this.opened.add(stream);
		return stream;
	}

	static final Resource RESOURCE = new Resource("", "v1", "things", "Thing", true, NAMESPACE);

	@Override
	public Resource resource() {
		return RESOURCE;
	}

	private void record(Request request) {
		this.requests.add(request);
		this.arrivals.add(request);
	}

	/**
	 * Waits for the next request not yet awaited.
	 * @return the request
	 */
	Request nextRequest() {
		try {
			Request request = this.arrivals.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
			if (request == null) {
				throw new AssertionError("No request within " + WAIT + "; requests so far: " + this.requests);
			}
			return request;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError(ex);
		}
	}

	long listCount() {
		return this.requests.stream().filter((r) -> !r.watch()).count();
	}

	// ---------------------------------------------------------------- building blocks

	static ObjectMeta meta(String name, String resourceVersion) {
		return new ObjectMeta(NAMESPACE, name, "uid-" + name, resourceVersion, Map.of());
	}

	static ObjectList<String> objectList(String resourceVersion, String continueToken, String... objects) {
		List<String> items = new ArrayList<>();
		List<ObjectMeta> metas = new ArrayList<>();
		for (String object : objects) {
			String[] nameAndVersion = object.split("@");
			items.add(object);
			metas.add(meta(nameAndVersion[0], nameAndVersion[1]));
		}
		return new ObjectList<>(Items.zip(metas, items), resourceVersion, continueToken, null);
	}

	static WatchEvent<String> event(WatchEvent.Type type, String object) {
		String[] nameAndVersion = object.split("@");
		return new WatchEvent<>(type, object, meta(nameAndVersion[0], nameAndVersion[1]), null, false);
	}

	static WatchEvent<String> bookmark(String resourceVersion) {
		return new WatchEvent<>(WatchEvent.Type.BOOKMARK, null, new ObjectMeta(null, "", null, resourceVersion, null),
				null, false);
	}

	static WatchEvent<String> initialEventsEnd(String resourceVersion) {
		return new WatchEvent<>(WatchEvent.Type.BOOKMARK, null, new ObjectMeta(null, "", null, resourceVersion, null),
				null, true);
	}

	static WatchEvent<String> error(int code, String reason, String message) {
		return new WatchEvent<>(WatchEvent.Type.ERROR, null, null, new Status(code, reason, message), false);
	}

	static KubernetesApiException apiError(int code, String reason, Duration retryAfter) {
		return apiError(code, reason, retryAfter, "scripted");
	}

	static KubernetesApiException apiError(int code, String reason, Duration retryAfter, String message) {
		return KubernetesApiException.of("GET /api/v1/namespaces/ns/things", new Status(code, reason, message),
				retryAfter);
	}

	static KubernetesApiException disconnected() {
		return new KubernetesApiException(KubernetesApiException.Kind.CONNECTION, "connection reset (scripted)", null);
	}

	/**
	 * A scripted watch stream: events, then a failure, an end, or silence until closed.
	 */
	static final class FakeStream implements WatchStream<String> {

		private static final Object END = new Object();

		private static final Object CLOSED = new Object();

		private final LinkedBlockingQueue<Object> items = new LinkedBlockingQueue<>();

		private volatile boolean closed;

		private Object peeked;

		FakeStream events(WatchEvent<?>... events) {
			this.items.addAll(List.of(events));
			return this;
		}

		/** The next read fails as a broken connection does. */
		FakeStream breaks() {
			this.items.add(disconnected());
			return this;
		}

		/** The next read fails with this. */
		FakeStream fails(RuntimeException failure) {
			this.items.add(failure);
			return this;
		}

		/** The server ends the stream (its timeout). */
		FakeStream ends() {
			this.items.add(END);
			return this;
		}

		boolean isClosed() {
			return this.closed;
		}

		/**
		 * Whether a scripted event waits to be read (a failure or the end scripted next
		 * is no event).
		 */
		@Override
		public boolean hasBuffered() {
			return this.peeked != null || this.items.peek() instanceof WatchEvent<?>;
		}

		@Override
		public boolean hasNext() {
			if (this.peeked != null) {
				return true;
			}
			if (this.closed) {
				return false;
			}
			Object item;
			try {
				// bounded, so that a test that goes wrong fails instead of hanging
				item = this.items.poll(60, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
			if (item == null || item == END || item == CLOSED || this.closed) {
				return false;
			}
			if (item instanceof RuntimeException failure) {
				throw failure;
			}
			this.peeked = item;
			return true;
		}

		@Override
		@SuppressWarnings("unchecked")
		public WatchEvent<String> next() {
			if (!hasNext()) {
				throw new NoSuchElementException();
			}
			WatchEvent<String> event = (WatchEvent<String>) this.peeked;
			this.peeked = null;
			return event;
		}

		@Override
		public void close() {
			this.closed = true;
			this.items.add(CLOSED);
		}

	}

}
