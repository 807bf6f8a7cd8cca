package dev.listwatch.client;

import java.time.Clock;
import java.util.function.Supplier;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.Resource;
import dev.listwatch.cluster.KubeconfigException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A failure to obtain credentials (an exec plugin that fails, a token file that cannot be
 * read) is a {@link KubernetesApiException} of kind {@link Kind#CREDENTIALS} naming the
 * request, never a bare exception of the credential suppliers, and never with a secret.
 */
class ApiServerClientCredentialsTests {

	private static final String PATH = "/api/v1/namespaces/ns/configmaps";

	private static final Resource CONFIG_MAPS = new Resource("", "v1", "configmaps", "ConfigMap", true, "ns");

	private final TestApiServer server = new TestApiServer();

	@AfterEach
	void close() {
		this.server.close();
	}

	@Test
	void aFailingExecPluginIsACredentialsFailureOfTheRequest() {
		KubeconfigException failure = new KubeconfigException("/home/me/.kube/config", "users[me].user.exec",
				"runs aws which exited with code 1 (12 bytes on standard error, not shown)", "run it by hand");
		ListerWatcher<KubernetesObject> configMaps = configMaps(() -> {
			throw failure;
		}, () -> false);
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> configMaps.list(ListOptions.none()))
			.satisfies((ex) -> {
				assertThat(ex.kind()).isEqualTo(Kind.CREDENTIALS);
				assertThat(ex.code()).isZero();
				assertThat(ex.reason()).isEqualTo("CREDENTIALS");
				assertThat(ex.getCause()).isSameAs(failure);
			})
			.withMessageStartingWith("GET " + PATH)
			.withMessageContaining("could not obtain credentials")
			.withMessageContaining("users[me].user.exec runs aws which exited with code 1");
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> configMaps.watch(ListOptions.none()).close())
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CREDENTIALS))
			.withMessageStartingWith("GET " + PATH + "?watch=1");
		// nothing was sent without credentials
		assertThat(this.server.requests()).isEmpty();
	}

	@Test
	void anyOtherExceptionOfTheSuppliersIsNamedByItsTypeOnly() {
		ListerWatcher<KubernetesObject> configMaps = configMaps(() -> {
			throw new IllegalStateException("token s3cr3t-token could not be used");
		}, () -> false);
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> configMaps.list(ListOptions.none()))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CREDENTIALS))
			.withMessageContaining("could not obtain credentials: IllegalStateException")
			.withMessageNotContaining("s3cr3t-token");
	}

	@Test
	void aRefreshThatFailsAfterA401IsACredentialsFailure() {
		this.server.on(PATH, (exchange) -> TestApiServer.respond(exchange, 401, new byte[0]));
		ListerWatcher<KubernetesObject> configMaps = configMaps(() -> "Bearer old", () -> {
			throw new KubeconfigException("/etc/token", "", "names token file /etc/token that cannot be read (x)",
					"check the file");
		});
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> configMaps.list(ListOptions.none()))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CREDENTIALS))
			.withMessageContaining("names token file /etc/token that cannot be read");
		assertThat(this.server.requests(PATH)).isEqualTo(1);
	}

	@Test
	void otherExceptionsInsideTheExchangeAreNotCredentialsFailures() {
		ApiServerClient client = this.server.on(PATH, "{}")
			.client(RestClient.builder()
				.requestInterceptor(new AuthorizationInterceptor(() -> "Bearer good", () -> false)), Clock.systemUTC());
		IllegalStateException fromHandler = new IllegalStateException("a handler that fails");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> client.exchange(PATH, (response) -> {
			throw fromHandler;
		}, true)).isSameAs(fromHandler);
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> client.getBytes("/api/v1/nothing"))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.NOT_FOUND));
	}

	private ListerWatcher<KubernetesObject> configMaps(Supplier<String> authorization, Supplier<Boolean> refresh) {
		ApiServerClient client = this.server.client(
				RestClient.builder().requestInterceptor(new AuthorizationInterceptor(authorization, refresh)),
				Clock.systemUTC());
		return client.listerWatcher(CONFIG_MAPS, KubernetesObject.class,
				ApiServerClient.Decoding.DEFAULTS.withMaxEventBytes(1 << 20));
	}

}
