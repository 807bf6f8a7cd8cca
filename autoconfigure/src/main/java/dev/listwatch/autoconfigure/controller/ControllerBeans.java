package dev.listwatch.autoconfigure.controller;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import dev.listwatch.ListerWatcher;
import dev.listwatch.Resource;
import dev.listwatch.autoconfigure.LeaderElectionAutoConfiguration;
import dev.listwatch.autoconfigure.ListwatchProperties;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.controller.Controller;
import dev.listwatch.controller.ControllerOptions;
import dev.listwatch.controller.Reconciler;
import dev.listwatch.controller.Relations;
import dev.listwatch.informer.Informer;
import dev.listwatch.leader.ShardListener;
import dev.listwatch.leader.ShardMembership;
import dev.listwatch.leader.ShardMembershipOptions;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.config.AutowireCapableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

/**
 * Makes the bean {@code <name>Controller} of each controller declared under
 * {@code listwatch.controllers.<name>}: a {@link Controller} on the informer bean
 * {@code <watch>Informer} that runs the {@link Reconciler} bean named
 * {@code <name>Reconciler} (or as set), with the options of its properties. The
 * definitions name a static factory method, so that ahead-of-time processing can generate
 * them.
 */
final class ControllerBeans {

	/** The suffix of a controller's bean name. */
	static final String CONTROLLER = "Controller";

	/** The suffix of the default reconciler bean name. */
	static final String RECONCILER = "Reconciler";

	private static final String INFORMER = "Informer";

	/** A DNS label of at most 52 characters: what a shard group's prefix must be. */
	private static final Pattern PREFIX = Pattern.compile("[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?");

	private ControllerBeans() {
	}

	/**
	 * The controllers declared and enabled, by name, in declaration order.
	 * @param environment the environment
	 * @return the declarations
	 */
	static Map<String, ControllerProperties.Declaration> declared(Environment environment) {
		Map<String, ControllerProperties.Declaration> all = Binder.get(environment)
			.bind("listwatch.controllers", Bindable.mapOf(String.class, ControllerProperties.Declaration.class))
			.orElse(Map.of());
		Map<String, ControllerProperties.Declaration> enabled = new LinkedHashMap<>();
		all.forEach((name, declaration) -> {
			if (declaration.isEnabled()) {
				enabled.put(name, declaration);
			}
		});
		return enabled;
	}

	/**
	 * The name of the watch a controller reconciles.
	 * @param name the controller's name
	 * @param declaration its declaration
	 * @return the watch's name
	 */
	static String watch(String name, ControllerProperties.Declaration declaration) {
		String watch = declaration.getWatch();
		return (watch != null && !watch.isBlank()) ? watch : name;
	}

	/**
	 * Whether a controller runs on the leader only: declared so, or on a watch declared
	 * so.
	 * @param name the controller's name
	 * @param declaration its declaration
	 * @param environment the environment
	 * @return whether it is leader-only
	 */
	static boolean leaderOnly(String name, ControllerProperties.Declaration declaration, Environment environment) {
		return declaration.isLeaderOnly() || Binder.get(environment)
			.bind("listwatch.watches." + watch(name, declaration) + ".leader-only", Boolean.class)
			.orElse(false);
	}

	/**
	 * A controller's options from its properties.
	 * @param name the controller's name
	 * @param declaration its declaration
	 * @param leaderOnly whether it runs on the leader only
	 * @return the options
	 * @throws ControllerDeclarationException naming the property that cannot work
	 */
	static ControllerOptions options(String name, ControllerProperties.Declaration declaration, boolean leaderOnly) {
		check(name, "workers", declaration.getWorkers() >= 1, "is " + declaration.getWorkers(), "Set it to 1 or more.");
		check(name, "backoff.initial", positive(declaration.getBackoff().getInitial()),
				"is " + declaration.getBackoff().getInitial(), "Set a positive duration, such as 5ms.");
		check(name, "backoff.max",
				declaration.getBackoff().getMax().compareTo(declaration.getBackoff().getInitial()) >= 0,
				"is shorter than backoff.initial", "Set it to backoff.initial or longer, such as 1000s.");
		check(name, "retry-rate.per-second", declaration.getRetryRate().getPerSecond() > 0,
				"is " + declaration.getRetryRate().getPerSecond(), "Set a positive rate, such as 10.");
		check(name, "retry-rate.burst", declaration.getRetryRate().getBurst() >= 1,
				"is " + declaration.getRetryRate().getBurst(), "Set it to 1 or more, such as 100.");
		check(name, "max-delay", positive(declaration.getMaxDelay()), "is " + declaration.getMaxDelay(),
				"Set a positive duration, such as 1h.");
		check(name, "resync-period", declaration.getResyncPeriod() == null || positive(declaration.getResyncPeriod()),
				"is " + declaration.getResyncPeriod(), "Set a positive duration, such as 10m, or remove it.");
		check(name, "shutdown-timeout", !declaration.getShutdownTimeout().isNegative(),
				"is " + declaration.getShutdownTimeout(), "Set a duration of 0 or more, such as 30s.");
		return new ControllerOptions(declaration.getWorkers(), declaration.getBackoff().getInitial(),
				declaration.getBackoff().getMax(), declaration.getRetryRate().getPerSecond(),
				declaration.getRetryRate().getBurst(), declaration.getMaxDelay(), declaration.getResyncPeriod(),
				declaration.getShutdownTimeout(), !leaderOnly);
	}

