package dev.listwatch.controller;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesObject;
import dev.listwatch.Status;
import dev.listwatch.autoconfigure.health.FakeListerWatcher;
import dev.listwatch.endpoint.ListwatchEndpoint;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What user code throws (a reconciler, an event listener) is shown by its class and where
 * it was thrown, in the endpoint and in warnings and errors logged; its message, which
 * may quote values (a JDBC URL with its password, the input of a Jackson binding error),
 * only when asked for.
 */
@ExtendWith(OutputCaptureExtension.class)
class ExceptionMessagesTests {

	private static final String SECRET = "jdbc:postgresql://db:5432/orders?user=app&password=s3cr3t";

	private final FakeListerWatcher server = FakeListerWatcher.open();

	private InformerFactory factory = new InformerFactory(Clock.systemUTC(), (event) -> {
	}, 1, Duration.ofSeconds(1));

	private Informer<KubernetesObject> informer;

	private Controller<KubernetesObject> controller;

	@AfterEach
	void stop() {
		if (this.controller != null) {
			this.controller.stop(Duration.ofSeconds(5));
		}
		if (this.informer != null) {
			this.informer.stop();
		}
		this.factory.close();
	}

	@Test
	void aReconcileFailureIsShownByItsClassAndWhereItWasThrownNotItsMessage(CapturedOutput output) {
		this.server.add("a");
		startFailingController(false);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.status().failures() >= 1);
		String shown = endpoint().watches().controllers().get("test").toString();
		assertThat(shown).contains(IllegalStateException.class.getName())
			.contains("dev.listwatch.controller.ExceptionMessagesTests.fail:")
			.doesNotContain("s3cr3t");
		assertThat(output).contains("Controller test failed to reconcile default/a (1 in a row)")
			.contains("java.lang.IllegalStateException at dev.listwatch.controller.ExceptionMessagesTests.fail:")
			.doesNotContain("s3cr3t");
	}

	@Test
	void messagesAreShownWhenTheApplicationOptsIn(CapturedOutput output) {
		this.server.add("a");
		startFailingController(true);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.status().failures() >= 1);
		ListwatchEndpoint.FailureDescriptor failure = endpoint().watches()
			.controllers()
			.get("test")
			.failing()
			.get("default/a");
		assertThat(failure.exception()).isEqualTo(IllegalStateException.class.getName());
		assertThat(failure.at()).startsWith("dev.listwatch.controller.ExceptionMessagesTests.fail:");
		assertThat(failure.message()).isEqualTo("Cannot connect to " + SECRET);
		assertThat(output).contains("Controller test failed to reconcile default/a (1 in a row)")
			.contains("java.lang.IllegalStateException at dev.listwatch.controller.ExceptionMessagesTests.fail:")
			.contains("s3cr3t");
	}

	@Test
	void theMessageOfAnApiServerFailureIsOursAndAlwaysShown(CapturedOutput output) {
		this.server.add("a");
		this.informer = this.factory.informer("configmaps", KubernetesObject.class, this.server,
				InformerOptions.defaults(), List.of());
		this.controller = new Controller<>("test", this.informer, (request) -> {
			throw new KubernetesApiException(KubernetesApiException.Kind.OTHER,
					"PUT configmaps default/a failed: 500 InternalError: etcdserver: request timed out",
					new Status(500, "InternalError", "etcdserver: request timed out"), null, null);
		}, ControllerOptions.DEFAULTS.withBackoff(Duration.ofSeconds(60), Duration.ofSeconds(60)),
				ObservationRegistry.NOOP);
		this.controller.start();
		this.informer.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.controller.status().failures() >= 1);
		ListwatchEndpoint.FailureDescriptor failure = endpoint().watches()
			.controllers()
			.get("test")
			.failing()
			.get("default/a");
		assertThat(failure.message()).contains("PUT configmaps default/a").contains("etcdserver: request timed out");
		assertThat(output).contains("etcdserver: request timed out");
	}

	@Test
	void aListenerFailureIsLoggedByItsClassAndWhereItWasThrownNotItsMessage(CapturedOutput output) {
		this.factory.close();
		this.factory = new InformerFactory(Clock.systemUTC(), (event) -> fail(), 1, Duration.ofSeconds(1));
		this.server.add("a");
		this.informer = this.factory.informer("configmaps", KubernetesObject.class, this.server,
				InformerOptions.defaults(), List.of());
		this.informer.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.informer.status().listenerFailures() >= 1);
		assertThat(output).contains("A listener failed on")
			.contains("java.lang.IllegalStateException at dev.listwatch.controller.ExceptionMessagesTests.fail:")
			.doesNotContain("s3cr3t");
	}

	private void startFailingController(boolean showMessages) {
		this.informer = this.factory.informer("configmaps", KubernetesObject.class, this.server,
				InformerOptions.defaults(), List.of());
		this.controller = new Controller<>("test", this.informer, (request) -> fail(),
				ControllerOptions.DEFAULTS.withBackoff(Duration.ofSeconds(60), Duration.ofSeconds(60)),
				ObservationRegistry.NOOP)
			.showExceptionMessages(showMessages);
		this.controller.start();
		this.informer.start();
	}

	private ListwatchEndpoint endpoint() {
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerSingleton("test", this.controller);
		return new ListwatchEndpoint(provider(beans, Informer.class), provider(beans, Controller.class));
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static <T> ObjectProvider<T> provider(DefaultListableBeanFactory beans, Class<?> type) {
		return (ObjectProvider) beans.getBeanProvider(type);
	}

	private static Result fail() {
		throw new IllegalStateException("Cannot connect to " + SECRET);
	}

}
