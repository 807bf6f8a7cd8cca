package dev.listwatch.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.event.WatchStateChangedEvent;
import dev.listwatch.event.WatchStateChangedEvent.State;
import dev.listwatch.health.ListwatchHealthContributor;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import dev.listwatch.testsupport.fault.FaultProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link WatchStateChangedEvent}s on a real kube-apiserver: a watch cut off through the
 * {@link FaultProxy} says FAILING and RECOVERED once each, however often it retried; a
 * watch whose identity RBAC forbids says FAILED and stops under {@code on-refusal: fail},
 * and keeps retrying by default; no event nor status holds the token.
 */
@ExtendWith(LocalApiServerExtension.class)
class WatchStateEventsIT {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@TempDir
	Path dir;

	@Test
	void aWatchCutOffPublishesFailingThenRecoveredOnceEach(LocalApiServer server) {
		String namespace = server.createNamespace("lw-state-cut");
		server.writer().create("/api/v1/namespaces/" + namespace + "/configmaps", configMap(namespace, "one"));
		try (FaultProxy proxy = FaultProxy.startFor(server.serverUrl())) {
			Path kubeconfig = proxy.kubeconfigFor(server.kubeconfig(), this.dir.resolve("kubeconfig"));
			runner(kubeconfig, "cms", namespace, "listwatch.connection.connect-timeout=2s").run((context) -> {
				assertThat(context).hasNotFailed();
				Recorder recorder = context.getBean(Recorder.class);
				Informer<?> informer = context.getBean("cmsInformer", Informer.class);
				await().atMost(WAIT).until(() -> recorder.states("cms").contains(State.SYNCED));
				// the stream held: its cut is no failure, the reconnections refused are
				await().atMost(WAIT)
					.until(() -> informer.status().silentFor() != null
							&& informer.status().silentFor().toMillis() > 1500);
				proxy.refuse();
				proxy.cutAll();
				await().atMost(WAIT).until(() -> informer.status().consecutiveFailures() >= 4);
				assertThat(recorder.states("cms")).containsExactly(State.SYNCED, State.FAILING);
				proxy.resume();
				await().atMost(WAIT).until(() -> recorder.states("cms").contains(State.RECOVERED));
				assertThat(informer.status().totalRestarts()).as("it retried").isGreaterThanOrEqualTo(4);
				assertThat(recorder.states("cms")).as("once each, not once per retry")
					.containsExactly(State.SYNCED, State.FAILING, State.RECOVERED);
				WatchStateChangedEvent failing = recorder.events.get(1);
				assertThat(failing.previous()).isEqualTo(State.SYNCED);
				assertThat(failing.reason()).isEqualTo(RestartReason.DISCONNECTED);
				assertThat(failing.lastError()).isNotNull();
				assertThat(failing.status().failingSince()).isNotNull();
				WatchStateChangedEvent recovered = recorder.events.get(2);
				assertThat(recovered.previous()).isEqualTo(State.FAILING);
				assertThat(recovered.status().failingSince()).isNull();
				assertNoToken(server.adminToken(), recorder, informer.status());
			});
		}
	}

