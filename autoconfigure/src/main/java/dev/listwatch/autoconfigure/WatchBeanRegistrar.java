package dev.listwatch.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ListerWatcher;
import dev.listwatch.WatchIndex;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import dev.listwatch.informer.WatchDeclaration;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.AotDetector;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Registers the beans of each watch declared under {@code listwatch.watches.<name>}:
 * {@code <name>ListerWatcher} (unless the application defines one), {@code <name>Informer} and
 * {@code <name>Lister}. Declarations that cannot work fail here, before any bean is made, with a
 * {@link WatchDeclarationException}. The definitions name static factory methods of
 * {@link WatchBeans}, so that ahead-of-time processing can generate them; in a run of the
 * generated code ({@code spring.aot.enabled}) this checks the declarations and records which
 * informers code may share, but registers nothing.
 */
final class WatchBeanRegistrar implements BeanDefinitionRegistryPostProcessor, Ordered {

	static final String LISTER_WATCHER = "ListerWatcher";

	static final String LISTER = "Lister";

	static final String INFORMER = "Informer";

	private final Environment environment;

	private final ClassLoader classLoader;

	/** The names of the watches whose declaration code can share, by declaration. */
	private final Map<WatchDeclaration<?>, String> shareable = new ConcurrentHashMap<>();

	WatchBeanRegistrar(Environment environment, ClassLoader classLoader) {
		this.environment = environment;
		this.classLoader = classLoader;
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
		// bound once for the registrar and the beans' factory methods (WatchBeans), not once each
		WatchBeans.Bound bound = WatchBeans.Bound.of(this.environment);
		ListwatchProperties.Defaults defaults = bound.defaults();
		Map<String, ListwatchProperties.Watch> enabled = bound.enabled();
		LeaderOnlyWatches.check(Binder.get(this.environment), enabled);
		enabled.forEach((name, watch) -> register(registry, name, watch, defaults));
	}

	/**
	 * The name of the watch declared in configuration with this declaration, when code may share
	 * it (its lister-watcher is not the application's own).
	 * @param declaration the declaration, its resync period resolved
	 * @return the watch's name, or {@code null}
	 */
	@Nullable String configured(WatchDeclaration<?> declaration) {
		return this.shareable.get(declaration);
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
	}

	private void register(BeanDefinitionRegistry registry, String name, ListwatchProperties.Watch watch,
			ListwatchProperties.Defaults defaults) {
		// source: etcd -> the etcd ListerWatcher bean (EtcdWatches); its informer and lister are the usual
		// ones, not shared by declaration (a WatchDeclaration names an API server resource)
		WatchBeans.Resolved resolved = WatchBeans.resolve(name, watch, defaults, this.environment,
				this.classLoader);
		Class<?> type = resolved.type();
		WatchDeclaration<?> declaration = resolved.declaration();
		String listerWatcherName = name + LISTER_WATCHER;
		if (AotDetector.useGeneratedArtifacts()) {
			// the beans are registered by the code generated ahead of time (WatchBeans); what code may
			// share is read from the informer's definition, as the build decided it
			Boolean shared = registry.containsBeanDefinition(name + INFORMER)
					? WatchBeans.shared(registry.getBeanDefinition(name + INFORMER)) : null;
			if (shared == null) {
				throw new WatchDeclarationException(name, null,
						"is declared, but was not when the application was processed ahead of time, so it has no beans",
						"Process the application ahead of time again (spring-boot:process-aot) with this "
								+ "configuration, or run it without -Dspring.aot.enabled=true.",
						null);
			}
			if (shared && declaration != null) {
				this.shareable.putIfAbsent(declaration, name);
			}
			return;
		}
		boolean own = registry.containsBeanDefinition(listerWatcherName);
		boolean namespaceSet = declaration != null && declaration.namespaces().size() > 1;
		if (own && namespaceSet) {
			throw new WatchDeclarationException(name, "namespaces", "are set, but the application defines the bean '"
					+ listerWatcherName + "', which would stand for one of the namespaces' watches",
					"Remove listwatch.watches." + name + ".namespaces, or the application's " + listerWatcherName
							+ " bean (the watch then has one lister-watcher per namespace).",
					null);
		}
		// a leader-only watch is not shared with code: code that starts an equal declaration's informer
		// would run it on followers, and a revoke would stop code's informer
		boolean shareable = !own && declaration != null && !watch.isLeaderOnly();
		if (shareable) {
			// of several watches that declare the same, code shares the first
			this.shareable.putIfAbsent(declaration, name);
		}
		if (!own && !namespaceSet) {
			registry.registerBeanDefinition(listerWatcherName, WatchBeans.listerWatcherDefinition(name, type));
		}
		registry.registerBeanDefinition(name + INFORMER, WatchBeans.informerDefinition(name, type, shareable));
		registry.registerBeanDefinition(name + LISTER, WatchBeans.listerDefinition(name, type));
	}

