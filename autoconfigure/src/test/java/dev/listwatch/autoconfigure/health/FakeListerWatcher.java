package dev.listwatch.autoconfigure.health;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.listwatch.Items;
import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Resource;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStream;

/**
 * An in-memory API server for one resource (ConfigMaps in {@code default}): lists what it
 * holds, streams what is added, and can be held before its first list, cut off and
 * brought back.
 */
public final class FakeListerWatcher implements ListerWatcher<KubernetesObject> {

	private final Map<String, KubernetesObject> objects = new ConcurrentSkipListMap<>();

	private final AtomicLong resourceVersion = new AtomicLong(100);

	private final CountDownLatch firstList = new CountDownLatch(1);

	private volatile boolean down;

	private volatile QueueStream current;

	/** Holds the first list until {@link #releaseList()}. */
	public static FakeListerWatcher held() {
		return new FakeListerWatcher();
	}

	/** Lists at once. */
	public static FakeListerWatcher open() {
		FakeListerWatcher fake = new FakeListerWatcher();
		fake.releaseList();
		return fake;
	}

	public void releaseList() {
		this.firstList.countDown();
	}

	/** Adds an object, sending ADDED to the open watch. */
	public synchronized void add(String name) {
		KubernetesObject object = object(name, Long.toString(this.resourceVersion.incrementAndGet()));
		this.objects.put(name, object);
		QueueStream stream = this.current;
		if (stream != null) {
			stream.events.add(new WatchEvent<>(WatchEvent.Type.ADDED, object, object.metadata(), null, false));
		}
	}

	/** Deletes an object, sending DELETED to the open watch. */
	public synchronized void delete(String name) {
		KubernetesObject object = this.objects.remove(name);
		QueueStream stream = this.current;
		if (object != null && stream != null) {
			KubernetesObject gone = object(name, Long.toString(this.resourceVersion.incrementAndGet()));
			stream.events.add(new WatchEvent<>(WatchEvent.Type.DELETED, gone, gone.metadata(), null, false));
		}
	}

	/**
	 * Changes an object into a state the watch's type cannot hold: the open watch gets a
	 * MODIFIED whose object could not be bound.
	 */
	public synchronized void breakBinding(String name) {
		ObjectMeta meta = new ObjectMeta("default", name, "uid-" + name,
				Long.toString(this.resourceVersion.incrementAndGet()), Map.of());
		QueueStream stream = this.current;
		if (stream != null) {
			stream.events.add(WatchEvent.unbindable(WatchEvent.Type.MODIFIED,
					new UnbindableObject(meta, "/data/mode", "com.example.Settings", "not a valid value of Mode")));
		}
	}

	/** Refuses every request and ends the open watch, as an API server that went away. */
	public void cutOff() {
		this.down = true;
		QueueStream stream = this.current;
		if (stream != null) {
			stream.close();
		}
	}

	/** Answers again. */
	public void restore() {
		this.down = false;
	}

	@Override
	public ObjectList<KubernetesObject> list(ListOptions options) {
		try {
			this.firstList.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		refuseIfDown("GET /api/v1/namespaces/default/configmaps");
		synchronized (this) {
			List<KubernetesObject> items = new ArrayList<>(this.objects.values());
			return new ObjectList<>(Items.zip(items.stream().map(KubernetesObject::metadata).toList(), items),
					Long.toString(this.resourceVersion.get()), null, null);
		}
	}

	@Override
	public synchronized WatchStream<KubernetesObject> watch(ListOptions options) {
		if (Boolean.TRUE.equals(options.sendInitialEvents())) {
			throw new KubernetesApiException(KubernetesApiException.Kind.BAD_REQUEST, "no streaming lists here", null);
		}
		refuseIfDown("GET /api/v1/namespaces/default/configmaps?watch=1");
		QueueStream stream = new QueueStream();
		this.current = stream;
		return stream;
	}

	@Override
	public Resource resource() {
		return new Resource("", "v1", "configmaps", "ConfigMap", true, "default");
	}

	private void refuseIfDown(String request) {
		if (this.down) {
			throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION,
					request + " failed: Connection refused", null);
		}
	}

	static KubernetesObject object(String name, String resourceVersion) {
		ObjectMeta meta = new ObjectMeta("default", name, "uid-" + name, resourceVersion, Map.of());
		String json = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"namespace\":\"default\",\"name\":\""
				+ name + "\",\"resourceVersion\":\"" + resourceVersion + "\"}}";
		return KubernetesObject.of(meta, "v1", "ConfigMap", json.getBytes(StandardCharsets.UTF_8));
	}

	private static final class QueueStream implements WatchStream<KubernetesObject> {

		final BlockingQueue<WatchEvent<KubernetesObject>> events = new LinkedBlockingQueue<>();

		private volatile boolean closed;

		private WatchEvent<KubernetesObject> next;

		@Override
		public boolean hasNext() {
			while (this.next == null && !this.closed) {
				try {
					this.next = this.events.poll(20, TimeUnit.MILLISECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			}
			return this.next != null && !this.closed;
		}

		@Override
		public WatchEvent<KubernetesObject> next() {
			if (!hasNext()) {
				throw new NoSuchElementException();
			}
			WatchEvent<KubernetesObject> event = this.next;
			this.next = null;
			return event;
		}

		@Override
		public void close() {
			this.closed = true;
		}

	}

}