	/**
	 * The shard membership options of a controller declared sharded.
	 * @param name the controller's name
	 * @param declaration its declaration
	 * @param leaderOnly whether it runs on the leader only
	 * @param environment the environment (spring.application.name)
	 * @param namespace the connection's namespace, the default of the Leases' (asked only
	 * when the controller is sharded and names no {@code lease-namespace}: the connection
	 * is made only when something needs it)
	 * @param identity the default identity of this replica
	 * @return the options, or {@code null} when it is not sharded
	 * @throws ControllerDeclarationException naming the property that cannot work
	 */
	static @Nullable ShardMembershipOptions sharding(String name, ControllerProperties.Declaration declaration,
			boolean leaderOnly, Environment environment, Supplier<String> namespace, Supplier<String> identity) {
		ControllerProperties.Sharding sharding = declaration.getSharding();
		if (!sharding.isEnabled()) {
			return null;
		}
		check(name, "sharding.enabled", !leaderOnly,
				"is true, but the controller is leader-only"
						+ (declaration.isLeaderOnly() ? "" : " (its watch '" + watch(name, declaration) + "' is)"),
				"A leader-only controller runs on one replica; a sharded one on all of them, each with a share of "
						+ "the keys. Remove leader-only, or sharding.enabled.");
		check(name, "sharding.shards",
				sharding.getShards() >= 1 && sharding.getShards() <= ShardMembershipOptions.MAX_SHARDS,
				"is " + sharding.getShards(), "Set it from 1 to " + ShardMembershipOptions.MAX_SHARDS
						+ ", the same on every replica, such as 16 (more than the replicas expected).");
		String prefix = trimmed(sharding.getLeasePrefix());
		if (prefix == null) {
			String application = trimmed(environment.getProperty("spring.application.name"));
			check(name, "sharding.lease-prefix", application != null,
					"is not set, and spring.application.name (the first part of its default) is not set either",
					"Set listwatch.controllers." + name + ".sharding.lease-prefix to a name that only this "
							+ "application's controller uses, such as '" + suggestedPrefix("my-app-" + name) + "'.");
			prefix = application + "-" + name;
		}
		check(name, "sharding.lease-prefix", PREFIX.matcher(prefix).matches(),
				"is '" + prefix + "', which is not a lowercase DNS label of at most 52 characters"
						+ ((sharding.getLeasePrefix() == null) ? " (the default: <spring.application.name>-<name>)"
								: ""),
				"Set listwatch.controllers." + name + ".sharding.lease-prefix to letters, digits and '-', such as '"
						+ suggestedPrefix(prefix) + "'.");
		String leaseNamespace = trimmed(sharding.getLeaseNamespace());
		String id = trimmed(sharding.getIdentity());
		try {
			return new ShardMembershipOptions(prefix, (leaseNamespace != null) ? leaseNamespace : namespace.get(),
					(id != null) ? id : identity.get(), sharding.getShards(), sharding.getLeaseDuration(),
					sharding.getRenewDeadline(), sharding.getRetryPeriod());
		}
		catch (IllegalArgumentException ex) {
			String problem = String.valueOf(ex.getMessage())
				.replace("leaseDuration", "lease-duration")
				.replace("renewDeadline", "renew-deadline")
				.replace("retryPeriod", "retry-period")
				.replace("leaseNamespace", "lease-namespace");
			throw new ControllerDeclarationException(name, "sharding", "cannot work: " + problem,
					"Set listwatch.controllers." + name + ".sharding.lease-duration (whole seconds), renew-deadline "
							+ "and retry-period so that lease-duration > renew-deadline > retry-period * 1.2 "
							+ "(defaults: 15s, 10s, 2s), and identity and lease-namespace to non-blank values.");
		}
	}

