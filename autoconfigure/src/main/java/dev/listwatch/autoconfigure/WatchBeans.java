package dev.listwatch.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import dev.listwatch.Lister;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectTransform;
import dev.listwatch.WatchIndex;
import dev.listwatch.WatchTransform;
import dev.listwatch.etcd.EtcdClient;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import dev.listwatch.informer.WatchDeclaration;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.AutowireCapableBeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConstructorArgumentValues;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

/**
 * The static factory methods behind the beans of a watch declared under
 * {@code listwatch.watches.<name>}, and the bean definitions that name them. A definition
 * holds the watch's name (and, for the informer, whether code may share it) as explicit
 * arguments of simple types, everything else is injected, so that Spring's ahead-of-time
 * engine can write the registration as code: the AOT-processed application then registers
 * the same beans without {@link WatchBeanRegistrar} registering them again. Each method
 * reads the watch's declaration from the environment when the bean is made, through
 * {@link DeclaredWatches} as the registrar does; nothing here calls back into the
 * registrar.
 */
final class WatchBeans {

	/**
	 * The index of the informer's explicit argument that says whether code may share it.
	 */
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
	 * @return whether it is shared, or {@code null} when the definition is not one of
	 * these
	 */
	static @Nullable Boolean shared(BeanDefinition definition) {
		ConstructorArgumentValues.ValueHolder argument = definition.getConstructorArgumentValues()
			.getIndexedArgumentValues()
			.get(SHARED);
		return (argument != null && argument.getValue() instanceof Boolean shared) ? shared : null;
	}

	/**
	 * Makes a watch's lister-watcher: from its declaration, or etcd's for
	 * {@code source: etcd}.
	 * @param name the watch's name
	 * @param beanFactory the bean factory
	 * @param environment the environment the watch is declared in
	 * @return the lister-watcher
	 */
	static ListerWatcher<?> listerWatcher(String name, ConfigurableListableBeanFactory beanFactory,
			Environment environment) {
		DeclaredWatches.Resolved watch = resolve(name, environment);
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
		DeclaredWatches.Resolved watch = resolve(name, environment);
		return newInformer(beanFactory, name, watch.properties(), watch.type(), watch.declaration(), shared,
				Set.copyOf(DeclaredWatches.Bound.of(environment).enabled().keySet()));
	}

	/**
	 * A watch's lister: its informer's.
	 * @param name the watch's name
	 * @param beanFactory the bean factory
	 * @return the lister
	 */
	static Lister<?> lister(String name, ConfigurableListableBeanFactory beanFactory) {
		return beanFactory.getBean(name + DeclaredWatches.INFORMER, Informer.class).lister();
	}

