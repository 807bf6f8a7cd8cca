package dev.listwatch.reliability;

import java.time.Duration;

import dev.listwatch.KubernetesObject;
import dev.listwatch.WatchStatus;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.autoconfigure.health.ListwatchHealthContributorAutoConfiguration;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On the real API server: a resync period delivers the cache again without a request; a
 * watch with {@code auto-startup: false} has its beans, is healthy while not started, and
 * starts and stops when the application says; {@code enabled: false} declares nothing.
 */
class ResyncAndStartupIT {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
				ListwatchAutoConfiguration.class, ListwatchHealthContributorAutoConfiguration.class))
		.withBean(EventRecorder.class);

	@Test
	void aResyncDeliversTheCacheAgainWithoutARequest() {
		LocalApiServer server = LocalApiServer.shared();
		String ns = server.createNamespace("lw-resync");
		String path = "/api/v1/namespaces/" + ns + "/configmaps";
		server.writer().create(path, ApiWriter.configMap(ns, "a", "v", "0"));
		RequestCounter counter = new RequestCounter(path);
		this.runner.withBean(RequestCounter.class, () -> counter)
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(), "listwatch.watches.cms.api-version=v1",
					"listwatch.watches.cms.kind=ConfigMap", "listwatch.watches.cms.namespace=" + ns,
					"listwatch.watches.cms.resync-period=300ms")
			.run((context) -> {
				Informer<?> informer = context.getBean("cmsInformer", Informer.class);
				EventRecorder recorder = context.getBean(EventRecorder.class);
				await().atMost(WAIT).until(() -> informer.status().synced());
				long requests = counter.requests.size();
				await().atMost(WAIT).until(() -> recorder.resyncs().size() >= 2);
				ResourceEvent<KubernetesObject> resync = recorder.resyncs().get(0);
				assertThat(resync.type()).isEqualTo(ResourceEvent.Type.MODIFIED);
				assertThat(resync.key()).isEqualTo(ns + "/a");
				assertThat(resync.oldObject()).isSameAs(resync.object());
				assertThat(resync.initialList()).isFalse();
				assertThat(counter.requests).as("no request for a resync").hasSize((int) requests);
				assertThat(informer.status().watched().resyncPeriod()).isEqualTo(Duration.ofMillis(300));
				// a real change is not a resync
				server.writer().patch(path + "/a", "{\"data\":{\"v\":\"1\"}}");
				await().atMost(WAIT)
					.until(() -> recorder.all.stream()
						.anyMatch((e) -> !e.resync() && e.type() == ResourceEvent.Type.MODIFIED
								&& "1".equals(e.object().at("/data/v").asString())));
			});
	}

	@Test
	void aWatchWithoutAutoStartupIsHealthyUntilTheApplicationStartsIt() {
		LocalApiServer server = LocalApiServer.shared();
		String ns = server.createNamespace("lw-later");
		String path = "/api/v1/namespaces/" + ns + "/configmaps";
		server.writer().create(path, ApiWriter.configMap(ns, "a", "v", "0"));
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(), "listwatch.startup.wait-for-sync=true",
					"listwatch.watches.later.api-version=v1", "listwatch.watches.later.kind=ConfigMap",
					"listwatch.watches.later.namespace=" + ns, "listwatch.watches.later.auto-startup=false",
					"listwatch.watches.off.api-version=v1", "listwatch.watches.off.kind=ConfigMap",
					"listwatch.watches.off.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasBean("laterLister").hasBean("laterListerWatcher");
				assertThat(context).doesNotHaveBean("offInformer")
					.doesNotHaveBean("offLister")
					.doesNotHaveBean("offListerWatcher");
				Informer<?> informer = context.getBean("laterInformer", Informer.class);
				HealthIndicator health = (HealthIndicator) context
					.getBean("listwatchHealthContributor", CompositeHealthContributor.class)
					.getContributor("later");
				assertThat(informer.isRunning()).isFalse();
				assertThat(informer.status().state()).isEqualTo(WatchStatus.State.STARTING);
				Health waiting = health.health();
				assertThat(waiting.getStatus()).isEqualTo(Status.UP);
				assertThat((String) waiting.getDetails().get("reason")).contains("not started");
				assertThat(context.getBean(EventRecorder.class).all).isEmpty();

				informer.start();
				assertThat(informer.awaitSynced(WAIT)).isTrue();
				await().atMost(WAIT).until(() -> !context.getBean(EventRecorder.class).all.isEmpty());
				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
				assertThat(health.health().getDetails()).doesNotContainKey("reason");

				// stopped by the application (say, on losing leadership): as before its
				// first start
				informer.stop();
				assertThat(informer.isRunning()).isFalse();
				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
				assertThat((String) health.health().getDetails().get("reason"))
					.isEqualTo("not started: auto-startup is false, and the application has stopped it");
			});
	}

}
