package dev.listwatch.informer;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.ListOptions;
import dev.listwatch.ObjectList;
import dev.listwatch.ObjectList.Item;
import dev.listwatch.UnbindableObject;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Lists every page of a list, client-go's {@code tools/pager}: each next page asks with
 * the continue token alone (it carries the list's resourceVersion), and a continue token
 * that expired mid-list (410) falls back to one full list in one request, from scratch.
 */
final class Pager {

	private static final Log logger = LogFactory.getLog(Pager.class);

	private Pager() {
	}

	/**
	 * Lists all pages into {@code items} and {@code unbindable}.
	 * @param <T> the Java type of the objects
	 * @param name the watch's name, for the log
	 * @param first the options of the first page (its page size, selectors,
	 * resourceVersion)
	 * @param list sends one list request
	 * @param stopped whether the caller was stopped, asked after each page
	 * @param items where the objects go
	 * @param unbindable where the objects that cannot be held go
	 * @return the list's resourceVersion, or {@code null} when stopped before the last
	 * page (what was listed is then partial and must not be handed on)
	 * @throws KubernetesApiException when a request fails
	 */
	static <T> @Nullable String listAll(String name, ListOptions first, Function<ListOptions, ObjectList<T>> list,
			BooleanSupplier stopped, List<Item<T>> items, List<UnbindableObject> unbindable) {
		ListOptions options = first;
		String resourceVersion = null;
		while (true) {
			ObjectList<T> page;
			try {
				page = list.apply(options);
			}
			catch (KubernetesApiException ex) {
				if (ex.isGone() && options.continueToken() != null) {
					logger.info("Watch " + name + ": list continue token expired; listing in one request");
					items.clear();
					unbindable.clear();
					options = first.withLimit(null).withResourceVersion(null).withResourceVersionMatch(null);
					resourceVersion = null;
					continue;
				}
				throw ex;
			}
			if (stopped.getAsBoolean()) {
				return null;
			}
			if (resourceVersion == null) {
				resourceVersion = page.resourceVersion();
			}
			items.addAll(page.items());
			unbindable.addAll(page.unbindable());
			if (!page.hasMore()) {
				return resourceVersion;
			}
			options = options.withContinueToken(page.continueToken())
				.withResourceVersion(null)
				.withResourceVersionMatch(null);
		}
	}

}
