package dev.listwatch.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import dev.listwatch.ListerWatcher;
import dev.listwatch.etcd.EtcdClient;
import dev.listwatch.informer.InformerOptions;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * The etcd side of a watch declaration ({@code source: etcd}): what
 * {@link DeclaredWatches} and {@link WatchBeans} ask in their one etcd branch each, so
 * that the rest of a watch (its informer, lister, health and meters) is made as for any
 * other. Depends on none of them.
 */
final class EtcdWatches {

	static final String ENDPOINTS = "listwatch.etcd.endpoints";

	static final String IDLE_TIMEOUT = "listwatch.defaults.idle-timeout";

	private EtcdWatches() {
	}

	/**
	 * Whether a watch's source is etcd.
	 * @param name the watch's name
	 * @param watch the declaration
	 * @return {@code true} for {@code source: etcd}, {@code false} for {@code kubernetes}
	 * or none
	 * @throws WatchDeclarationException for another source, or a key-prefix on a
	 * Kubernetes watch
	 */
	static boolean isEtcd(String name, ListwatchProperties.Watch watch) {
		String source = StringUtils.hasText(watch.getSource()) ? watch.getSource().trim() : null;
		if (source == null || "kubernetes".equalsIgnoreCase(source)) {
			if (StringUtils.hasText(watch.getKeyPrefix())) {
				throw new WatchDeclarationException(
						name, "key-prefix", "is set, but the watch's source is kubernetes", "Set listwatch.watches."
								+ name + ".source=etcd to watch the keys under it in etcd, or remove " + "key-prefix.",
						null);
			}
			return false;
		}
		if ("etcd".equalsIgnoreCase(source)) {
			return true;
		}
		throw new WatchDeclarationException(name, "source", "is '" + source + "', which is not a source",
				"Write 'kubernetes' (the API server, the default) or 'etcd' (the keys under key-prefix in etcd).",
				null);
	}

	/**
	 * The idle timeout etcd watches are given up after, as dead connections, by the
	 * client the auto-configuration makes: {@code listwatch.defaults.idle-timeout}.
	 * @param environment where it is looked up
	 * @return the timeout, 90 s unless set
	 */
	static Duration idleTimeout(Environment environment) {
		return Binder.get(environment).bind(IDLE_TIMEOUT, Duration.class).orElse(Duration.ofSeconds(90));
	}

	/**
	 * The options of an etcd watch: the informer's idle timeout is only a backstop behind
	 * the etcd client's own check, which asks etcd for progress on a silent watch after
	 * each third of its watch timeout and gives it up at the whole, so it is at least
	 * that timeout and a third more. A quiet prefix's watch on a live connection is then
	 * answered (a bookmark at etcd's revision) well before the informer would take it for
	 * silent, so it stays open, its revision moves with etcd's, and a compaction costs it
	 * no relist; a dead connection is found by the client within its timeout. With the
	 * auto-configured client (whose watch timeout is the idle timeout) that is the idle
	 * timeout and a third; a client made with a longer watch timeout raises it to match.
	 * @param options the watch's options
	 * @param watchTimeout the etcd client's watch timeout
	 * ({@link EtcdClient#watchTimeout()})
	 * @return the options, with the idle timeout so raised where needed
	 */
	static InformerOptions behindTheClientsCheck(InformerOptions options, Duration watchTimeout) {
		Duration backstop = watchTimeout.plus(watchTimeout.dividedBy(3));
		if (options.idleTimeout().compareTo(backstop) >= 0) {
			return options;
		}
		return new InformerOptions(options.labelSelector(), options.fieldSelector(), options.pageSize(),
				options.streamingList(), options.minWatchTimeout(), options.maxWatchTimeout(), backstop,
				options.backoff(), options.resyncPeriod(), options.autoStartup(), options.onRefusal());
	}

	/**
	 * Checks an etcd watch's declaration: its key prefix, etcd's endpoints, and none of
	 * the properties that address an API server resource. Its Java type is loaded after,
	 * as for any watch ({@link DeclaredWatches#type}).
	 * @param name the watch's name
	 * @param watch the declaration
	 * @param environment where listwatch.etcd.endpoints is looked up
	 * @throws WatchDeclarationException when the declaration cannot work
	 */
	static void validate(String name, ListwatchProperties.Watch watch, Environment environment) {
		if (!StringUtils.hasText(watch.getKeyPrefix())) {
			throw new WatchDeclarationException(name, "key-prefix", "is not set, and the watch's source is etcd",
					"Set listwatch.watches." + name + ".key-prefix to the etcd key prefix to list and watch, for "
							+ "example /config/.",
					null);
		}
		if (!endpointsSet(environment)) {
			throw new WatchDeclarationException(name, "source", "is etcd, but " + ENDPOINTS + " is not set",
					"Set " + ENDPOINTS + " to etcd's client URLs, for example http://127.0.0.1:2379, or remove "
							+ "listwatch.watches." + name + ".source to watch the API server.",
					null);
		}
		Map<String, String> kubernetesOnly = new LinkedHashMap<>();
		kubernetesOnly.put("api-version", watch.getApiVersion());
		kubernetesOnly.put("kind", watch.getKind());
		kubernetesOnly.put("resource", watch.getResource());
		kubernetesOnly.put("namespace", watch.getNamespace());
		kubernetesOnly.put("label-selector", watch.getLabelSelector());
		kubernetesOnly.put("field-selector", watch.getFieldSelector());
		kubernetesOnly.put("metadata-only", Boolean.TRUE.equals(watch.getMetadataOnly()) ? "true" : null);
		kubernetesOnly.forEach((property, value) -> {
			if (StringUtils.hasText(value)) {
				throw new WatchDeclarationException(name, property, "is set, but means nothing to an etcd watch",
						"Remove it: an etcd watch is addressed by key-prefix alone (a key <prefix><namespace>/<name> "
								+ "is an object in a namespace), and etcd serves no selectors or metadata-only reads; "
								+ "give the keys to watch a prefix of their own instead.",
						null);
			}
		});
	}

	/**
	 * What makes the watch's {@code <name>ListerWatcher} bean: the {@link EtcdClient}'s
	 * lister-watcher of its key prefix.
	 * @param beanFactory where the client and the properties are
	 * @param watch the declaration
	 * @param type its Java type
	 * @return the supplier of the bean
	 */
	static Supplier<ListerWatcher<?>> listerWatcher(ConfigurableListableBeanFactory beanFactory,
			ListwatchProperties.Watch watch, Class<?> type) {
		return () -> {
			ListwatchProperties.Defaults defaults = beanFactory.getBean(ListwatchProperties.class).getDefaults();
			boolean keepManagedFields = (watch.getKeepManagedFields() != null) ? watch.getKeepManagedFields()
					: defaults.isKeepManagedFields();
			int maxValueBytes = (int) Math.min(Integer.MAX_VALUE - 16,
					Math.max(1024, defaults.getMaxEventSize().toBytes()));
			String keyPrefix = Objects.requireNonNull(watch.getKeyPrefix(), "validate(...) checked that it is set");
			return beanFactory.getBean(EtcdClient.class)
				.listerWatcher(keyPrefix, type, keepManagedFields, maxValueBytes);
		};
	}

	/**
	 * Whether {@code listwatch.etcd.endpoints} names at least one endpoint.
	 * @param environment the environment
	 * @return whether it does
	 */
	static boolean endpointsSet(Environment environment) {
		return Binder.get(environment)
			.bind(ENDPOINTS, Bindable.listOf(String.class))
			.map((endpoints) -> endpoints.stream().anyMatch(StringUtils::hasText))
			.orElse(false);
	}

}