	/**
	 * Makes a watch's informer: on its lister-watcher bean, or one lister-watcher per
	 * namespace of a set; with the application's {@link WatchIndex} beans, each of which
	 * must name a declared watch; with its options from the properties (an etcd watch's
	 * idle timeout raised to cover etcd's progress notifications); shared with code that
	 * declares the same watch when so defined.
	 * @throws WatchDeclarationException when an index names no declared watch, or the
	 * options cannot work
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static Informer<?> newInformer(ConfigurableListableBeanFactory beanFactory, String name,
			ListwatchProperties.Watch watch, Class<?> type, @Nullable WatchDeclaration<?> declaration, boolean shared,
			Set<String> declared) {
		ListwatchProperties properties = beanFactory.getBean(ListwatchProperties.class);
		List<ListerWatcher> listerWatchers = new ArrayList<>();
		if (declaration == null || declaration.namespaces().size() <= 1) {
			listerWatchers.add(beanFactory.getBean(name + DeclaredWatches.LISTER_WATCHER, ListerWatcher.class));
		}
		else {
			for (String namespace : declaration.namespaces()) {
				listerWatchers.add(ConfiguredDeclarations.listerWatcher(beanFactory, declaration, namespace,
						watch.getKeepManagedFields(), watch.getCompressObjects()));
			}
		}
		List<WatchIndex<?>> indexes = (List) beanFactory.getBeanProvider(WatchIndex.class).orderedStream().toList();
		for (WatchIndex<?> index : indexes) {
			requireDeclared(index.watch(), "a WatchIndex named '" + index.name() + "'", "WatchIndex.of(...)", declared);
		}
		InformerOptions options;
		try {
			options = DeclaredWatches.informerOptions(properties.getDefaults(), watch);
			if (EtcdWatches.isEtcd(name, watch)) {
				options = EtcdWatches.behindTheClientsCheck(options,
						beanFactory.getBean(EtcdClient.class).watchTimeout());
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
		ObjectTransform<?> bean = transformBean(beanFactory, name, declared);
		informer.setTransform(then(DeclaredWatches.pathTransform(name, watch, type), bean));
		// a watch whose objects a transform reshapes is not what code that declares the
		// same expects: not shared (keep and drop are known to the registrar already)
		return (shared && bean == null) ? factory.share((WatchDeclaration) Objects.requireNonNull(declaration,
				"only a watch with a declaration is shared (WatchBeanRegistrar)"), informer) : informer;
	}

	/**
	 * The transform of a watch's {@link WatchTransform} bean.
	 * @return the transform, or {@code null} without such a bean
	 * @throws WatchDeclarationException when a transform bean names no declared watch, or
	 * two name this one
	 */
	private static @Nullable ObjectTransform<?> transformBean(ConfigurableListableBeanFactory beanFactory, String name,
			Set<String> declared) {
		ObjectTransform<?> bean = null;
		for (WatchTransform<?> transform : DeclaredWatches.transforms(beanFactory)) {
			requireDeclared(transform.watch(), "a WatchTransform", "WatchTransform.of(...)", declared);
			if (transform.watch().equals(name)) {
				if (bean != null) {
					throw new WatchDeclarationException(name, null, "has two WatchTransform beans",
							"Declare one WatchTransform per watch; compose the functions in it.", null);
				}
				bean = transform.transform();
			}
		}
		return bean;
	}

	/** {@code first}, then {@code then}, either of which may be missing. */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static @Nullable ObjectTransform<?> then(@Nullable ObjectTransform<?> first,
			@Nullable ObjectTransform<?> then) {
		ObjectTransform<?> bean = (then != null) ? new BeanTransform(then) : null;
		if (first == null || bean == null) {
			return (first != null) ? first : bean;
		}
		ObjectTransform before = first;
		ObjectTransform after = bean;
		return new ObjectTransform<Object>() {

			@Override
			public Object transform(Object object) {
				return after.transform(before.transform(object));
			}

			@Override
			public String toString() {
				return before + ", then " + after;
			}

		};
	}

	/** A {@link WatchTransform} bean's transform, which names itself so. */
	private static final class BeanTransform implements ObjectTransform<Object> {

		private final ObjectTransform<Object> transform;

		@SuppressWarnings("unchecked")
		BeanTransform(ObjectTransform<?> transform) {
			this.transform = (ObjectTransform<Object>) transform;
		}

		@Override
		public Object transform(Object object) {
			return this.transform.transform(object);
		}

		@Override
		public String toString() {
			return "its WatchTransform bean";
		}

	}

	/**
	 * Fails a bean that names a watch not declared.
	 * @throws WatchDeclarationException naming the watch, the bean and the declared ones
	 */
	private static void requireDeclared(String watch, String bean, String factory, Set<String> declared) {
		if (!declared.contains(watch)) {
			throw new WatchDeclarationException(watch, null,
					bean + " is declared for it, but no watch of that name is declared under listwatch.watches "
							+ "(declared: " + String.join(", ", new TreeSet<>(declared)) + ")",
					"Name one of the declared watches in " + factory + ", or declare the watch.", null);
		}
	}

	private static DeclaredWatches.Resolved resolve(String name, Environment environment) {
		DeclaredWatches.Bound bound = DeclaredWatches.Bound.of(environment);
		ListwatchProperties.Watch watch = bound.enabled().get(name);
		if (watch == null) {
			// only after ahead-of-time processing: the beans were fixed by the build's
			// configuration
			throw new WatchDeclarationException(name, null,
					"has beans, made when the application was processed ahead of time, but is not declared (or not "
							+ "enabled) in this run's configuration",
					"Declare listwatch.watches." + name + " as it was at build time, or process the application "
							+ "ahead of time again (spring-boot:process-aot) with this configuration.",
					null);
		}
		return DeclaredWatches.resolve(name, watch, bound.defaults(), environment, WatchBeans.class.getClassLoader());
	}

}
