package dev.listwatch.autoconfigure;

import java.time.Duration;
import java.util.Map;

import dev.listwatch.KubernetesObject;
import dev.listwatch.informer.InformerOptions;
import dev.listwatch.informer.WatchDeclaration;
import org.junit.jupiter.api.Test;

import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link DeclaredWatches} alone, without a context: a watch's properties turned into the
 * declaration code would make, and into its informer's options; {@link ShareableWatches},
 * the declarations code may share.
 */
class DeclaredWatchesTests {

	private final StandardEnvironment environment = new StandardEnvironment();

	private final ListwatchProperties.Defaults defaults = new ListwatchProperties.Defaults();

	@Test
	void anApiServerWatchResolvesToTheDeclarationCodeWouldMake() {
		ListwatchProperties.Watch watch = new ListwatchProperties.Watch();
		watch.setApiVersion("v1");
		watch.setKind(" ConfigMap ");
		watch.setNamespace(" shop ");
		watch.setLabelSelector(" app=web ");
		this.defaults.setResyncPeriod(Duration.ofSeconds(30));
		this.defaults.setMetadataOnly(true);
		DeclaredWatches.Resolved resolved = resolve("cms", watch);
		assertThat(resolved.type()).isEqualTo(KubernetesObject.class);
		assertThat(resolved.properties()).isSameAs(watch);
		assertThat(resolved.declaration()).isEqualTo(WatchDeclaration.of("v1", "ConfigMap")
			.inNamespace("shop")
			.withLabelSelector("app=web")
			.withMetadataOnly(true)
			.withResyncPeriod(Duration.ofSeconds(30)));
	}

	@Test
	void anEtcdWatchResolvesWithoutADeclaration() {
		endpoints();
		ListwatchProperties.Watch watch = etcdWatch();
		DeclaredWatches.Resolved resolved = resolve("flags", watch);
		assertThat(resolved.type()).isEqualTo(KubernetesObject.class);
		assertThat(resolved.declaration()).isNull();
	}

	@Test
	void anEtcdWatchIsCheckedBeforeItsTypeIsLoaded() {
		endpoints();
		ListwatchProperties.Watch watch = etcdWatch();
		watch.setKind("ConfigMap");
		watch.setType("com.example.Missing");
		assertThatExceptionOfType(WatchDeclarationException.class).isThrownBy(() -> resolve("flags", watch))
			.satisfies((ex) -> assertThat(ex.property()).isEqualTo("kind"));
		watch.setKind(null);
		assertThatExceptionOfType(WatchDeclarationException.class).isThrownBy(() -> resolve("flags", watch))
			.satisfies((ex) -> assertThat(ex.property()).isEqualTo("type"));
	}

	@Test
	void aLeaderOnlyWatchDoesNotStartWithTheContext() {
		ListwatchProperties.Watch watch = new ListwatchProperties.Watch();
		assertThat(DeclaredWatches.informerOptions(this.defaults, watch).autoStartup()).isTrue();
		watch.setLeaderOnly(true);
		assertThat(DeclaredWatches.informerOptions(this.defaults, watch).autoStartup()).isFalse();
	}

	@Test
	void anEtcdWatchListsWithoutStreamingAndAPageSizeOfZeroMeansUnpaged() {
		ListwatchProperties.Watch watch = new ListwatchProperties.Watch();
		watch.setPageSize(0L);
		InformerOptions kubernetes = DeclaredWatches.informerOptions(this.defaults, watch);
		assertThat(kubernetes.streamingList()).isTrue();
		assertThat(kubernetes.pageSize()).isNull();
		watch.setSource(" Etcd ");
		watch.setPageSize(7L);
		InformerOptions etcd = DeclaredWatches.informerOptions(this.defaults, watch);
		assertThat(etcd.streamingList()).isFalse();
		assertThat(etcd.pageSize()).isEqualTo(7L);
	}

	@Test
	void ofTwoWatchesWithEqualDeclarationsTheFirstOfferedIsShared() {
		ShareableWatches shareable = new ShareableWatches();
		WatchDeclaration<KubernetesObject> declaration = WatchDeclaration.of("v1", "ConfigMap").inNamespace("shop");
		assertThat(shareable.configured(declaration)).isNull();
		shareable.offer(declaration, "first");
		shareable.offer(WatchDeclaration.of("v1", "ConfigMap").inNamespace("shop"), "second");
		assertThat(shareable.configured(WatchDeclaration.of("v1", "ConfigMap").inNamespace("shop"))).isEqualTo("first");
		assertThat(shareable.configured(declaration.inNamespace("billing"))).isNull();
	}

	private DeclaredWatches.Resolved resolve(String name, ListwatchProperties.Watch watch) {
		return DeclaredWatches.resolve(name, watch, this.defaults, this.environment,
				DeclaredWatchesTests.class.getClassLoader());
	}

	private void endpoints() {
		this.environment.getPropertySources()
			.addFirst(new MapPropertySource("etcd", Map.of(EtcdWatches.ENDPOINTS, "http://127.0.0.1:2379")));
	}

	private static ListwatchProperties.Watch etcdWatch() {
		ListwatchProperties.Watch watch = new ListwatchProperties.Watch();
		watch.setSource("etcd");
		watch.setKeyPrefix("/flags/");
		return watch;
	}

}