	@Test
	void aForbiddenWatchFailsAndStopsUnderFailAndKeepsRetryingByDefault(LocalApiServer server) throws Exception {
		String token = server.forbiddenToken();
		Path kubeconfig = this.dir.resolve("forbidden.yaml");
		Files.writeString(kubeconfig, """
				apiVersion: v1
				kind: Config
				clusters: [{name: c, cluster: {server: "%s", certificate-authority: "%s"}}]
				users: [{name: u, user: {token: %s}}]
				contexts: [{name: x, context: {cluster: c, user: u}}]
				current-context: x
				""".formatted(server.serverUrl(), server.caCertificatePath(), token));
		runner(kubeconfig, "patient", "default", "listwatch.watches.strict.api-version=v1",
				"listwatch.watches.strict.kind=ConfigMap", "listwatch.watches.strict.namespace=default",
				"listwatch.watches.strict.on-refusal=fail")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Recorder recorder = context.getBean(Recorder.class);
				Informer<?> strict = context.getBean("strictInformer", Informer.class);
				Informer<?> patient = context.getBean("patientInformer", Informer.class);
				await().atMost(WAIT).until(() -> recorder.states("strict").contains(State.FAILED));
				await().atMost(WAIT).until(() -> patient.status().restarts(RestartReason.FORBIDDEN) >= 3);

				assertThat(recorder.states("strict")).containsExactly(State.FAILED);
				WatchStateChangedEvent failed = recorder.of("strict").get(0);
				assertThat(failed.reason()).isEqualTo(RestartReason.FORBIDDEN);
				assertThat(failed.lastError().code()).isEqualTo(403);
				assertThat(failed.lastError().reason()).isEqualTo("Forbidden");
				assertThat(failed.status().state()).isEqualTo(WatchStatus.State.FAILED);
				WatchStatus strictStatus = strict.status();
				assertThat(strictStatus.state()).isEqualTo(WatchStatus.State.FAILED);
				assertThat(strictStatus.running()).isTrue();
				assertThat(strictStatus.totalRestarts()).as("never retried").isZero();
				assertThat(strictStatus.lists().count()).isZero();
				@SuppressWarnings({ "unchecked", "rawtypes" })
				ObjectProvider<Informer<?>> informers = (ObjectProvider) context.getBeanProvider(Informer.class);
				Health health = ((HealthIndicator) new ListwatchHealthContributor(informers, Duration.ofMinutes(1),
						Status.DOWN, Status.OUT_OF_SERVICE, Status.UP)
					.getContributor("strict")).health();
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.getDetails().get("reason").toString()).contains("refused it (")
					.contains("403")
					.contains("on-refusal is fail");

				assertThat(recorder.states("patient")).as("failing once, never failed").containsExactly(State.FAILING);
				assertThat(recorder.of("patient").get(0).reason()).isEqualTo(RestartReason.FORBIDDEN);
				assertThat(patient.status().state()).isNotEqualTo(WatchStatus.State.FAILED);

				strict.stop();
				assertThat(recorder.states("strict")).containsExactly(State.FAILED, State.STOPPED);
				assertThat(recorder.of("strict").get(1).previous()).isEqualTo(State.FAILED);
				assertNoToken(token, recorder, strict.status(), patient.status());
			});
	}

	private static void assertNoToken(String token, Recorder recorder, WatchStatus... statuses) {
		assertThat(recorder.events).isNotEmpty().allSatisfy((event) -> {
			assertThat(event.toString()).doesNotContain(token);
			assertThat(event.status().toString()).doesNotContain(token);
			assertThat(String.valueOf(event.lastError())).doesNotContain(token);
		});
		for (WatchStatus status : statuses) {
			assertThat(status.toString()).doesNotContain(token);
		}
	}

	private ApplicationContextRunner runner(Path kubeconfig, String watch, String namespace, String... more) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class))
			.withBean(Recorder.class)
			.withPropertyValues("listwatch.kubeconfig=" + kubeconfig, "listwatch.watches." + watch + ".api-version=v1",
					"listwatch.watches." + watch + ".kind=ConfigMap",
					"listwatch.watches." + watch + ".namespace=" + namespace,
					"listwatch.defaults.initial-backoff=100ms", "listwatch.defaults.max-backoff=300ms")
			.withPropertyValues(more);
	}

	private static String configMap(String namespace, String name) {
		return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\""
				+ namespace + "\"},\"data\":{\"k\":\"v\"}}";
	}

	/** Records every state event, in the order published. */
	static final class Recorder implements ApplicationListener<WatchStateChangedEvent> {

		final List<WatchStateChangedEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(WatchStateChangedEvent event) {
			this.events.add(event);
		}

		List<WatchStateChangedEvent> of(String watch) {
			return this.events.stream().filter((event) -> event.watch().equals(watch)).toList();
		}

		List<State> states(String watch) {
			return of(watch).stream().map(WatchStateChangedEvent::state).toList();
		}

	}

}
