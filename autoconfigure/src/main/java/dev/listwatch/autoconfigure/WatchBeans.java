package dev.listwatch.autoconfigure;

import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

import dev.listwatch.Lister;
import dev.listwatch.ListerWatcher;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.WatchDeclaration;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.AutowireCapableBeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConstructorArgumentValues;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;

/**
 * The static factory methods behind the beans of a watch declared under
 * {@code listwatch.watches.<name>}, and the bean definitions that name them. A definition holds
 * the watch's name (and, for the informer, whether code may share it) as explicit arguments of
 * simple types, everything else is injected, so that Spring's ahead-of-time engine can write the
 * registration as code: the AOT-processed application then registers the same beans without
 * {@link WatchBeanRegistrar} registering them again. Each method reads the watch's declaration
 * from the environment when the bean is made.
 */
final class WatchBeans {

	/** The index of the informer's explicit argument that says whether code may share it. */
	static final int SHARED = 1;

	private WatchBeans() {
	}

	/**
	 * The definition of a watch's lister-watcher.
	 * @param name the watch's name
	 * @param type the watch's Java type
	 * @return the definition
	 */
	static RootBeanDefinition listerWatcherDefinition(String name, Class<?> type) {
		return definition("listerWatcher", ResolvableType.forClassWithGenerics(ListerWatcher.class, type), name);
	}

	/**
	 * The definition of a watch's informer.
	 * @param name the watch's name
	 * @param type the watch's Java type
	 * @param shared whether code that declares the same watch shares this informer
	 * @return the definition
	 */
	static RootBeanDefinition informerDefinition(String name, Class<?> type, boolean shared) {
		return definition("informer", ResolvableType.forClassWithGenerics(Informer.class, type), name, shared);
	}

	/**
	 * The definition of a watch's lister.
	 * @param name the watch's name
	 * @param type the watch's Java type
	 * @return the definition
	 */
	static RootBeanDefinition listerDefinition(String name, Class<?> type) {
		return definition("lister", ResolvableType.forClassWithGenerics(Lister.class, type), name);
	}

	private static RootBeanDefinition definition(String factoryMethod, ResolvableType type, Object... arguments) {
		RootBeanDefinition definition = new RootBeanDefinition(WatchBeans.class);
		definition.setFactoryMethodName(factoryMethod);
		definition.setTargetType(type);
		definition.setAutowireMode(AutowireCapableBeanFactory.AUTOWIRE_CONSTRUCTOR);
		for (int i = 0; i < arguments.length; i++) {
			definition.getConstructorArgumentValues().addIndexedArgumentValue(i, arguments[i]);
		}
		return definition;
	}

	/**
	 * Whether code may share a watch's informer, as its definition says.
	 * @param definition the definition of the watch's informer
	 * @return whether it is shared, or {@code null} when the definition is not one of these
	 */
	static @Nullable Boolean shared(BeanDefinition definition) {
		ConstructorArgumentValues.ValueHolder argument = definition.getConstructorArgumentValues().getIndexedArgumentValues().get(SHARED);
		return (argument != null && argument.getValue() instanceof Boolean shared) ? shared : null;
	}

	/**
	 * Makes a watch's lister-watcher: from its declaration, or etcd's for {@code source: etcd}.
	 * @param name the watch's name
	 * @param beanFactory the bean factory
	 * @param environment the environment the watch is declared in
	 * @return the lister-watcher
	 */
	static ListerWatcher<?> listerWatcher(String name, ConfigurableListableBeanFactory beanFactory,
			Environment environment) {
		Resolved watch = resolve(name, environment);
		if (watch.declaration() == null) {
			return EtcdWatches.listerWatcher(beanFactory, watch.properties(), watch.type()).get();
		}
		WatchDeclaration<?> declaration = watch.declaration();
		return ConfiguredDeclarations.listerWatcher(beanFactory, declaration,
				declaration.namespaces().isEmpty() ? null : declaration.namespaces().get(0),
				watch.properties().getKeepManagedFields(), watch.properties().getCompressObjects());
	}

	/**
	 * Makes a watch's informer.
	 * @param name the watch's name
	 * @param shared whether code that declares the same watch shares it
	 * @param beanFactory the bean factory
	 * @param environment the environment the watch is declared in
	 * @return the informer
	 */
	static Informer<?> informer(String name, boolean shared, ConfigurableListableBeanFactory beanFactory,
			Environment environment) {
		Resolved watch = resolve(name, environment);
		return WatchBeanRegistrar.informer(beanFactory, name, watch.properties(), watch.type(), watch.declaration(),
				shared, Set.copyOf(Bound.of(environment).enabled().keySet()));
	}

	/**
	 * A watch's lister: its informer's.
	 * @param name the watch's name
	 * @param beanFactory the bean factory
	 * @return the lister
	 */
	static Lister<?> lister(String name, ConfigurableListableBeanFactory beanFactory) {
		return beanFactory.getBean(name + WatchBeanRegistrar.INFORMER, Informer.class).lister();
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
	 * Checks a watch's declaration and resolves its type and, for an API server watch, its
	 * {@link WatchDeclaration}.
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
		Class<?> type = etcd ? EtcdWatches.validate(name, watch, environment, classLoader)
				: WatchBeanRegistrar.validate(name, watch, classLoader);
		boolean metadataOnly = !etcd && WatchBeanRegistrar.metadataOnly(name, watch, type, defaults.isMetadataOnly());
		WatchDeclaration<?> declaration = etcd ? null
				: WatchBeanRegistrar.declaration(watch, type, metadataOnly, defaults);
		return new Resolved(watch, type, declaration);
	}

	private static Resolved resolve(String name, Environment environment) {
		Bound bound = Bound.of(environment);
		ListwatchProperties.Watch watch = bound.enabled().get(name);
		if (watch == null) {
			// only after ahead-of-time processing: the beans were fixed by the build's configuration
			throw new WatchDeclarationException(name, null,
					"has beans, made when the application was processed ahead of time, but is not declared (or not "
							+ "enabled) in this run's configuration",
					"Declare listwatch.watches." + name + " as it was at build time, or process the application "
							+ "ahead of time again (spring-boot:process-aot) with this configuration.",
					null);
		}
		return resolve(name, watch, bound.defaults(), environment, WatchBeans.class.getClassLoader());
	}

	/**
	 * The watches and defaults bound from an environment, once for all the beans of all the
	 * watches (binding {@code listwatch.watches} for each of them made start-up quadratic in the
	 * watches), and again whenever the environment's property sources are no longer the same.
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
			Binder binder = Binder.get(environment);
			// weakly: the environment, the cache's weak key, must not be held through its sources
			List<WeakReference<PropertySource<?>>> held = (sources != null)
					? sources.stream().map((source) -> new WeakReference<PropertySource<?>>(source)).toList() : List.of();
			bound = new Bound(held, WatchBeans.enabled(binder),
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
	 * @param properties its properties
	 * @param type its Java type
	 * @param declaration its declaration, {@code null} for an etcd watch
	 */
	record Resolved(ListwatchProperties.Watch properties, Class<?> type, @Nullable WatchDeclaration<?> declaration) {
	}

}
