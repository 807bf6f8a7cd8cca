package dev.listwatch.controller;

import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import dev.listwatch.ObjectMeta;

/**
 * One key to reconcile, and the object as the watch's cache holds it when the reconcile
 * starts.
 *
 * @param <T> the Java type of the watch's objects
 */
public final class Request<T> {

	private static final BooleanSupplier ALWAYS = () -> true;

	private final String key;

	private final Optional<T> object;

	private final int failures;

	private final BooleanSupplier owned;

	/**
	 * Makes a request, for a reconcile outside a controller (a test).
	 * @param key the object's key: {@code namespace/name}, or {@code name} for a
	 * cluster-scoped object
	 * @param object the object as cached now; empty when it is gone (deleted, or never
	 * there)
	 * @param failures how often the reconcile of this key failed in a row before this one
	 */
	public Request(String key, Optional<T> object, int failures) {
		this(key, object, failures, ALWAYS);
	}

	Request(String key, Optional<T> object, int failures, BooleanSupplier owned) {
		this.key = Objects.requireNonNull(key, "key");
		this.object = Objects.requireNonNull(object, "object");
		this.failures = failures;
		this.owned = owned;
	}

	/**
	 * The object's key.
	 * @return {@code namespace/name}, or {@code name} for a cluster-scoped object
	 */
	public String key() {
		return this.key;
	}

	/**
	 * The object as the cache held it when the reconcile started.
	 * @return the object; empty when it is gone (deleted, or never there)
	 */
	public Optional<T> object() {
		return this.object;
	}

	/**
	 * How often the reconcile of this key failed in a row before this one.
	 * @return the count, 0 for a key not failing
	 */
	public int failures() {
		return this.failures;
	}

	/**
	 * Whether this replica still reconciles this key now. True for the whole reconcile of
	 * a controller that runs everywhere. False, from the moment it happens, once a
	 * sharded controller's replica has given up the key's shard or passed its renew
	 * deadline, or a leader-only controller's replica is no longer leader. Ask it just
	 * before an effect that must not happen on two replicas at once, and give up (return
	 * or throw) when it is false. A true answer means no other replica may take the key
	 * over before the margin {@code lease-duration - renew-deadline} has passed (on this
	 * machine's monotonic clock, even if this process was frozen before the question): an
	 * effect sent within that margin of the answer cannot meet another replica's. An
	 * effect that waits longer (a GC pause, a request budget, a retry), or one already
	 * sent when this process froze, is covered only by the API server's own check: write
	 * with a resourceVersion, and a 409 refuses the stale write once the new owner has
	 * written. {@code ResourceWriter.update} and {@code updateStatus} do so by default
	 * (the object's {@code metadata.resourceVersion}, as read from the cache); a merge or
	 * JSON patch does when it carries {@code metadata.resourceVersion} (or a JSON patch
	 * {@code test} of it); a delete with {@code DeleteOptions.withResourceVersion}.
	 * Server-side apply and unconditional patches cannot be refused this way: keep their
	 * effects idempotent.
	 * @return whether the key is still this replica's
	 */
	public boolean stillOwned() {
		return this.owned.getAsBoolean();
	}

	/**
	 * The namespace of the key.
	 * @return the namespace, or empty for a cluster-scoped object
	 */
	public Optional<String> namespace() {
		int slash = this.key.indexOf('/');
		return (slash < 0) ? Optional.empty() : Optional.of(this.key.substring(0, slash));
	}

	/**
	 * The name of the key.
	 * @return the name
	 */
	public String name() {
		int slash = this.key.indexOf('/');
		return (slash < 0) ? this.key : this.key.substring(slash + 1);
	}

	/**
	 * The key of an object's metadata.
	 * @param meta the metadata
	 * @return its key, as requests carry it
	 */
	static String keyOf(ObjectMeta meta) {
		String name = meta.name();
		return ObjectMeta.key(meta.namespace(), (name != null) ? name : "");
	}

	@Override
	public String toString() {
		return "Request[" + this.key + ", " + (this.object.isPresent() ? "cached" : "gone") + ", failures "
				+ this.failures + "]";
	}

}
