package dev.listwatch.autoconfigure;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectTransform;
import dev.listwatch.WatchTransform;
import dev.listwatch.informer.InformerOptions;
import dev.listwatch.informer.WatchDeclaration;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * The watches declared under {@code listwatch.watches.<name>}, turned from properties
 * into what the rest of listwatch works with: the enabled watches and
 * {@code listwatch.defaults}, bound once per environment ({@link Bound}); each watch
 * checked, its Java type loaded and, for an API server watch, its
 * {@link WatchDeclaration} made as code would make it ({@link #resolve}); and the
 * {@link InformerOptions} of its informer ({@link #informerOptions}). A declaration that
 * cannot work fails with a {@link WatchDeclarationException} naming the watch, the
 * property and the fix.
 * <p>
 * Used by {@link WatchBeanRegistrar} when it registers a watch's beans and by
 * {@link WatchBeans} when it makes them, so that both read a declaration the same way;
 * this class depends on neither. The etcd side of a declaration ({@code source: etcd}) is
 * {@link EtcdWatches}'.
 */
final class DeclaredWatches {

	/**
	 * The suffix of the name of a watch's lister-watcher bean:
	 * {@code <name>ListerWatcher}.
	 */
	static final String LISTER_WATCHER = "ListerWatcher";

	/** The suffix of the name of a watch's lister bean: {@code <name>Lister}. */
	static final String LISTER = "Lister";

	/** The suffix of the name of a watch's informer bean: {@code <name>Informer}. */
	static final String INFORMER = "Informer";

	/** The prefix of every listwatch property. */
	private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("listwatch");

	private DeclaredWatches() {
	}

	/**
	 * The enabled watches declared under {@code listwatch.watches}, in declaration order.
	 * @param binder the binder of the environment
	 * @return the watches by name
	 */
	static Map<String, ListwatchProperties.Watch> enabled(Binder binder) {
		Map<String, ListwatchProperties.Watch> watches = binder
			.bind("listwatch.watches", Bindable.mapOf(String.class, ListwatchProperties.Watch.class))
			.orElse(Map.of());
		Map<String, ListwatchProperties.Watch> enabled = new LinkedHashMap<>();
		watches.forEach((name, watch) -> {
			if (watch.isEnabled()) {
				enabled.put(name, watch);
			}
		});
		return enabled;
	}

	/**
	 * Checks a watch's declaration and resolves its type and, for an API server watch,
	 * its {@link WatchDeclaration}.
	 * @param name the watch's name
	 * @param watch its properties
	 * @param defaults listwatch.defaults
	 * @param environment the environment (etcd's endpoints)
	 * @param classLoader where to load the watch's type from
	 * @return the resolved watch
	 * @throws WatchDeclarationException when the declaration cannot work
	 */
	static Resolved resolve(String name, ListwatchProperties.Watch watch, ListwatchProperties.Defaults defaults,
			Environment environment, ClassLoader classLoader) {
		boolean etcd = EtcdWatches.isEtcd(name, watch);
		Class<?> type;
		if (etcd) {
			EtcdWatches.validate(name, watch, environment);
			type = type(name, watch, classLoader);
		}
		else {
			type = validate(name, watch, classLoader);
		}
		boolean metadataOnly = !etcd && metadataOnly(name, watch, type, defaults.isMetadataOnly());
		pathTransform(name, watch, type);
		WatchDeclaration<?> declaration = etcd ? null : declaration(watch, type, metadataOnly, defaults);
		return new Resolved(watch, type, declaration);
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
		String namespace = blankToNull(watch.getNamespace());
		List<String> namespaces = watch.getNamespaces().isEmpty()
				? ((namespace != null) ? List.of(namespace) : List.of()) : watch.getNamespaces();
		Duration resync = (watch.getResyncPeriod() != null) ? watch.getResyncPeriod() : defaults.getResyncPeriod();
		String apiVersion = Objects.requireNonNull(watch.getApiVersion(), "validate(...) checked that it is set");
		return new WatchDeclaration<>(apiVersion, blankToNull(watch.getKind()), blankToNull(watch.getResource()),
				namespaces, blankToNull(watch.getLabelSelector()), blankToNull(watch.getFieldSelector()), type,
				metadataOnly, (resync != null) ? resync : Duration.ZERO);
	}

	/**
	 * The options of a watch's informer: the watch's own settings, else
	 * {@code listwatch.defaults}. A leader-only watch does not start with the context; an
	 * etcd watch lists without streaming.
	 * @param defaults listwatch.defaults
	 * @param watch the watch's properties ({@code new ListwatchProperties.Watch()} for
	 * the defaults alone)
	 * @return the options
	 * @throws IllegalArgumentException when the options cannot work
	 */
	static InformerOptions informerOptions(ListwatchProperties.Defaults defaults, ListwatchProperties.Watch watch) {
		InformerOptions.BackoffPolicy backoff = new InformerOptions.BackoffPolicy(defaults.getInitialBackoff(),
				defaults.getMaxBackoff(), defaults.getBackoffMultiplier(), defaults.getBackoffJitter(),
				defaults.getBackoffResetAfter());
		Long pageSize = (watch.getPageSize() != null) ? watch.getPageSize() : defaults.getPageSize();
		Duration resyncPeriod = (watch.getResyncPeriod() != null) ? watch.getResyncPeriod()
				: defaults.getResyncPeriod();
		// a leader-only watch starts when this replica becomes leader (LeaderOnlyWatches)
		boolean autoStartup = !watch.isLeaderOnly()
				&& ((watch.getAutoStartup() != null) ? watch.getAutoStartup() : defaults.isAutoStartup());
		return new InformerOptions(blankToNull(watch.getLabelSelector()), blankToNull(watch.getFieldSelector()),
				(pageSize > 0) ? pageSize : null,
				// source: etcd -> no streaming list (etcd lists with a range read)
				defaults.isStreamingList() && !"etcd".equalsIgnoreCase(String.valueOf(watch.getSource()).trim()),
				defaults.getMinWatchTimeout(), defaults.getMaxWatchTimeout(), defaults.getIdleTimeout(), backoff,
				resyncPeriod, autoStartup,
				(watch.getOnRefusal() != null) ? watch.getOnRefusal() : defaults.getOnRefusal());
	}

	/**
	 * The application's {@link WatchTransform} beans.
	 * @param beanFactory the bean factory
	 * @return the beans, in order
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	static List<WatchTransform<?>> transforms(ListableBeanFactory beanFactory) {
		return (List) beanFactory.getBeanProvider(WatchTransform.class).orderedStream().toList();
	}

	/**
	 * The transform of a watch's {@code keep} and {@code drop} paths.
	 * @param name the watch's name
	 * @param watch the declaration
	 * @param type its Java type
	 * @return the transform, or {@code null} when neither is set
	 * @throws WatchDeclarationException when a path is invalid, or the type is not
	 * KubernetesObject
	 */
	static @Nullable ObjectTransform<KubernetesObject> pathTransform(String name, ListwatchProperties.Watch watch,
			Class<?> type) {
		List<String> keep = watch.getKeep();
		List<String> drop = watch.getDrop();
		if (keep.isEmpty() && drop.isEmpty()) {
			return null;
		}
		String property = "listwatch.watches." + name + (keep.isEmpty() ? ".drop" : ".keep");
		if (type != KubernetesObject.class && type != Object.class) {
			throw new WatchDeclarationException(name, keep.isEmpty() ? "drop" : "keep",
					"is set, but the watch's type is " + type.getName()
							+ ": keep and drop rewrite the JSON of dev.listwatch.KubernetesObject only",
					"Remove " + property + " (a WatchTransform bean reshapes objects of any type), or remove "
							+ "listwatch.watches." + name + ".type to cache KubernetesObjects.",
					null);
		}
		try {
			ObjectTransform<KubernetesObject> kept = keep.isEmpty() ? null : ObjectTransform.keeping(keep);
			ObjectTransform<KubernetesObject> dropped = drop.isEmpty() ? null : ObjectTransform.dropping(drop);
			if (kept == null) {
				return dropped;
			}
			return (dropped == null) ? kept : (object) -> dropped.transform(kept.transform(object));
		}
		catch (IllegalArgumentException ex) {
			throw new WatchDeclarationException(name, keep.isEmpty() ? "drop" : "keep",
					"has a path that cannot work: " + ex.getMessage(),
					"Give dot-separated paths of object fields, for example status or spec.template.", ex);
		}
	}

	/**
	 * Whether a watch is metadata-only, refusing a declared type with it: the type would
	 * be bound from a PartialObjectMetadata, its body's fields left empty as if the
	 * object had none.
	 * @param name the watch's name
	 * @param watch the declaration
	 * @param type its Java type
	 * @param byDefault listwatch.defaults.metadata-only
	 * @return whether the watch asks for metadata only
	 * @throws WatchDeclarationException when it does and a type other than
	 * KubernetesObject is set
	 */
	static boolean metadataOnly(String name, ListwatchProperties.Watch watch, Class<?> type, boolean byDefault) {
		boolean metadataOnly = (watch.getMetadataOnly() != null) ? watch.getMetadataOnly() : byDefault;
		if (metadataOnly && type != KubernetesObject.class && type != Object.class) {
			String setBy = (watch.getMetadataOnly() != null) ? "listwatch.watches." + name + ".metadata-only=true"
					: "listwatch.defaults.metadata-only=true";
			throw new WatchDeclarationException(name, "type",
					"is " + type.getName() + ", but the watch is metadata-only (" + setBy + "): its objects are "
							+ "PartialObjectMetadata (apiVersion, kind and metadata only), which "
							+ type.getSimpleName() + " would hold with every other field empty",
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
			throw new WatchDeclarationException(name, "api-version",
					"'" + watch.getApiVersion() + "' is not a group/version",
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
						"Name each namespace, or remove listwatch.watches." + name + ".namespaces to watch all.", null);
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
						"Write a Kubernetes label selector such as 'app=web', 'tier in (front,back)' or '!legacy'.",
						ex);
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
			throw new WatchDeclarationException(name, "type",
					"names class '" + watch.getType() + "', which cannot be loaded (" + ex + ")",
					"Give the fully qualified name of a class on the application's classpath, or remove the property "
							+ "to receive dev.listwatch.KubernetesObject.",
					ex);
		}
	}

	/** The parser's own words, without the options' wrapping. */
	private static @Nullable String parseError(IllegalArgumentException ex) {
		return ((ex.getCause() != null) ? ex.getCause() : ex).getMessage();
	}

	private static @Nullable String blankToNull(@Nullable String value) {
		return StringUtils.hasText(value) ? value.trim() : null;
	}

	/**
	 * A binder of {@code listwatch.*} properties: {@link Binder#get(Environment)}'s, over
	 * the property sources that may hold such properties only. A source that has none
	 * cannot change what is bound, and the binder looks each property up in every source
	 * it has (the system environment's costs the most: every name is mapped to the forms
	 * of an environment variable), so binding the watches took several times as long over
	 * all of them.
	 * @param environment the environment
	 * @return the binder
	 */
	static Binder binder(Environment environment) {
		List<ConfigurationPropertySource> sources = new ArrayList<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source.containsDescendantOf(PREFIX) != ConfigurationPropertyState.ABSENT) {
				sources.add(source);
			}
		}
		return new Binder(sources, new PropertySourcesPlaceholdersResolver(environment));
	}

	/**
	 * The watches and defaults bound from an environment, once for all the beans of all
	 * the watches (binding {@code listwatch.watches} for each of them made start-up
	 * quadratic in the watches), and again whenever the environment's property sources
	 * are no longer the same.
	 */
	record Bound(List<WeakReference<PropertySource<?>>> sources, Map<String, ListwatchProperties.Watch> enabled,
			ListwatchProperties.Defaults defaults) {

		private static final Map<Environment, Bound> cache = Collections.synchronizedMap(new WeakHashMap<>());

		static Bound of(Environment environment) {
			List<PropertySource<?>> sources = sources(environment);
			Bound bound = cache.get(environment);
			if (bound != null && sameSources(bound.sources, sources)) {
				return bound;
			}
			Binder binder = binder(environment);
			// weakly: the environment, the cache's weak key, must not be held through its
			// sources
			List<WeakReference<PropertySource<?>>> held = (sources != null)
					? sources.stream().map((source) -> new WeakReference<PropertySource<?>>(source)).toList()
					: List.of();
			bound = new Bound(held, DeclaredWatches.enabled(binder),
					binder.bind("listwatch.defaults", ListwatchProperties.Defaults.class)
						.orElseGet(ListwatchProperties.Defaults::new));
			if (sources != null) {
				cache.put(environment, bound);
			}
			return bound;
		}

		private static @Nullable List<PropertySource<?>> sources(Environment environment) {
			return (environment instanceof ConfigurableEnvironment configurable)
					? configurable.getPropertySources().stream().toList() : null;
		}

		private static boolean sameSources(List<WeakReference<PropertySource<?>>> held,
				@Nullable List<PropertySource<?>> now) {
			if (now == null || held.size() != now.size()) {
				return false;
			}
			for (int i = 0; i < now.size(); i++) {
				if (held.get(i).get() != now.get(i)) {
					return false;
				}
			}
			return true;
		}

	}

	/**
	 * A checked watch declaration.
	 *
	 * @param properties its properties
	 * @param type its Java type
	 * @param declaration its declaration, {@code null} for an etcd watch
	 */
	record Resolved(ListwatchProperties.Watch properties, Class<?> type, @Nullable WatchDeclaration<?> declaration) {
	}

}
