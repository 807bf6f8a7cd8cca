package dev.listwatch;

import java.util.ArrayList;
import java.util.List;

/**
 * Pairs metadata and objects into list items, for tests that write them side by side.
 */
public final class Items {

	private Items() {
	}

	/**
	 * Pairs metadata and objects, index for index.
	 * @param <T> the Java type of the objects
	 * @param metas the metadata
	 * @param objects the objects
	 * @return the items
	 * @throws IllegalArgumentException when the lists differ in size
	 */
	public static <T> List<ObjectList.Item<T>> zip(List<ObjectMeta> metas, List<T> objects) {
		if (metas.size() != objects.size()) {
			throw new IllegalArgumentException(metas.size() + " metas but " + objects.size() + " objects");
		}
		List<ObjectList.Item<T>> items = new ArrayList<>(metas.size());
		for (int i = 0; i < metas.size(); i++) {
			items.add(new ObjectList.Item<>(metas.get(i), objects.get(i)));
		}
		return items;
	}

}