	private static String connectionNamespace(ConfigurableListableBeanFactory beanFactory) {
		Cluster connection = beanFactory.getBeanProvider(Cluster.class).getIfAvailable();
		return (connection != null) ? connection.namespace() : "default";
	}

	private static @Nullable String trimmed(@Nullable String value) {
		return (value == null || value.isBlank()) ? null : value.trim();
	}

	private static String suggestedPrefix(String prefix) {
		String suggested = prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-").replaceAll("^-+|-+$", "");
		suggested = (suggested.length() > 52) ? suggested.substring(0, 52).replaceAll("-+$", "") : suggested;
		return suggested.isEmpty() ? "my-app-controller" : suggested;
	}

	/**
	 * The definition of a controller's bean.
	 * @param name the controller's name
	 * @return the definition
	 */
	static RootBeanDefinition definition(String name) {
		RootBeanDefinition definition = new RootBeanDefinition(ControllerBeans.class);
		definition.setFactoryMethodName("controller");
		definition.setTargetType(Controller.class);
		definition.setAutowireMode(AutowireCapableBeanFactory.AUTOWIRE_CONSTRUCTOR);
		definition.getConstructorArgumentValues().addIndexedArgumentValue(0, name);
		return definition;
	}

	/**
	 * Makes a declared controller.
	 * @param name the controller's name
	 * @param beanFactory the bean factory
	 * @param environment the environment it is declared in
	 * @return the controller
	 * @throws ControllerDeclarationException when its watch or reconciler is missing, or
	 * they do not fit
	 */
	@SuppressWarnings({ "rawtypes", "unchecked" })
	static Controller<?> controller(String name, ConfigurableListableBeanFactory beanFactory, Environment environment) {
		ControllerProperties.Declaration declaration = declared(environment).get(name);
		if (declaration == null) {
			throw new ControllerDeclarationException(name, null, "is no longer declared",
					"Declare it under listwatch.controllers." + name + ".");
		}
		String watch = watch(name, declaration);
		Informer<?> informer = informer(name, "watch", watch, beanFactory);
		Reconciler<?> reconciler = reconciler(name, declaration, informer, beanFactory);
		ObservationRegistry observations = beanFactory.getBeanProvider(ObservationRegistry.class)
			.getIfAvailable(() -> ObservationRegistry.NOOP);
		Controller controller = new Controller(name, informer, reconciler,
				options(name, declaration, leaderOnly(name, declaration, environment)), observations);
		// the bound properties are the one reader of listwatch.*
		controller.showExceptionMessages(beanFactory.getBeanProvider(ListwatchProperties.class)
			.getIfAvailable(ListwatchProperties::new)
			.isShowExceptionMessages());
		ShardMembershipOptions sharding = sharding(name, declaration, leaderOnly(name, declaration, environment),
				environment, () -> connectionNamespace(beanFactory), LeaderElectionAutoConfiguration::replicaIdentity);
		if (sharding != null) {
			ApiServerClient client = beanFactory.getBean(ApiServerClient.class);
			JsonMapper mapper = beanFactory.getBeanProvider(JsonMapper.class).getIfAvailable(JsonMapper::shared);
			Function<ShardListener, ShardMembership> membership = (listener) -> ShardMembership.create(client, mapper,
					sharding, listener);
			controller.shardBy(membership);
		}
		if (declaration.getFilter() == ControllerProperties.Filter.GENERATION_CHANGED) {
			controller.filter(Relations.generationChanged());
		}
		if (!declaration.getOwns().isEmpty()) {
			Resource primary = informer.listerWatcher().resource();
			String kind = (primary.kind() != null) ? primary.kind()
					: Binder.get(environment).bind("listwatch.watches." + watch + ".kind", String.class).orElse(null);
			if (kind == null) {
				throw new ControllerDeclarationException(name, "owns",
						"is set, but the kind of watch '" + watch
								+ "' is not known, so owner references cannot be matched",
						"Set listwatch.watches." + watch + ".kind.");
			}
			// the primary's scope is known once its resource is resolved (by the startup
			// check, or its first list): until then an object is held, not mapped by a
			// guess (a watch of all namespaces reads as cluster-scoped before)
			ListerWatcher<?> primaryCalls = informer.listerWatcher();
			Function<Object, Collection<String>> namespacedOwners = Relations.owners(kind, false);
			Function<Object, Collection<String>> clusterOwners = Relations.owners(kind, true);
			Function<Object, @Nullable Collection<String>> owners = (object) -> {
				if (!ApiServerClient.isResolved(primaryCalls)) {
					return null;
				}
				return primaryCalls.resource().namespaced() ? namespacedOwners.apply(object)
						: clusterOwners.apply(object);
			};
			for (String owned : declaration.getOwns()) {
				controller.watch(informer(name, "owns", owned, beanFactory), owners);
			}
		}
		return controller;
	}

