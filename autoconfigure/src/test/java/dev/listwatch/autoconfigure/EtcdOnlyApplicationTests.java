package dev.listwatch.autoconfigure;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.listwatch.KubernetesObject;
import dev.listwatch.controller.Controller;
import dev.listwatch.controller.Reconciler;
import dev.listwatch.controller.Result;
import dev.listwatch.etcd.EtcdClient;
import dev.listwatch.metrics.ListwatchMeterBinder;
import dev.listwatch.metrics.RequestBudgetMeterBinder;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.health.contributor.HealthContributors;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application whose only watches are on etcd, with no kubeconfig anywhere, starts with
 * every auto-configuration on the class path (as {@code @SpringBootApplication} gets
 * them: Actuator, Micrometer, the endpoint, controllers) and with each optional part
 * taken away, and nothing that touches the API server's connection is made: neither the
 * {@code Cluster} (which loads the kubeconfig) nor the client.
 */
class EtcdOnlyApplicationTests {

	private static final List<String> API_SERVER_BEANS = List.of("listwatchCluster", "listwatchApiServerClient");

	static String closedEndpoint;

	@BeforeAll
	static void closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			closedEndpoint = "http://127.0.0.1:" + socket.getLocalPort();
		}
	}

	/**
	 * What is taken away from the class path, each with and without a controller on the
	 * etcd watch.
	 * @return the cases
	 */
	static Stream<Arguments> parts() {
		List<Arguments> cases = new ArrayList<>();
		for (boolean controller : new boolean[] { false, true }) {
			cases.add(Arguments.of("everything", new String[0], controller));
			cases.add(Arguments.of("no gRPC", new String[] { "io.grpc." }, controller));
			cases.add(Arguments.of("no Actuator",
					new String[] { "org.springframework.boot.actuate.", "org.springframework.boot.health." },
					controller));
			cases.add(Arguments.of("no Micrometer", new String[] { "io.micrometer.core." }, controller));
		}
		return cases.stream();
	}

	@ParameterizedTest(name = "{0}, controller: {2}")
	@MethodSource("parts")
	void startsWithoutAKubeconfigAndMakesNothingOfTheApiServer(String name, String[] hidden, boolean controller) {
		FilteredClassLoader classLoader = new FilteredClassLoader(hidden);
		// the auto-configurations of what is hidden go with it (a class loader that hides
		// classes still shows their jars' lists of auto-configurations)
		String excluded = ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader())
			.getCandidates()
			.stream()
			.filter((candidate) -> Stream.of(hidden).anyMatch(candidate::startsWith))
			.collect(Collectors.joining(","));
		ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Application.class)
			.withClassLoader(classLoader)
			.withPropertyValues("spring.autoconfigure.exclude=" + excluded)
			.withPropertyValues("listwatch.kubeconfig=/nonexistent/kubeconfig",
					"listwatch.etcd.endpoints=" + closedEndpoint, "listwatch.watches.flags.source=etcd",
					"listwatch.watches.flags.key-prefix=/flags");
		if (controller) {
			runner = runner.withPropertyValues("listwatch.controllers.flagcheck.watch=flags")
				.withBean("flagcheckReconciler", Reconciler.class,
						() -> (Reconciler<KubernetesObject>) (request) -> Result.done());
		}
		runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(EtcdClient.class);
			for (String bean : API_SERVER_BEANS) {
				assertThat(context.getBeanFactory().containsSingleton(bean)).as(bean).isFalse();
			}
			assertThat(context.containsBean("flagsLister")).isTrue();
			assertThat(context.getBeansOfType(Controller.class)).hasSize(controller ? 1 : 0);
			boolean micrometer = hidden.length == 0 || !hidden[0].startsWith("io.micrometer");
			if (micrometer) {
				// the request budget's meters are there, read from a budget of their own
				assertThat(context).hasSingleBean(ListwatchMeterBinder.class)
					.hasSingleBean(RequestBudgetMeterBinder.class);
				assertThat(context.getBean(MeterRegistry.class).find("listwatch.client.requests").meter()).isNotNull();
			}
			boolean actuator = hidden.length == 0 || !hidden[0].startsWith("org.springframework.boot.actuate");
			if (actuator) {
				assertThat(context.getBean("healthContributorRegistry", HealthContributors.class)
					.getContributor("listwatch")).isNotNull();
			}
		});
	}

	/**
	 * An application as {@code @SpringBootApplication} makes it, with every
	 * auto-configuration the class path offers.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
