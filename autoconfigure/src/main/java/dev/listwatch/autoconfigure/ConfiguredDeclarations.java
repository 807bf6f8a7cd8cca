package dev.listwatch.autoconfigure;

import dev.listwatch.ListerWatcher;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.WatchDeclaration;
import dev.listwatch.metrics.ListwatchMeterBinder;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * What the {@code listwatchInformerFactory} bean needs for watches declared in code:
 * their lister-watchers from the {@link ApiServerClient} with the configured decoding,
 * the informers of equal declarations under {@code listwatch.watches} (the beans, made on
 * demand), and a way to make each new informer a singleton that health, the endpoint and
 * the meters see like the others.
 */
final class ConfiguredDeclarations implements InformerFactory.Declarations {

	private static final boolean METRICS_PRESENT = ClassUtils.isPresent("io.micrometer.core.instrument.MeterRegistry",
			ConfiguredDeclarations.class.getClassLoader());

	private final ConfigurableListableBeanFactory beanFactory;

	private final ShareableWatches shareable;

	ConfiguredDeclarations(ConfigurableListableBeanFactory beanFactory, ShareableWatches shareable) {
		this.beanFactory = beanFactory;
		this.shareable = shareable;
	}

	@Override
	public <T> ListerWatcher<T> listerWatcher(WatchDeclaration<T> declaration, @Nullable String namespace) {
		return listerWatcher(this.beanFactory, declaration, namespace, null, null);
	}

	/**
	 * The lister-watcher of a declaration in one namespace, through the application's API
	 * server client, decoded as {@code listwatch.defaults} say unless the watch says
	 * otherwise.
	 * @param <T> the Java type of the objects
	 * @param beanFactory where the client and the properties are
	 * @param declaration what to list and watch
	 * @param namespace the namespace, or {@code null} for all
	 * @param keepManagedFields the watch's own setting, or {@code null} for the default
	 * @param compressObjects the watch's own setting, or {@code null} for the default
	 * @return the lister-watcher
	 */
	static <T> ListerWatcher<T> listerWatcher(ConfigurableListableBeanFactory beanFactory,
			WatchDeclaration<T> declaration, @Nullable String namespace, @Nullable Boolean keepManagedFields,
			@Nullable Boolean compressObjects) {
		ListwatchProperties.Defaults defaults = beanFactory.getBean(ListwatchProperties.class).getDefaults();
		long maxEventBytes = defaults.getMaxEventSize().toBytes();
		ApiServerClient.Decoding decoding = new ApiServerClient.Decoding(declaration.metadataOnly(),
				(keepManagedFields != null) ? keepManagedFields : defaults.isKeepManagedFields(),
				(int) Math.min(Integer.MAX_VALUE - 16, Math.max(1024, maxEventBytes)),
				(compressObjects != null) ? compressObjects : defaults.isCompressObjects());
		return beanFactory.getBean(ApiServerClient.class)
			.listerWatcher(new ApiServerClient.Target(declaration.apiVersion(), declaration.kind(),
					declaration.resource(), namespace), declaration.type(), decoding);
	}

	@Override
	public @Nullable Informer<?> configured(WatchDeclaration<?> declaration) {
		String name = this.shareable.configured(declaration);
		if (name == null || DeclaredWatches.transforms(this.beanFactory)
			.stream()
			.anyMatch((transform) -> transform.watch().equals(name))) {
			// none, or one whose objects a WatchTransform bean reshapes: code gets its
			// own
			return null;
		}
		return this.beanFactory.getBean(name + DeclaredWatches.INFORMER, Informer.class);
	}

	@Override
	public void made(Informer<?> informer) {
		String bean = informer.watch() + DeclaredWatches.INFORMER;
		if (this.beanFactory.containsBean(bean)) {
			throw new IllegalStateException("Watch name '" + informer.watch() + "' is taken: the bean '" + bean
					+ "' exists. Name the informer declared in code differently.");
		}
		this.beanFactory.registerSingleton(bean, informer);
		if (METRICS_PRESENT) {
			Meters.bind(this.beanFactory, informer);
		}
	}

	/** Apart, so that this class loads without Micrometer. */
	private static final class Meters {

		static void bind(ConfigurableListableBeanFactory beanFactory, Informer<?> informer) {
			beanFactory.getBeanProvider(ListwatchMeterBinder.class).ifAvailable((binder) -> binder.bind(informer));
		}

	}

}
