package dev.listwatch.autoconfigure;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import dev.listwatch.client.ApiServerClient;
import dev.listwatch.informer.WatchDeclaration;

import org.springframework.aot.AotDetector;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Registers the beans of each watch declared under {@code listwatch.watches.<name>}:
 * {@code <name>ListerWatcher} (unless the application defines one),
 * {@code <name>Informer} and {@code <name>Lister}. Declarations that cannot work fail
 * here, before any bean is made, with a {@link WatchDeclarationException}. The
 * definitions name static factory methods of {@link WatchBeans}, so that ahead-of-time
 * processing can generate them; in a run of the generated code
 * ({@code spring.aot.enabled}) this checks the declarations and records which informers
 * code may share, but registers nothing.
 * <p>
 * What a declaration says (its type, its {@link WatchDeclaration}) is read by
 * {@link DeclaredWatches}, as {@link WatchBeans} reads it when the beans are made; which
 * informers code may share is recorded in {@link #shareable()}.
 */
final class WatchBeanRegistrar implements BeanDefinitionRegistryPostProcessor, Ordered {

	private final Environment environment;

	private final ClassLoader classLoader;

	/** The watches whose declaration code can share. */
	private final ShareableWatches shareable = new ShareableWatches();

	/**
	 * The group/versions of the API server watches whose lister-watchers this registers,
	 * in declaration order.
	 */
	private final Set<String> apiVersions = new LinkedHashSet<>();

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
		// bound once for the registrar and the beans' factory methods (WatchBeans), not
		// once each
		DeclaredWatches.Bound bound = DeclaredWatches.Bound.of(this.environment);
		ListwatchProperties.Defaults defaults = bound.defaults();
		Map<String, ListwatchProperties.Watch> enabled = bound.enabled();
		LeaderOnlyWatches.check(DeclaredWatches.binder(this.environment), enabled);
		enabled.forEach((name, watch) -> register(registry, name, watch, defaults));
	}

	/**
	 * The watches declared in configuration whose informers code may share, filled as the
	 * watches' beans are registered.
	 * @return the shareable watches
	 */
	ShareableWatches shareable() {
		return this.shareable;
	}

	/**
	 * The group/versions the declared watches' lister-watchers will discover (the API
	 * server watches whose lister-watchers this registered), for discovering them ahead
	 * ({@link ApiServerClient#discoverAhead}); filled as the watches' beans are
	 * registered.
	 * @return the group/versions, in declaration order
	 */
	Set<String> apiVersions() {
		return Collections.unmodifiableSet(this.apiVersions);
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
	}

	private void register(BeanDefinitionRegistry registry, String name, ListwatchProperties.Watch watch,
			ListwatchProperties.Defaults defaults) {
		// source: etcd -> the etcd ListerWatcher bean (EtcdWatches); its informer and
		// lister are the usual ones, not shared by declaration (a WatchDeclaration names
		// an API server resource)
		DeclaredWatches.Resolved resolved = DeclaredWatches.resolve(name, watch, defaults, this.environment,
				this.classLoader);
		Class<?> type = resolved.type();
		WatchDeclaration<?> declaration = resolved.declaration();
		String listerWatcherName = name + DeclaredWatches.LISTER_WATCHER;
		if (AotDetector.useGeneratedArtifacts()) {
			// the beans are registered by the code generated ahead of time (WatchBeans);
			// what code may share is read from the informer's definition, as the build
			// decided it
			Boolean shared = registry.containsBeanDefinition(name + DeclaredWatches.INFORMER)
					? WatchBeans.shared(registry.getBeanDefinition(name + DeclaredWatches.INFORMER)) : null;
			if (shared == null) {
				throw new WatchDeclarationException(name, null,
						"is declared, but was not when the application was processed ahead of time, so it has no beans",
						"Process the application ahead of time again (spring-boot:process-aot) with this "
								+ "configuration, or run it without -Dspring.aot.enabled=true.",
						null);
			}
			if (shared && declaration != null) {
				this.shareable.offer(declaration, name);
			}
			return;
		}
		boolean own = registry.containsBeanDefinition(listerWatcherName);
		boolean namespaceSet = declaration != null && declaration.namespaces().size() > 1;
		if (own && namespaceSet) {
			throw new WatchDeclarationException(name, "namespaces",
					"are set, but the application defines the bean '" + listerWatcherName
							+ "', which would stand for one of the namespaces' watches",
					"Remove listwatch.watches." + name + ".namespaces, or the application's " + listerWatcherName
							+ " bean (the watch then has one lister-watcher per namespace).",
					null);
		}
		// a leader-only watch is not shared with code: code that starts an equal
		// declaration's informer would run it on followers, and a revoke would stop
		// code's informer
		// nor is a watch whose keep or drop strips its objects: code that declares the
		// same expects whole objects (a WatchTransform bean is seen by WatchBeans)
		boolean shareable = !own && declaration != null && !watch.isLeaderOnly() && watch.getKeep().isEmpty()
				&& watch.getDrop().isEmpty();
		if (shareable && declaration != null) {
			// of several watches that declare the same, code shares the first
			this.shareable.offer(declaration, name);
		}
		if (!own && !namespaceSet) {
			registry.registerBeanDefinition(listerWatcherName, WatchBeans.listerWatcherDefinition(name, type));
		}
		if (!own && declaration != null) {
			this.apiVersions.add(declaration.apiVersion());
		}
		registry.registerBeanDefinition(name + DeclaredWatches.INFORMER,
				WatchBeans.informerDefinition(name, type, shareable));
		registry.registerBeanDefinition(name + DeclaredWatches.LISTER, WatchBeans.listerDefinition(name, type));
	}

}
