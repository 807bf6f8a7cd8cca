package dev.listwatch.testsupport.boot;

import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Lister;
import dev.listwatch.autoconfigure.ListwatchConnectionDetails;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A small Boot application with an {@code @EventListener}, tested the way a user tests
 * theirs: {@link LocalApiServerConnection @LocalApiServerConnection} connects it to the
 * real API server (the kubeconfig property names a file that does not exist: reading it
 * would fail startup), and the injected {@link ApiWriter} creates the object the listener
 * must see.
 */
@SpringBootTest(classes = LocalApiServerConnectionIT.ListenerApplication.class,
		properties = { "listwatch.kubeconfig=/does/not/exist", "listwatch.watches.configmaps.api-version=v1",
				"listwatch.watches.configmaps.kind=ConfigMap", "listwatch.watches.configmaps.namespace=default" })
@LocalApiServerConnection
class LocalApiServerConnectionIT {

	@Autowired
	ApiWriter writer;

	@Autowired
	LocalApiServer server;

	@Autowired
	ListwatchConnectionDetails connectionDetails;

	@Autowired
	Cluster cluster;

	@Autowired
	Received received;

	@Autowired
	@Qualifier("configmapsLister")
	Lister<KubernetesObject> configmaps;

	@Test
	void connectsListwatchToTheSharedServer() {
		assertThat(this.server).isSameAs(LocalApiServer.shared());
		assertThat(this.connectionDetails).isInstanceOf(LocalApiServerConnectionDetails.class);
		assertThat(this.cluster.server()).hasToString(this.server.serverUrl());
		assertThat(this.cluster.description()).startsWith("connection details ");
		assertThat(this.cluster.toString()).doesNotContain(this.server.adminToken());
	}

	@Test
	void theListenerSeesAConfigMapTheWriterCreates() throws InterruptedException {
		String name = "boot-test-" + UUID.randomUUID().toString().substring(0, 8);
		this.writer.create("/api/v1/namespaces/default/configmaps",
				ApiWriter.configMap("default", name, "colour", "blue"));
		ResourceEvent<?> event;
		do {
			event = this.received.events.poll(30, TimeUnit.SECONDS);
			assertThat(event).as("an event for default/%s within 30 s", name).isNotNull();
		}
		while (!event.key().equals("default/" + name));
		assertThat(event.type()).isEqualTo(ResourceEvent.Type.ADDED);
		assertThat(event.watch()).isEqualTo("configmaps");
		assertThat(this.configmaps.get("default", name))
			.hasValueSatisfying((object) -> assertThat(object.at("/data/colour").asString()).isEqualTo("blue"));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ListenerApplication {

		@Bean
		Received received() {
			return new Received();
		}

	}

	static class Received {

		final BlockingQueue<ResourceEvent<?>> events = new LinkedBlockingQueue<>();

		@EventListener
		void on(ResourceEvent<KubernetesObject> event) {
			this.events.add(event);
		}

	}

}