	/**
	 * The declaration of a watch in configuration, as code would make it.
	 * @param watch the watch's properties
	 * @param type its Java type
	 * @param metadataOnly whether it is metadata-only
	 * @param defaults listwatch.defaults
	 * @return the declaration, its resync period resolved
	 */
	static WatchDeclaration<?> declaration(ListwatchProperties.Watch watch, Class<?> type, boolean metadataOnly,
			ListwatchProperties.Defaults defaults) {
		List<String> namespaces = watch.getNamespaces().isEmpty()
				? ((blankToNull(watch.getNamespace()) != null) ? List.of(watch.getNamespace().trim()) : List.of())
				: watch.getNamespaces();
		Duration resync = (watch.getResyncPeriod() != null) ? watch.getResyncPeriod() : defaults.getResyncPeriod();
		return new WatchDeclaration<>(watch.getApiVersion(), blankToNull(watch.getKind()),
				blankToNull(watch.getResource()), namespaces, blankToNull(watch.getLabelSelector()),
				blankToNull(watch.getFieldSelector()), type, metadataOnly, (resync != null) ? resync : Duration.ZERO);
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	static Informer<?> informer(ConfigurableListableBeanFactory beanFactory, String name,
			ListwatchProperties.Watch watch, Class<?> type, @Nullable WatchDeclaration<?> declaration, boolean shared,
			Set<String> declared) {
		ListwatchProperties properties = beanFactory.getBean(ListwatchProperties.class);
		List<ListerWatcher> listerWatchers = new ArrayList<>();
		if (declaration == null || declaration.namespaces().size() <= 1) {
			listerWatchers.add(beanFactory.getBean(name + LISTER_WATCHER, ListerWatcher.class));
		}
		else {
			for (String namespace : declaration.namespaces()) {
				listerWatchers.add(ConfiguredDeclarations.listerWatcher(beanFactory, declaration, namespace,
						watch.getKeepManagedFields(), watch.getCompressObjects()));
			}
		}
		List<WatchIndex<?>> indexes = (List) beanFactory.getBeanProvider(WatchIndex.class).orderedStream().toList();
		for (WatchIndex<?> index : indexes) {
			if (!declared.contains(index.watch())) {
				throw new WatchDeclarationException(index.watch(), null, "a WatchIndex named '" + index.name()
						+ "' is declared for it, but no watch of that name is declared under listwatch.watches "
						+ "(declared: " + String.join(", ", new TreeSet<>(declared)) + ")",
						"Name one of the declared watches in WatchIndex.of(...), or declare the watch.", null);
			}
		}
		InformerOptions options;
		try {
			options = informerOptions(properties.getDefaults(), watch);
			if (EtcdWatches.isEtcd(name, watch)) {
				options = EtcdWatches.withProgressNotifications(options, beanFactory.getBean(Environment.class));
			}
		}
		catch (IllegalArgumentException ex) {
			throw new WatchDeclarationException(name, null, "has options that cannot work: " + ex.getMessage(),
					"Check listwatch.defaults.* (backoff, timeouts, page size) and listwatch.watches." + name
							+ ".page-size.",
					ex);
		}
		InformerFactory factory = beanFactory.getBean(InformerFactory.class);
		Informer informer = factory.informer(name, (Class) type, (List) listerWatchers, options, indexes);
		return shared ? factory.share((WatchDeclaration) declaration, informer) : informer;
	}

	static InformerOptions informerOptions(ListwatchProperties.Defaults defaults, ListwatchProperties.Watch watch) {
		InformerOptions.BackoffPolicy backoff = new InformerOptions.BackoffPolicy(defaults.getInitialBackoff(), defaults.getMaxBackoff(),
				defaults.getBackoffMultiplier(), defaults.getBackoffJitter(), defaults.getBackoffResetAfter());
		Long pageSize = (watch.getPageSize() != null) ? watch.getPageSize() : defaults.getPageSize();
		Duration resyncPeriod = (watch.getResyncPeriod() != null) ? watch.getResyncPeriod() : defaults.getResyncPeriod();
		// a leader-only watch starts when this replica becomes leader (LeaderOnlyWatches)
		boolean autoStartup = !watch.isLeaderOnly()
				&& ((watch.getAutoStartup() != null) ? watch.getAutoStartup() : defaults.isAutoStartup());
		return new InformerOptions(blankToNull(watch.getLabelSelector()), blankToNull(watch.getFieldSelector()),
				(pageSize > 0) ? pageSize : null,
				// source: etcd -> no streaming list (etcd lists with a range read)
				defaults.isStreamingList() && !"etcd".equalsIgnoreCase(String.valueOf(watch.getSource()).trim()),
				defaults.getMinWatchTimeout(),
				defaults.getMaxWatchTimeout(), defaults.getIdleTimeout(), backoff, resyncPeriod, autoStartup);
	}

	/**
	 * Whether a watch is metadata-only, refusing a declared type with it: the type would be bound
	 * from a PartialObjectMetadata, its body's fields left empty as if the object had none.
	 * @param name the watch's name
	 * @param watch the declaration
	 * @param type its Java type
	 * @param byDefault listwatch.defaults.metadata-only
	 * @return whether the watch asks for metadata only
	 * @throws WatchDeclarationException when it does and a type other than KubernetesObject is set
	 */
	static boolean metadataOnly(String name, ListwatchProperties.Watch watch, Class<?> type, boolean byDefault) {
		boolean metadataOnly = (watch.getMetadataOnly() != null) ? watch.getMetadataOnly() : byDefault;
		if (metadataOnly && type != KubernetesObject.class && type != Object.class) {
			String setBy = (watch.getMetadataOnly() != null) ? "listwatch.watches." + name + ".metadata-only=true"
					: "listwatch.defaults.metadata-only=true";
			throw new WatchDeclarationException(name, "type",
					"is " + type.getName() + ", but the watch is metadata-only (" + setBy + "): its objects are "
							+ "PartialObjectMetadata (apiVersion, kind and metadata only), which " + type.getSimpleName()
							+ " would hold with every other field empty",
					"Remove listwatch.watches." + name + ".type (metadata-only objects are "
							+ "dev.listwatch.KubernetesObject; KubernetesObject.as(...) binds one to a metadata type), "
							+ "or set listwatch.watches." + name + ".metadata-only=false to cache whole objects.",
					null);
		}
		return metadataOnly;
	}

	/**
	 * Checks a declaration and finds its Java type.
	 * @param name the watch's name
	 * @param watch the declaration
	 * @param classLoader where to load the type from
	 * @return the Java type
	 * @throws WatchDeclarationException when the declaration cannot work
	 */
	static Class<?> validate(String name, ListwatchProperties.Watch watch, ClassLoader classLoader) {
		if (!StringUtils.hasText(watch.getApiVersion())) {
			throw new WatchDeclarationException(name, "api-version", "is not set",
					"Set listwatch.watches." + name + ".api-version to the resource's group/version, for example "
							+ "'v1' for ConfigMaps or 'apps/v1' for Deployments (kubectl api-resources lists them).",
					null);
		}
		if (watch.getApiVersion().trim().split("/").length > 2 || watch.getApiVersion().trim().endsWith("/")) {
			throw new WatchDeclarationException(name, "api-version", "'" + watch.getApiVersion() + "' is not a group/version",
					"Write it as 'v1' for the core group or 'group/version', for example 'apps/v1'.", null);
		}
		if (StringUtils.hasText(watch.getNamespace()) && !watch.getNamespaces().isEmpty()) {
			throw new WatchDeclarationException(name, "namespaces", "are set, and so is namespace",
					"Set one of them: listwatch.watches." + name + ".namespace for one namespace, or "
							+ "listwatch.watches." + name + ".namespaces for a set.",
					null);
		}
		for (String namespace : watch.getNamespaces()) {
			if (!StringUtils.hasText(namespace)) {
				throw new WatchDeclarationException(name, "namespaces", "has a blank entry: " + watch.getNamespaces(),
						"Name each namespace, or remove listwatch.watches." + name + ".namespaces to watch all.",
						null);
			}
		}
		if (!StringUtils.hasText(watch.getKind()) && !StringUtils.hasText(watch.getResource())) {
			throw new WatchDeclarationException(name, "kind", "is not set, and neither is resource",
					"Set listwatch.watches." + name + ".kind (for example 'ConfigMap') or listwatch.watches." + name
							+ ".resource (the plural, for example 'configmaps').",
					null);
		}
		if (StringUtils.hasText(watch.getLabelSelector())) {
			try {
				InformerOptions.defaults().withLabelSelector(watch.getLabelSelector().trim());
			}
			catch (IllegalArgumentException ex) {
				throw new WatchDeclarationException(name, "label-selector", "does not parse: " + parseError(ex),
						"Write a Kubernetes label selector such as 'app=web', 'tier in (front,back)' or '!legacy'.", ex);
			}
		}
		if (StringUtils.hasText(watch.getFieldSelector())) {
			try {
				InformerOptions.defaults().withFieldSelector(watch.getFieldSelector().trim());
			}
			catch (IllegalArgumentException ex) {
				throw new WatchDeclarationException(name, "field-selector", "does not parse: " + parseError(ex),
						"Write a field selector such as 'metadata.name=x' or 'status.phase!=Running'.", ex);
			}
		}
		return type(name, watch, classLoader);
	}

	/**
	 * The Java type a watch declares ({@code type}), else {@link KubernetesObject}.
	 * @param name the watch's name
	 * @param watch the declaration
	 * @param classLoader where to load the type from
	 * @return the type
	 * @throws WatchDeclarationException when the class cannot be loaded
	 */
	static Class<?> type(String name, ListwatchProperties.Watch watch, ClassLoader classLoader) {
		if (!StringUtils.hasText(watch.getType())) {
			return KubernetesObject.class;
		}
		try {
			return ClassUtils.forName(watch.getType().trim(), classLoader);
		}
		catch (ClassNotFoundException | LinkageError ex) {
			throw new WatchDeclarationException(name, "type", "names class '" + watch.getType()
					+ "', which cannot be loaded (" + ex + ")",
					"Give the fully qualified name of a class on the application's classpath, or remove the property "
							+ "to receive dev.listwatch.KubernetesObject.",
					ex);
		}
	}

	/** The parser's own words, without the options' wrapping. */
	private static String parseError(IllegalArgumentException ex) {
		return ((ex.getCause() != null) ? ex.getCause() : ex).getMessage();
	}

	private static @Nullable String blankToNull(@Nullable String value) {
		return StringUtils.hasText(value) ? value.trim() : null;
	}

}
