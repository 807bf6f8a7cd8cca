package dev.listwatch.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.listwatch.Items;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.Lister;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Resource;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStream;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.client.RequestBudget;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.ConnectionOptions;
import dev.listwatch.cluster.Credentials;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.ResolvableType;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * The auto-configuration with {@link ApplicationContextRunner}, against no API server: a
 * kubeconfig that points at a closed port, or the application's own
 * {@link ListerWatcher}.
 */
@ExtendWith(OutputCaptureExtension.class)
public class ListwatchAutoConfigurationTests {

	@TempDir
	static Path dir;

	static Path kubeconfig;

	static int closedPort;

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations
		.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class, ListwatchAutoConfiguration.class));

	@BeforeAll
	static void kubeconfig() throws IOException {
		closedPort = closedPort();
		kubeconfig = writeKubeconfig(dir.resolve("kubeconfig.yaml"), "https://127.0.0.1:" + closedPort);
	}

	// ---------------------------------------------------------------- threads

	@Test
	void watchesRunOnVirtualThreadsOnlyWhenBootsSwitchIsOnAndTheJavaVersionHasThem() {
		this.runner.withPropertyValues(base()).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(InformerFactory.class).virtualThreads()).as("off unless switched on").isFalse();
		});
		this.runner.withPropertyValues(base("spring.threads.virtual.enabled=true")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(InformerFactory.class).virtualThreads())
				.isEqualTo(Runtime.version().feature() >= 21);
		});
	}

	@Test
	void aNamespaceSetWithTheApplicationsOwnListerWatcherOrBesideANamespaceFailsStartup() {
		this.runner
			.withPropertyValues(base("listwatch.watches.cms.api-version=v1", "listwatch.watches.cms.kind=ConfigMap",
					"listwatch.watches.cms.namespace=a", "listwatch.watches.cms.namespaces=b,c"))
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(WatchDeclarationException.class)
				.hasMessageContaining("listwatch.watches.cms.namespaces are set, and so is namespace"));
		this.runner.withBean("cmsListerWatcher", ListerWatcher.class, FakeThings::new)
			.withPropertyValues(base("listwatch.watches.cms.api-version=v1", "listwatch.watches.cms.kind=ConfigMap",
					"listwatch.watches.cms.namespaces=b,c"))
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(WatchDeclarationException.class)
				.hasMessageContaining("the application defines the bean 'cmsListerWatcher'"));
	}

	// ---------------------------------------------------------------- beans per watch

	@Test
	void eachWatchGetsAListerWatcherAListerAndAnInformerOfItsType() {
		this.runner.withPropertyValues(base("listwatch.watches.configmaps.api-version=v1",
				"listwatch.watches.configmaps.kind=ConfigMap", "listwatch.watches.things.api-version=example.com/v1",
				"listwatch.watches.things.resource=things", "listwatch.watches.things.type=" + Thing.class.getName()))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(Cluster.class)
					.hasSingleBean(ApiServerClient.class)
					.hasSingleBean(InformerFactory.class);
				assertThat(context).hasBean("configmapsListerWatcher")
					.hasBean("configmapsLister")
					.hasBean("configmapsInformer")
					.hasBean("thingsListerWatcher")
					.hasBean("thingsLister")
					.hasBean("thingsInformer");
				assertThat(context
					.getBeanNamesForType(ResolvableType.forClassWithGenerics(Lister.class, KubernetesObject.class)))
					.containsExactly("configmapsLister");
				assertThat(context.getBeanNamesForType(ResolvableType.forClassWithGenerics(Lister.class, Thing.class)))
					.containsExactly("thingsLister");
				assertThat(context
					.getBeanNamesForType(ResolvableType.forClassWithGenerics(ListerWatcher.class, Thing.class)))
					.containsExactly("thingsListerWatcher");
				assertThat(
						context.getBeanNamesForType(ResolvableType.forClassWithGenerics(Informer.class, Thing.class)))
					.containsExactly("thingsInformer");
				Informer<?> things = context.getBean("thingsInformer", Informer.class);
				assertThat(things.type()).isEqualTo(Thing.class);
				assertThat(things.watch()).isEqualTo("things");
				assertThat(things.isRunning()).isTrue();
				assertThat(things.listerWatcher()).isSameAs(context.getBean("thingsListerWatcher"));
				assertThat(context.getBean(ApiServerClient.class))
					.hasToString("ApiServerClient[https://127.0.0.1:" + closedPort + "]");
			});
	}

	@Test
	void theConnectionsRequestBudgetIsFiftyQpsAndABurstOfAHundredUnlessSet() {
		this.runner.withPropertyValues(base()).run((context) -> {
			RequestBudget budget = context.getBean(ApiServerClient.class).requestBudget();
			assertThat(budget.enabled()).isTrue();
			assertThat(budget.qps()).isEqualTo(50);
			assertThat(budget.burst()).isEqualTo(100);
		});
		this.runner.withPropertyValues(base("listwatch.connection.qps=7.5", "listwatch.connection.burst=3"))
			.run((context) -> {
				RequestBudget budget = context.getBean(ApiServerClient.class).requestBudget();
				assertThat(budget.qps()).isEqualTo(7.5);
				assertThat(budget.burst()).isEqualTo(3);
			});
		this.runner.withPropertyValues(base("listwatch.connection.qps=0"))
			.run((context) -> assertThat(context.getBean(ApiServerClient.class).requestBudget().enabled()).isFalse());
	}

	@Test
	void anApplicationsListerWatcherIsUsedInsteadOfTheDeclaredOne() {
		this.runner.withUserConfiguration(OwnListerWatcher.class)
			.withPropertyValues(base("listwatch.watches.things.api-version=example.com/v1",
					"listwatch.watches.things.kind=Thing", "listwatch.watches.things.type=" + Thing.class.getName()))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				FakeThings own = context.getBean(FakeThings.class);
				assertThat(context.getBean("thingsListerWatcher")).isSameAs(own);
				assertThat(context.getBean("thingsInformer", Informer.class).listerWatcher()).isSameAs(own);
				@SuppressWarnings("unchecked")
				Lister<Thing> lister = context.getBean("thingsLister", Lister.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> lister.size() == 2);
				assertThat(lister.get("ns", "a")).contains(new Thing("a"));
				assertThat(own.watched.await(10, TimeUnit.SECONDS)).isTrue();
			});
	}

	@Test
	void theGroupVersionsDiscoveredAheadAreThoseOfTheDeclaredWatchesThatListThroughTheClient() {
		this.runner.withUserConfiguration(OwnListerWatcher.class)
			.withPropertyValues(base("listwatch.watches.things.api-version=example.com/v1",
					"listwatch.watches.things.kind=Thing", "listwatch.watches.things.type=" + Thing.class.getName(),
					"listwatch.watches.deployments.api-version=apps/v1",
					"listwatch.watches.deployments.kind=Deployment", "listwatch.watches.configmaps.api-version=v1",
					"listwatch.watches.configmaps.kind=ConfigMap", "listwatch.watches.secrets.api-version=v1",
					"listwatch.watches.secrets.namespaces=a,b", "listwatch.watches.secrets.kind=Secret"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				// things lists through the application's own lister-watcher
				assertThat(context.getBean(WatchBeanRegistrar.class).apiVersions()).containsExactly("apps/v1", "v1");
			});
	}

	@Test
	void anApplicationsClusterIsUsed() {
		Path other = writeKubeconfig(dir.resolve("other.yaml"), "https://127.0.0.1:" + (closedPort + 1) + "/prefix");
		this.runner.withBean(Cluster.class, () -> Cluster.load(settings(other)))
			.withPropertyValues(base())
			.run((context) -> {
				assertThat(context).hasSingleBean(Cluster.class);
				assertThat(context.getBean(ApiServerClient.class))
					.hasToString("ApiServerClient[https://127.0.0.1:" + (closedPort + 1) + "/prefix]");
			});
	}

	@Test
	void anApplicationsApiServerClientIsUsed() {
		ApiServerClient own = ApiServerClient.create(
				new Cluster(URI.create("https://own.example"), null, false, null, Credentials.none(), null,
						Duration.ofSeconds(1), "default", "own"),
				RestClient.builder(), JsonMapper.shared(), Clock.systemUTC());
		this.runner.withBean(ApiServerClient.class, () -> own)
			.withPropertyValues(
					base("listwatch.watches.configmaps.api-version=v1", "listwatch.watches.configmaps.kind=ConfigMap"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).getBean(ApiServerClient.class).isSameAs(own);
				assertThat(context.getBean("configmapsListerWatcher", ListerWatcher.class).resource().kind())
					.isEqualTo("ConfigMap");
			});
	}

	@Test
	void bootsRestClientCustomizersShapeTheClientWithoutBootBuildingARequestFactoryForIt() {
		AtomicInteger customized = new AtomicInteger();
		AtomicInteger requestFactories = new AtomicInteger();
		this.runner.withBean("counting", RestClientCustomizer.class, () -> (builder) -> customized.incrementAndGet())
			.withBean(ClientHttpRequestFactoryBuilder.class, () -> (settings) -> {
				requestFactories.incrementAndGet();
				return new SimpleClientHttpRequestFactory();
			})
			.withPropertyValues(base())
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(ApiServerClient.class);
				assertThat(customized).as("the customizer applied to the client's builder").hasValue(1);
				assertThat(requestFactories).as("request factories Boot built for a builder listwatch replaces")
					.hasValue(0);
				// Boot's builder itself still builds its request factory for everyone
				// else
				context.getBean(RestClient.Builder.class);
				assertThat(requestFactories).hasValue(1);
				assertThat(customized).hasValue(2);
			});
	}

	@Test
	void anApplicationsOwnRestClientBuilderIsTheOneTheClientBuildsOn() {
		AtomicInteger made = new AtomicInteger();
		AtomicInteger customized = new AtomicInteger();
		this.runner.withBean("myRestClientBuilder", RestClient.Builder.class, () -> {
			made.incrementAndGet();
			return RestClient.builder();
		})
			.withBean("counting", RestClientCustomizer.class, () -> (builder) -> customized.incrementAndGet())
			.withPropertyValues(base())
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(ApiServerClient.class);
				assertThat(made).hasValue(1);
				assertThat(customized).as("the application's builder is taken as it is").hasValue(0);
			});
	}

	@Test
	void disabledMeansNoBeansAtAllEvenWithWatchesDeclared() {
		this.runner
			.withPropertyValues(base("listwatch.enabled=false", "listwatch.watches.configmaps.api-version=v1",
					"listwatch.watches.configmaps.kind=ConfigMap"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(Cluster.class)
					.doesNotHaveBean(ApiServerClient.class)
					.doesNotHaveBean(InformerFactory.class)
					.doesNotHaveBean(Informer.class)
					.doesNotHaveBean("configmapsListerWatcher")
					.doesNotHaveBean("configmapsLister");
			});
	}

	@Test
	void disabledNeedsNoKubeconfig() {
		this.runner.withPropertyValues("listwatch.enabled=false", "listwatch.kubeconfig=" + dir.resolve("missing.yaml"))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(Cluster.class));
	}

	// ---------------------------------------------------------------- declarations that
	// cannot work

	@Test
	void aWatchWithoutApiVersionFailsNamingTheWatchAndTheFix() {
		assertDeclarationFailure(List.of("listwatch.watches.configmaps.kind=ConfigMap"), "configmaps", "api-version",
				"Watch 'configmaps' cannot work: listwatch.watches.configmaps.api-version is not set",
				"Set listwatch.watches.configmaps.api-version");
	}

	@Test
	void aWatchWithNeitherKindNorResourceFails() {
		assertDeclarationFailure(List.of("listwatch.watches.cms.api-version=v1"), "cms", "kind",
				"listwatch.watches.cms.kind is not set, and neither is resource",
				"Set listwatch.watches.cms.kind (for example 'ConfigMap') or listwatch.watches.cms.resource");
	}

	@Test
	void aLabelSelectorThatDoesNotParseFails() {
		assertDeclarationFailure(
				List.of("listwatch.watches.web.api-version=v1", "listwatch.watches.web.kind=ConfigMap",
						"listwatch.watches.web.label-selector=app in (web"),
				"web", "label-selector", "listwatch.watches.web.label-selector does not parse",
				"Write a Kubernetes label selector");
	}

	@Test
	void aTypeThatCannotBeLoadedFails() {
		assertDeclarationFailure(
				List.of("listwatch.watches.web.api-version=v1", "listwatch.watches.web.kind=ConfigMap",
						"listwatch.watches.web.type=com.example.Missing"),
				"web", "type", "names class 'com.example.Missing', which cannot be loaded",
				"Give the fully qualified name of a class");
	}

	@Test
	void aMalformedApiVersionFails() {
		assertDeclarationFailure(
				List.of("listwatch.watches.web.api-version=apps/v1/x", "listwatch.watches.web.kind=Deployment"), "web",
				"api-version", "'apps/v1/x' is not a group/version", "'group/version'");
	}

	@Test
	void theFailureAnalyzersAreRegisteredAndStartupShowsTheAnalysis(CapturedOutput output) {
		SpringApplication application = new SpringApplication(App.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setDefaultProperties(Map.of("listwatch.kubeconfig", kubeconfig.toString(),
				"listwatch.watches.configmaps.kind", "ConfigMap", "spring.main.banner-mode", "off"));
		assertThatException().isThrownBy(application::run);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Watch 'configmaps' cannot work: listwatch.watches.configmaps.api-version is not set")
			.contains("Action:")
			.contains("Set listwatch.watches.configmaps.api-version to the resource's group/version");
	}

	// ---------------------------------------------------------------- an unreachable
	// cluster

	@Test
	void waitForSyncAgainstAnUnreachableServerFailsAfterTheSyncTimeout() {
		long start = System.nanoTime();
		this.runner
			.withPropertyValues(base("listwatch.watches.configmaps.api-version=v1",
					"listwatch.watches.configmaps.kind=ConfigMap", "listwatch.startup.wait-for-sync=true",
					"listwatch.startup.sync-timeout=2s", "listwatch.defaults.initial-backoff=50ms"))
			.run((context) -> {
				Duration took = Duration.ofNanos(System.nanoTime() - start);
				assertThat(context).hasFailed();
				assertThat(took).isGreaterThanOrEqualTo(Duration.ofSeconds(2)).isLessThan(Duration.ofSeconds(30));
				FailureAnalysis analysis = new ListwatchFailureAnalyzers.SyncTimeout()
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription())
					.contains("listwatch.startup.wait-for-sync is set and these watches did not sync within 2 s")
					.contains("'configmaps'")
					.contains("last error: GET https://127.0.0.1:");
				assertThat(analysis.getAction()).contains("Check that the cluster is reachable")
					.contains("listwatch.startup.sync-timeout");
			});
	}

	@Test
	void withoutWaitForSyncStartupSucceedsAndTheWatchKeepsRetrying() {
		this.runner
			.withPropertyValues(
					base("listwatch.watches.configmaps.api-version=v1", "listwatch.watches.configmaps.kind=ConfigMap",
							"listwatch.defaults.initial-backoff=20ms", "listwatch.defaults.max-backoff=100ms"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Informer<?> informer = context.getBean("configmapsInformer", Informer.class);
				await().atMost(Duration.ofSeconds(20)).until(() -> informer.status().consecutiveFailures() >= 3);
				WatchStatus status = informer.status();
				assertThat(status.synced()).isFalse();
				assertThat(status.lastError().reason()).isEqualTo("CONNECTION");
				assertThat(status.totalRestarts()).isGreaterThanOrEqualTo(3);
				assertThat(informer.isRunning()).isTrue();
			});
	}

	// ---------------------------------------------------------------- helpers

	private void assertDeclarationFailure(List<String> properties, String watch, String property, String description,
			String action) {
		this.runner.withPropertyValues(base(properties.toArray(String[]::new))).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new ListwatchFailureAnalyzers.WatchDeclaration()
				.analyze(context.getStartupFailure());
			assertThat(analysis).as("a failure analysis").isNotNull();
			assertThat(analysis.getDescription()).contains(description).contains("'" + watch + "'");
			assertThat(analysis.getAction()).contains(action);
			assertThat(((WatchDeclarationException) analysis.getCause()).property()).isEqualTo(property);
			assertThat(((WatchDeclarationException) analysis.getCause()).watch()).isEqualTo(watch);
		});
	}

	private static String[] base(String... more) {
		String[] all = new String[more.length + 1];
		all[0] = "listwatch.kubeconfig=" + kubeconfig;
		System.arraycopy(more, 0, all, 1, more.length);
		return all;
	}

	public static Path writeKubeconfig(Path file, String server) {
		try {
			Files.writeString(file, """
					apiVersion: v1
					kind: Config
					clusters:
					- name: c
					  cluster:
					    server: %s
					    insecure-skip-tls-verify: true
					users:
					- name: u
					  user:
					    token: not-a-real-token
					contexts:
					- name: x
					  context:
					    cluster: c
					    user: u
					current-context: x
					""".formatted(server));
			return file;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static ConnectionOptions settings(Path kubeconfig) {
		return ConnectionOptions.builder().kubeconfig(kubeconfig.toString()).environment(Map.of()).build();
	}

	public static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	/** A Java type for a watch. */
	public record Thing(String name) {
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
			ListwatchAutoConfiguration.class })
	static class App {

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnListerWatcher {

		@Bean
		FakeThings thingsListerWatcher() {
			return new FakeThings();
		}

	}

	/** Two things, then a watch that stays silent until closed. */
	static final class FakeThings implements ListerWatcher<Thing> {

		final CountDownLatch watched = new CountDownLatch(1);

		@Override
		public ObjectList<Thing> list(ListOptions options) {
			return new ObjectList<>(
					Items.zip(
							List.of(new ObjectMeta("ns", "a", "1", "5", Map.of()),
									new ObjectMeta("ns", "b", "2", "6", Map.of())),
							List.of(new Thing("a"), new Thing("b"))),
					"6", null, null);
		}

		@Override
		public WatchStream<Thing> watch(ListOptions options) {
			if (Boolean.TRUE.equals(options.sendInitialEvents())) {
				throw dev.listwatch.KubernetesApiException.of("watch",
						new dev.listwatch.Status(422, "Invalid", "no streaming lists here"), null);
			}
			this.watched.countDown();
			CountDownLatch closed = new CountDownLatch(1);
			return new WatchStream<>() {

				@Override
				public boolean hasNext() {
					try {
						closed.await(60, TimeUnit.SECONDS);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
					return false;
				}

				@Override
				public WatchEvent<Thing> next() {
					throw new NoSuchElementException();
				}

				@Override
				public void close() {
					closed.countDown();
				}

			};
		}

		@Override
		public Resource resource() {
			return new Resource("example.com", "v1", "things", "Thing", true, "ns");
		}

	}

}
