package dev.listwatch.autoconfigure;

import java.util.List;

import dev.listwatch.KubernetesObject;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code listwatch.watches.<name>.keep} and {@code drop}: for KubernetesObject watches
 * only, with paths that can work, each refusal naming the property.
 */
class WatchTransformDeclarationTests {

	@Test
	void neitherSetIsNoTransform() {
		assertThat(DeclaredWatches.pathTransform("pods", new ListwatchProperties.Watch(), KubernetesObject.class))
			.isNull();
	}

	@Test
	void keepOrDropOfAnotherTypeFailsNamingTheProperty() {
		ListwatchProperties.Watch watch = new ListwatchProperties.Watch();
		watch.setDrop(List.of("status"));
		assertThatExceptionOfType(WatchDeclarationException.class)
			.isThrownBy(() -> DeclaredWatches.pathTransform("pods", watch, String.class))
			.withMessageContaining("listwatch.watches.pods.drop")
			.withMessageContaining("java.lang.String");
	}

	@Test
	void aPathThatCannotWorkFailsNamingTheProperty() {
		ListwatchProperties.Watch watch = new ListwatchProperties.Watch();
		watch.setDrop(List.of("metadata"));
		assertThatExceptionOfType(WatchDeclarationException.class)
			.isThrownBy(() -> DeclaredWatches.pathTransform("pods", watch, KubernetesObject.class))
			.withMessageContaining("drop")
			.withMessageContaining("always kept");
	}

}
