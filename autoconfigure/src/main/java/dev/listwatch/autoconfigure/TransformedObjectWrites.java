package dev.listwatch.autoconfigure;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectTransform;
import dev.listwatch.Resource;
import dev.listwatch.client.WholeObjectWrites;
import dev.listwatch.informer.Informer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Refuses to write whole an object read from a watch whose objects are transformed
 * ({@code keep}, {@code drop}, a {@link dev.listwatch.WatchTransform}): an update would
 * remove on the server what the transform left out. An object is taken for one read from
 * such a watch when the watch caches its key and it is the cached instance, or it has the
 * cached resourceVersion and the transform finds nothing in it to change (it lacks what
 * the transform leaves out). An object read from the server ({@code get}, the answer of a
 * write) holds what the transform leaves out, and is written.
 */
final class TransformedObjectWrites implements WholeObjectWrites {

	private final ObjectProvider<Informer<?>> informers;

	TransformedObjectWrites(ObjectProvider<Informer<?>> informers) {
		this.informers = informers;
	}

	@Override
	public @Nullable String refusal(Write write) {
		for (Informer<?> informer : this.informers) {
			String refusal = refusal(informer, write);
			if (refusal != null) {
				return refusal;
			}
		}
		return null;
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static @Nullable String refusal(Informer<?> informer, Write write) {
		ObjectTransform transform = informer.transform();
		if (transform == null || !watches(informer, write.resource())) {
			return null;
		}
		Optional<?> cached = informer.lister().get(write.key());
		if (cached.isEmpty()) {
			return null;
		}
		boolean transformed = cached.get() == write.object();
		if (!transformed && write.resourceVersion() != null && write.resourceVersion()
			.equals(write.tree(cached.get()).path("metadata").path("resourceVersion").asString(null))) {
			Object copy = write.copyAs(informer.type());
			Object other = write.copyAs(informer.type());
			try {
				transformed = copy != null && other != null
						&& write.tree(transform.transform(copy)).equals(write.tree(other));
			}
			catch (RuntimeException ex) {
				// a transform that cannot take it: not an object it made
				transformed = false;
			}
		}
		if (!transformed) {
			return null;
		}
		String described = String.valueOf(transform);
		if (described.contains("$$Lambda") || described.contains("$Lambda")) {
			described = "a transform set in code";
		}
		return "it comes from the cache of watch '" + informer.watch() + "', whose objects are transformed ("
				+ described + "): written whole, it would remove on the server what the transform left out. "
				+ "Write it with patch() or apply() (server-side apply), which change only the fields sent, "
				+ "or update an object read with get()";
	}

	/** Whether an informer watches objects of a resource. */
	private static boolean watches(Informer<?> informer, Resource resource) {
		List<? extends ListerWatcher<?>> listerWatchers = informer.listerWatchers();
		for (ListerWatcher<?> listerWatcher : listerWatchers) {
			Resource watched = listerWatcher.resource();
			if (Objects.equals(watched.group(), resource.group())
					&& Objects.equals(watched.version(), resource.version())
					&& (Objects.equals(watched.plural(), resource.plural())
							|| (watched.kind() != null && Objects.equals(watched.kind(), resource.kind())))) {
				return true;
			}
		}
		return false;
	}

}
