package dev.listwatch.autoconfigure;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.listwatch.informer.WatchDeclaration;
import org.jspecify.annotations.Nullable;

/**
 * The watches declared in configuration whose informers code may share, by declaration:
 * filled by {@link WatchBeanRegistrar} as it registers (or, in a run of the code
 * generated ahead of time, checks) the watches' beans, read by
 * {@link ConfiguredDeclarations} when code declares a watch. Of several watches with the
 * same declaration, the first offered is the one shared. Thread-safe.
 */
final class ShareableWatches {

	/** The names of the watches whose declaration code can share, by declaration. */
	private final Map<WatchDeclaration<?>, String> shareable = new ConcurrentHashMap<>();

	/**
	 * Offers a watch for sharing, unless a watch with an equal declaration was offered
	 * before.
	 * @param declaration the declaration, its resync period resolved
	 * @param name the watch's name
	 */
	void offer(WatchDeclaration<?> declaration, String name) {
		this.shareable.putIfAbsent(declaration, name);
	}

	/**
	 * The name of the watch declared in configuration with this declaration, when code
	 * may share it (its lister-watcher is not the application's own).
	 * @param declaration the declaration, its resync period resolved
	 * @return the watch's name, or {@code null}
	 */
	@Nullable String configured(WatchDeclaration<?> declaration) {
		return this.shareable.get(declaration);
	}

}
