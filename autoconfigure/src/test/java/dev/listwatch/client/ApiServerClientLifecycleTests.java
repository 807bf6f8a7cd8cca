package dev.listwatch.client;

import java.time.Clock;
import java.time.Duration;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.Resource;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.Credentials;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A client made by {@link ApiServerClient#create} owns its transport: its credentials
 * reach every request, a failure of an application's {@link Credentials} is a
 * {@code CREDENTIALS} failure of the request, and {@link ApiServerClient#close()} shuts
 * the managed executor down.
 */
class ApiServerClientLifecycleTests {

	private static final String PATH = "/api/v1/namespaces/ns/configmaps";

	private static final Resource CONFIG_MAPS = new Resource("", "v1", "configmaps", "ConfigMap", true, "ns");

	private final TestApiServer server = new TestApiServer();

	@AfterEach
	void stop() {
		this.server.close();
	}

	private ApiServerClient create(Credentials credentials) {
		Cluster cluster = new Cluster(this.server.url(), null, false, null, credentials, null, Duration.ofSeconds(5),
				"default", "test server");
		return ApiServerClient.create(cluster, RestClient.builder(), JsonMapper.shared(), Clock.systemUTC());
	}

	@Test
	void closeShutsDownTheManagedExecutorAndLaterRequestsFailAsConnectionFailures() {
		this.server.on(PATH, "{\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[]}");
		ApiServerClient client = create(Credentials.bearerToken("t0ken"));
		ListerWatcher<KubernetesObject> configMaps = client.listerWatcher(CONFIG_MAPS, KubernetesObject.class,
				ApiServerClient.Decoding.DEFAULTS);
		assertThat(configMaps.list(ListOptions.none()).resourceVersion()).isEqualTo("7");
		assertThat(this.server.authorizations()).containsExactly("Bearer t0ken");
		Transport transport = client.transport();
		assertThat(transport).isNotNull();
		assertThat(transport.executor().isShutdown()).isFalse();
		client.close();
		assertThat(transport.executor().isShutdown()).isTrue();
		client.close();
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> configMaps.list(ListOptions.none()))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CONNECTION))
			.withMessageContaining("the API server client is closed");
		assertThat(this.server.requests(PATH)).isEqualTo(1);
	}

	/**
	 * Lease traffic's lane: the same server and credentials on a transport of its own,
	 * without the client's request budget, closed with the client.
	 */
	@Test
	void theLaneHasItsOwnConnectionAndNoBudgetAndClosesWithTheClient() {
		this.server.on(PATH, "{\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[]}");
		ApiServerClient client = create(Credentials.bearerToken("t0ken"));
		// one token, renewed every 1,000 s: a second request of the client would wait
		client.setRequestBudget(RequestBudget.of(0.001, 1));
		client.listerWatcher(CONFIG_MAPS, KubernetesObject.class, ApiServerClient.Decoding.DEFAULTS)
			.list(ListOptions.none());
		ApiServerClient lane = client.lane();
		assertThat(client.lane()).isSameAs(lane);
		ListerWatcher<KubernetesObject> onLane = lane.listerWatcher(CONFIG_MAPS, KubernetesObject.class,
				ApiServerClient.Decoding.DEFAULTS);
		for (int i = 0; i < 5; i++) {
			assertThat(onLane.list(ListOptions.none()).resourceVersion()).isEqualTo("7");
		}
		assertThat(lane.requestBudget().throttled()).isZero();
		assertThat(this.server.authorizations()).containsOnly("Bearer t0ken").hasSize(6);
		Transport transport = lane.transport();
		assertThat(transport).isNotNull().isNotSameAs(client.transport());
		client.close();
		assertThat(transport.executor().isShutdown()).isTrue();
		assertThatIllegalStateException().isThrownBy(client::lane);
	}

	@Test
	void eachClientHasItsOwnExecutor() {
		try (ApiServerClient one = create(Credentials.none()); ApiServerClient two = create(Credentials.none())) {
			assertThat(one.transport().executor()).isNotSameAs(two.transport().executor());
		}
	}

	@Test
	void aFailureOfAnApplicationsCredentialsIsACredentialsFailureAndNothingIsSent() {
		Credentials broken = new Credentials() {

			@Override
			public String authorization() {
				throw new IllegalStateException("vault unreachable, token s3cr3t not renewed");
			}

			@Override
			public boolean refresh() {
				return false;
			}

		};
		try (ApiServerClient client = create(broken)) {
			ListerWatcher<KubernetesObject> configMaps = client.listerWatcher(CONFIG_MAPS, KubernetesObject.class,
					ApiServerClient.Decoding.DEFAULTS);
			assertThatExceptionOfType(KubernetesApiException.class)
				.isThrownBy(() -> configMaps.list(ListOptions.none()))
				.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CREDENTIALS))
				.withMessageStartingWith("GET " + PATH)
				.withMessageNotContaining("s3cr3t");
		}
		assertThat(this.server.requests()).isEmpty();
	}

}
