package dev.listwatch.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.listwatch.cluster.KubeconfigException;
import dev.listwatch.cluster.PemBundles;
import dev.listwatch.etcd.EtcdClient;
import dev.listwatch.etcd.EtcdConnection;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * Auto-configuration of etcd watches ({@code source: etcd}): the {@link EtcdClient} of
 * {@code listwatch.etcd.*}, when {@code listwatch.etcd.endpoints} is set. Each etcd
 * watch's {@code ListerWatcher} bean is the client's lister-watcher of its key prefix;
 * its informer and lister are made as for any watch. When every declared watch is an etcd
 * watch, the API server's client is made only if something asks for it, so that an
 * application needs no kubeconfig.
 */
@AutoConfiguration(after = JacksonAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "listwatch.enabled", matchIfMissing = true)
@Conditional(EtcdAutoConfiguration.OnEndpoints.class)
@EnableConfigurationProperties(EtcdProperties.class)
public final class EtcdAutoConfiguration {

	private static final String PREFIX = "listwatch.etcd.";

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	EtcdClient listwatchEtcdClient(EtcdProperties properties, ObjectProvider<JsonMapper> jsonMapper,
			Environment environment) {
		EtcdConnection connection = connection(properties);
		if (properties.getProtocol() == EtcdClient.Protocol.GRPC && !EtcdClient.grpcAvailable()) {
			throw new EtcdConfigurationException(PREFIX + "protocol", "is grpc, but gRPC is not on the class path",
					"Add io.grpc:grpc-netty-shaded (Spring Boot manages its version), or set " + PREFIX
							+ "protocol to auto or gateway.",
					null);
		}
		Duration idleTimeout = EtcdWatches.idleTimeout(environment);
		if (idleTimeout.toMillis() < 3) {
			throw new EtcdConfigurationException(EtcdWatches.IDLE_TIMEOUT,
					"is " + idleTimeout + ", too short for an etcd watch to ask etcd for progress",
					"Give at least a few seconds (90s by default).", null);
		}
		// a watch silent for the idle timeout, its progress requests unanswered, is
		// given up as a dead connection
		return EtcdClient.create(connection, jsonMapper.getIfAvailable(JsonMapper::shared), properties.getProtocol(),
				idleTimeout);
	}

	@Bean
	static BeanFactoryPostProcessor listwatchEtcdOnly(Environment environment) {
		return new EtcdOnly(environment);
	}

	/**
	 * The connection of the properties.
	 * @param properties the properties
	 * @return the connection
	 * @throws EtcdConfigurationException naming the property at fault and the fix
	 */
	static EtcdConnection connection(EtcdProperties properties) {
		List<URI> endpoints = new ArrayList<>();
		for (String endpoint : properties.getEndpoints()) {
			if (!StringUtils.hasText(endpoint)) {
				continue;
			}
			try {
				endpoints.add(URI.create(endpoint.strip()));
			}
			catch (IllegalArgumentException ex) {
				throw new EtcdConfigurationException(PREFIX + "endpoints", "holds a value that is not a URL",
						"Write each endpoint as scheme, host and port, for example https://10.0.0.5:2379.", null);
			}
		}
		SslBundle ssl = null;
		if (StringUtils.hasText(properties.getCertificateAuthority())
				|| StringUtils.hasText(properties.getClientCertificate())
				|| StringUtils.hasText(properties.getClientKey())) {
			try {
				ssl = PemBundles.of(PREFIX, properties.getCertificateAuthority(), properties.getClientCertificate(),
						properties.getClientKey());
			}
			catch (KubeconfigException ex) {
				String problem = Objects.requireNonNull(ex.getMessage(), "a KubeconfigException always has one");
				int fix = problem.lastIndexOf(". Fix: ");
				int field = problem.indexOf(ex.field());
				throw new EtcdConfigurationException(ex.field(),
						problem.substring(field + ex.field().length() + 1, (fix > 0) ? fix : problem.length()),
						ex.fix(), null);
			}
		}
		String username = StringUtils.hasText(properties.getUsername()) ? properties.getUsername().strip() : null;
		String password = StringUtils.hasText(properties.getPassword()) ? properties.getPassword() : null;
		if (username == null && password != null) {
			throw new EtcdConfigurationException(PREFIX + "password", "is set, but " + PREFIX + "username is not",
					"Set " + PREFIX + "username to the etcd user the password belongs to.", null);
		}
		if (username != null && password == null) {
			throw new EtcdConfigurationException(PREFIX + "username", "is set, but " + PREFIX + "password is not",
					"Set " + PREFIX + "password to the user's password (or remove the user to use etcd without auth, "
							+ "or as the client certificate's common name).",
					null);
		}
		try {
			return new EtcdConnection(endpoints, ssl, username, password, properties.getConnectTimeout());
		}
		catch (IllegalArgumentException ex) {
			String message = ex.getMessage();
			boolean timeout = message != null && message.contains("connectTimeout");
			throw new EtcdConfigurationException(PREFIX + (timeout ? "connect-timeout" : "endpoints"),
					"cannot work: " + message,
					"Give etcd's client URLs, for example " + "https://10.0.0.5:2379, and a positive connect-timeout.",
					null);
		}
	}

	/**
	 * Matches when {@code listwatch.etcd.endpoints} names an endpoint (as a list or
	 * comma-separated).
	 */
	static final class OnEndpoints extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return EtcdWatches.endpointsSet(context.getEnvironment())
					? ConditionOutcome.match(EtcdWatches.ENDPOINTS + " is set")
					: ConditionOutcome.noMatch(EtcdWatches.ENDPOINTS + " is not set");
		}

	}

	/**
	 * When every declared watch is an etcd watch, the API server's client (and the
	 * kubeconfig it loads) is made lazily: only if something asks for it.
	 */
	static final class EtcdOnly implements BeanFactoryPostProcessor {

		private static final List<String> API_SERVER_BEANS = List.of("listwatchCluster", "listwatchApiServerClient");

		private final Environment environment;

		EtcdOnly(Environment environment) {
			this.environment = environment;
		}

		@Override
		public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
			Map<String, ListwatchProperties.Watch> watches = Binder.get(this.environment)
				.bind("listwatch.watches", Bindable.mapOf(String.class, ListwatchProperties.Watch.class))
				.orElse(Map.of());
			List<String> enabled = watches.entrySet()
				.stream()
				.filter((entry) -> entry.getValue().isEnabled())
				.map(Map.Entry::getKey)
				.toList();
			boolean etcdOnly = !enabled.isEmpty() && enabled.stream()
				.allMatch((name) -> EtcdWatches.isEtcd(name,
						Objects.requireNonNull(watches.get(name), "one of the map's own keys")));
			if (etcdOnly) {
				for (String name : API_SERVER_BEANS) {
					if (beanFactory.containsBeanDefinition(name)) {
						beanFactory.getBeanDefinition(name).setLazyInit(true);
					}
				}
			}
		}

	}

}