	private static Informer<?> informer(String name, String property, String watch,
			ConfigurableListableBeanFactory beanFactory) {
		try {
			return beanFactory.getBean(watch + INFORMER, Informer.class);
		}
		catch (NoSuchBeanDefinitionException ex) {
			List<String> watches = Arrays.stream(beanFactory.getBeanNamesForType(Informer.class, false, false))
				.map((bean) -> bean.endsWith(INFORMER) ? bean.substring(0, bean.length() - INFORMER.length()) : bean)
				.sorted()
				.toList();
			throw new ControllerDeclarationException(name, property,
					"names '" + watch + "', but no watch of that name is declared (no bean " + watch + INFORMER + ")",
					"Declare the watch under listwatch.watches." + watch + ", or name in listwatch.controllers." + name
							+ "." + property + " one of the watches: " + watches + ".");
		}
	}

	private static Reconciler<?> reconciler(String name, ControllerProperties.Declaration declaration,
			Informer<?> informer, ConfigurableListableBeanFactory beanFactory) {
		String bean = (declaration.getReconciler() != null && !declaration.getReconciler().isBlank())
				? declaration.getReconciler() : defaultReconciler(name, beanFactory);
		Reconciler<?> reconciler;
		try {
			reconciler = beanFactory.getBean(bean, Reconciler.class);
		}
		catch (NoSuchBeanDefinitionException ex) {
			List<String> reconcilers = Arrays.stream(beanFactory.getBeanNamesForType(Reconciler.class, false, false))
				.sorted()
				.toList();
			throw new ControllerDeclarationException(name, "reconciler",
					(declaration.getReconciler() != null) ? "names the bean '" + bean + "', which is not a Reconciler"
							: "is not set, and there is no Reconciler bean named '" + bean + "'",
					"Define a Reconciler<" + informer.type().getSimpleName() + "> bean named '" + bean
							+ "', or set listwatch.controllers." + name + ".reconciler to the name of one "
							+ (reconcilers.isEmpty() ? "(there is none)" : "of " + reconcilers) + ".");
		}
		@Nullable Class<?> accepts = ResolvableType.forInstance(reconciler).as(Reconciler.class).resolveGeneric(0);
		if (accepts != null && !accepts.isAssignableFrom(informer.type())) {
			throw new ControllerDeclarationException(name, "reconciler",
					"names the bean '" + bean + "', a Reconciler<" + accepts.getSimpleName() + ">, but watch '"
							+ informer.watch() + "' holds " + informer.type().getSimpleName(),
					"Make the reconciler a Reconciler<" + informer.type().getSimpleName()
							+ ">, or set listwatch.watches." + informer.watch() + ".type to " + accepts.getName()
							+ ".");
		}
		return reconciler;
	}

	/**
	 * The default reconciler bean of a controller: {@code <name>Reconciler}, or, for a
	 * name in kebab case such as {@code web-status}, {@code webStatusReconciler} (the
	 * name a {@code @Component} class {@code WebStatusReconciler} gets) when only that
	 * one exists.
	 */
	static String defaultReconciler(String name, ConfigurableListableBeanFactory beanFactory) {
		String plain = name + RECONCILER;
		StringBuilder camel = new StringBuilder(name.length());
		boolean upper = false;
		for (char c : name.toCharArray()) {
			if (c == '-' || c == '_') {
				upper = true;
				continue;
			}
			camel.append(upper ? Character.toUpperCase(c) : c);
			upper = false;
		}
		String camelCase = camel + RECONCILER;
		return (!beanFactory.containsBean(plain) && beanFactory.containsBean(camelCase)) ? camelCase : plain;
	}

	private static void check(String name, String property, boolean holds, String problem, String fix) {
		if (!holds) {
			throw new ControllerDeclarationException(name, property, problem, fix);
		}
	}

	private static boolean positive(@Nullable Duration duration) {
		return duration != null && !duration.isNegative() && !duration.isZero();
	}

}
