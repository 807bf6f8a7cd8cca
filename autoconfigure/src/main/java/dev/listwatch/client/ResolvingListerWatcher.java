package dev.listwatch.client;

import java.util.Objects;

import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.Resource;
import dev.listwatch.WatchStream;
import org.jspecify.annotations.Nullable;

/**
 * A lister-watcher that finds its resource through API discovery on first use, so that creating
 * it needs no connection; until then {@link #resource()} describes what was declared.
 *
 * @param <T> the Java type of the objects
 */
final class ResolvingListerWatcher<T> implements ListerWatcher<T> {

	private final ApiServerClient client;

	private final ApiServerClient.Target target;

	private final ObjectDecoder<T> decoder;

	private final int maxEventBytes;

	private volatile @Nullable HttpListerWatcher<T> resolved;

	ResolvingListerWatcher(ApiServerClient client, ApiServerClient.Target target, ObjectDecoder<T> decoder,
			int maxEventBytes) {
		this.client = client;
		this.target = target;
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

	private HttpListerWatcher<T> delegate() {
		HttpListerWatcher<T> delegate = this.resolved;
		if (delegate == null) {
			Resource resource = this.client.resolve(this.target.apiVersion(), this.target.kind(),
					this.target.resource(), this.target.namespace());
			delegate = new HttpListerWatcher<>(this.client, resource, this.decoder, this.maxEventBytes);
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
		String apiVersion = this.target.apiVersion();
		String plural = (this.target.resource() != null) ? this.target.resource()
				: Objects.requireNonNull(this.target.kind(), "a Target gives a kind or a resource");
		return new Resource(ApiServerClient.Target.group(apiVersion), ApiServerClient.Target.version(apiVersion), plural,
				this.target.kind(), this.target.namespace() != null, this.target.namespace());
	}

	@Override
	public String toString() {
		return "ListerWatcher[" + resource() + (this.decoder.metadataOnly() ? ", metadata only" : "")
				+ (this.decoder.compressesObjects() ? ", objects compressed" : "") + "]";
	}

}
