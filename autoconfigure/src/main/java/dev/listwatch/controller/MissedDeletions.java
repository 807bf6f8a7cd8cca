package dev.listwatch.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The deletions a leader-only controller's watch saw lately, so that the replica that
 * becomes leader next reconciles them: a deletion that fell between the last reconcile of
 * the old leader and the start of the new one (seen by the new leader's watch while it
 * was a follower, and dropped there), or one the old leader left queued when it stopped.
 * Each key is kept {@link #KEEP} from its deletion, at most {@link #MAX} keys (the oldest
 * go first). Reconciling a key whose object is gone and whose deletion was handled
 * already is harmless for a level-triggered reconciler. Thread-safe.
 */
final class MissedDeletions {

	/** How long a deletion is kept for the next term. */
	static final Duration KEEP = Duration.ofMinutes(10);

	/** How many deletions are kept at most. */
	static final int MAX = 100_000;

	private final LongSupplier ticker;

	/** The keys deleted, with when, the oldest first; guarded by this. */
	private final LinkedHashMap<String, Long> keys = new LinkedHashMap<>();

	MissedDeletions(LongSupplier ticker) {
		this.ticker = ticker;
	}

	/**
	 * The watch saw a key deleted.
	 * @param key the key
	 */
	synchronized void deleted(String key) {
		long now = this.ticker.getAsLong();
		this.keys.remove(key);
		this.keys.put(key, now);
		forgetOld(now);
	}

	/**
	 * The keys deleted within {@link #KEEP}.
	 * @return the keys, the oldest deletion first
	 */
	synchronized List<String> recent() {
		forgetOld(this.ticker.getAsLong());
		return new ArrayList<>(this.keys.keySet());
	}

	private void forgetOld(long now) {
		long keep = KEEP.toNanos();
		Iterator<Map.Entry<String, Long>> oldest = this.keys.entrySet().iterator();
		while (oldest.hasNext()) {
			Map.Entry<String, Long> entry = oldest.next();
			if (this.keys.size() <= MAX && now - entry.getValue() - keep < 0) {
				return;
			}
			oldest.remove();
		}
	}

}
