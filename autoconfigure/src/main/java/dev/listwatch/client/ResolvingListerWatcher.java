package dev.listwatch.client;

import java.util.function.Supplier;

import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.Resource;
import dev.listwatch.WatchStream;
import org.jspecify.annotations.Nullable;

/**
 * A lister-watcher that finds its resource through API discovery on first use, so that
 * creating it needs no connection; until then {@link #resource()} describes what was
 * declared.
 *
 * @param <T> the Java type of the objects
 */
final class ResolvingListerWatcher<T> implements ListerWatcher<T> {

	private final ApiExchange exchange;

	/** What was declared: the resource until it is resolved. */
	private final Resource declared;

	/** Finds the resource through API discovery. */
	private final Supplier<Resource> resolver;

	private final ObjectDecoder<T> decoder;

	private final int maxEventBytes;

	private volatile @Nullable HttpListerWatcher<T> resolved;

	ResolvingListerWatcher(ApiExchange exchange, Resource declared, Supplier<Resource> resolver,
			ObjectDecoder<T> decoder, int maxEventBytes) {
		this.exchange = exchange;
		this.declared = declared;
		this.resolver = resolver;
		this.decoder = decoder;
		this.maxEventBytes = maxEventBytes;
	}

	/**
	 * Resolves the resource now.
	 * @return the resource
	 */
	Resource resolve() {
		return delegate().resource();
	}

	/**
	 * Whether the resource is resolved.
	 * @return whether it is
	 */
	boolean isResolved() {
		return this.resolved != null;
	}

	private HttpListerWatcher<T> delegate() {
		HttpListerWatcher<T> delegate = this.resolved;
		if (delegate == null) {
			Resource resource = this.resolver.get();
			delegate = new HttpListerWatcher<>(this.exchange, resource, this.decoder, this.maxEventBytes);
			this.resolved = delegate;
		}
		return delegate;
	}

	@Override
	public ObjectList<T> list(ListOptions options) {
		return delegate().list(options);
	}

	@Override
	public WatchStream<T> watch(ListOptions options) {
		return delegate().watch(options);
	}

	@Override
	public Resource resource() {
		HttpListerWatcher<T> delegate = this.resolved;
		if (delegate != null) {
			return delegate.resource();
		}
		return this.declared;
	}

	@Override
	public String toString() {
		return "ListerWatcher[" + resource() + (this.decoder.metadataOnly() ? ", metadata only" : "")
				+ (this.decoder.compressesObjects() ? ", objects compressed" : "") + "]";
	}

}
