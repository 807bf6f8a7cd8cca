package dev.listwatch.event;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectMeta;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @EventListener} methods receive the ResourceEvents of their generic type only,
 * and a SpEL condition on {@code #event.watch} picks one watch.
 */
class ResourceEventRoutingTests {

	@Test
	void listenersReceiveOnlyTheirTypeAndTheirWatch() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Listeners.class)) {
			ObjectMeta meta = new ObjectMeta("ns", "a", "u", "1", Map.of());
			KubernetesObject generic = KubernetesObject.of(meta, "v1", "ConfigMap", "{}".getBytes());
			context.publishEvent(new ResourceEvent<>(this, "configmaps", ResourceEvent.Type.ADDED, generic, null, meta,
					true, false, KubernetesObject.class));
			context.publishEvent(new ResourceEvent<>(this, "secrets", ResourceEvent.Type.ADDED, generic, null, meta,
					true, false, KubernetesObject.class));
			context.publishEvent(new ResourceEvent<>(this, "web", ResourceEvent.Type.MODIFIED, new WebConfig("x"),
					new WebConfig("w"), meta, false, false, WebConfig.class));
			Recorder recorder = context.getBean(Recorder.class);
			assertThat(recorder.generic).containsExactly("configmaps", "secrets");
			assertThat(recorder.typed).containsExactly("web:x<-w");
			assertThat(recorder.onlyConfigMaps).containsExactly("configmaps");
			assertThat(recorder.all).containsExactly("configmaps", "secrets", "web");
		}
	}

	record WebConfig(String value) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		Recorder recorder() {
			return new Recorder();
		}

	}

	static class Recorder {

		final List<String> generic = new CopyOnWriteArrayList<>();

		final List<String> typed = new CopyOnWriteArrayList<>();

		final List<String> onlyConfigMaps = new CopyOnWriteArrayList<>();

		final List<String> all = new CopyOnWriteArrayList<>();

		@EventListener
		void onGeneric(ResourceEvent<KubernetesObject> event) {
			this.generic.add(event.watch());
		}

		@EventListener
		void onTyped(ResourceEvent<WebConfig> event) {
			this.typed.add(event.watch() + ":" + event.object().value() + "<-" + event.oldObject().value());
		}

		@EventListener(condition = "#event.watch == 'configmaps'")
		void onOne(ResourceEvent<?> event) {
			this.onlyConfigMaps.add(event.watch());
		}

		@EventListener
		void onAny(ResourceEvent<?> event) {
			this.all.add(event.watch());
		}

	}

}
