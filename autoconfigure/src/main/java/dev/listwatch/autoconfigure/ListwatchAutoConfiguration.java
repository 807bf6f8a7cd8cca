package dev.listwatch.autoconfigure;

import java.time.Clock;
import java.time.Duration;

import dev.listwatch.client.ApiServerClient;
import dev.listwatch.client.RequestBudget;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.thread.Threading;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.client.RestClient;

/**
 * Auto-configuration of listwatch: connects to the cluster of a
 * {@link ListwatchConnectionDetails} bean, else to the one named by the kubeconfig (or
 * the {@code listwatch.connection.*} properties, or in-cluster), and runs an informer for
 * each watch declared under {@code listwatch.watches}, with a {@code ListerWatcher} and a
 * {@code Lister} bean per watch.
 */
@AutoConfiguration(
		after = { RestClientAutoConfiguration.class, JacksonAutoConfiguration.class, SslAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "listwatch.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ListwatchProperties.class)
public final class ListwatchAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(ListwatchConnectionDetails.class)
	PropertiesListwatchConnectionDetails listwatchConnectionDetails(ListwatchProperties properties,
			ObjectProvider<SslBundles> sslBundles) {
		return new PropertiesListwatchConnectionDetails(properties, sslBundles);
	}

	@Bean
	@ConditionalOnMissingBean
	Cluster listwatchCluster(ListwatchConnectionDetails connectionDetails, ListwatchProperties properties) {
		if (connectionDetails instanceof PropertiesListwatchConnectionDetails fromProperties) {
			// all of the kubeconfig: proxy, insecure-skip-tls-verify and where it came
			// from, too
			return fromProperties.cluster();
		}
		return new Cluster(connectionDetails.getServer(), connectionDetails.getSslBundle(), false,
				connectionDetails.getTlsServerName(), connectionDetails.getCredentials(), null,
				properties.getConnection().getConnectTimeout(), connectionDetails.getNamespace(),
				"connection details " + connectionDetails.getClass().getName());
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	ApiServerClient listwatchApiServerClient(Cluster cluster, ConfigurableListableBeanFactory beanFactory,
			ObjectProvider<RestClient.Builder> restClientBuilder, ObjectProvider<RestClientCustomizer> customizers,
			ObjectProvider<JsonMapper> jsonMapper, Environment environment, ListwatchProperties properties,
			WatchBeanRegistrar registrar, RequestBudget requestBudget) {
		ApiServerClient client = ApiServerClient.create(cluster,
				restClientBuilder(beanFactory, restClientBuilder, customizers),
				jsonMapper.getIfAvailable(JsonMapper::shared), Clock.systemUTC(), properties.getConnection().isHttp2());
		// the field manager of server-side applies and writes, as kubectl names itself
		client.setDefaultFieldManager(environment.getProperty("spring.application.name"));
		// no update of an object read from a transformed cache: it would wipe what the
		// transform left out
		client.setWholeObjectWrites(new TransformedObjectWrites(informers(beanFactory)));
		client.setRequestBudget(requestBudget);
		// the discovery that the startup check (WatchStartupChecks) sends, sent now on a
		// thread of its own: it runs, the client's first request, while the rest of the
		// context is made instead of before the informers start
		client.discoverAhead(registrar.apiVersions());
		return client;
	}

	/**
	 * The request budget of the API server's connection ({@code listwatch.connection.qps}
	 * and {@code burst}): a bean of its own, so that what reads it (its meters) needs no
	 * connection to the API server, and an application whose only watches are on etcd,
	 * without a kubeconfig, starts with them.
	 * @param properties the properties
	 * @return the budget the client takes a token from for each request
	 */
	@Bean
	@ConditionalOnMissingBean
	RequestBudget listwatchRequestBudget(ListwatchProperties properties) {
		ListwatchProperties.Connection connection = properties.getConnection();
		return RequestBudget.of(connection.getQps(), connection.getBurst());
	}

	/**
	 * The builder the client builds on: the application's own {@code RestClient.Builder}
	 * bean when it has one; else what Boot's auto-configured builder is, without the
	 * request factory Boot builds for it first (a JDK HTTP client, with the JVM's default
	 * SSL context, that {@link ApiServerClient#create} replaces at once):
	 * {@code RestClient.builder()} with the {@link RestClientCustomizer} beans applied in
	 * order, as Boot applies them.
	 */
	static RestClient.Builder restClientBuilder(ConfigurableListableBeanFactory beanFactory,
			ObjectProvider<RestClient.Builder> restClientBuilder, ObjectProvider<RestClientCustomizer> customizers) {
		String[] names = beanFactory.getBeanNamesForType(RestClient.Builder.class, true, false);
		if (names.length == 1 && isBootsOwn(beanFactory, names[0])) {
			RestClient.Builder builder = RestClient.builder();
			customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
			return builder;
		}
		return restClientBuilder.getIfAvailable(RestClient::builder);
	}

	private static boolean isBootsOwn(ConfigurableListableBeanFactory beanFactory, String name) {
		if (!beanFactory.containsBeanDefinition(name)) {
			return false;
		}
		BeanDefinition definition = beanFactory.getBeanDefinition(name);
		return definition instanceof AnnotatedBeanDefinition annotated && annotated.getFactoryMethodMetadata() != null
				&& RestClientAutoConfiguration.class.getName()
					.equals(annotated.getFactoryMethodMetadata().getDeclaringClassName());
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	InformerFactory listwatchInformerFactory(ListwatchProperties properties, ApplicationEventPublisher publisher,
			ConfigurableListableBeanFactory beanFactory, WatchBeanRegistrar registrar, Environment environment) {
		Duration idle = properties.getDefaults().getIdleTimeout();
		Duration period = idle.dividedBy(4);
		InformerOptions defaults = DeclaredWatches.informerOptions(properties.getDefaults(),
				new ListwatchProperties.Watch());
		// virtual threads as Boot's own executors have them:
		// spring.threads.virtual.enabled on Java 21+
		InformerFactory.Settings settings = new InformerFactory.Settings(
				Math.max(1, properties.getDefaults().getDispatchThreads()),
				(period.compareTo(Duration.ofSeconds(5)) > 0) ? Duration.ofSeconds(5) : period,
				Threading.VIRTUAL.isActive(environment), defaults);
		InformerFactory factory = new InformerFactory(Clock.systemUTC(), publisher::publishEvent, settings,
				new ConfiguredDeclarations(beanFactory, registrar.shareable()));
		factory.showExceptionMessages(properties.isShowExceptionMessages());
		return factory;
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static ObjectProvider<Informer<?>> informers(ConfigurableListableBeanFactory beanFactory) {
		return (ObjectProvider) beanFactory.getBeanProvider(Informer.class);
	}

	@Bean
	static WatchBeanRegistrar listwatchWatchBeanRegistrar(Environment environment) {
		return new WatchBeanRegistrar(environment, WatchBeanRegistrar.class.getClassLoader());
	}

	@Bean
	SmartLifecycle listwatchWatchResolution(ObjectProvider<Informer<?>> informers, ListwatchProperties properties) {
		return new WatchStartupChecks(informers, properties.getStartup()).resolution();
	}

	@Bean
	SmartLifecycle listwatchWaitForSync(ObjectProvider<Informer<?>> informers, ListwatchProperties properties) {
		return new WatchStartupChecks(informers, properties.getStartup()).waitForSync();
	}

}
