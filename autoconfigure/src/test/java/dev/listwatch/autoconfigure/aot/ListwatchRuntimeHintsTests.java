package dev.listwatch.autoconfigure.aot;

import dev.listwatch.KubernetesObject;
import dev.listwatch.Resource;
import dev.listwatch.WatchStatus;
import dev.listwatch.autoconfigure.ListwatchProperties;
import dev.listwatch.endpoint.ListwatchEndpoint;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints of {@link ListwatchRuntimeHints}, and that Spring finds both contributions
 * through {@code META-INF/spring/aot.factories}.
 */
class ListwatchRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	ListwatchRuntimeHintsTests() {
		new ListwatchRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void jacksonMayCallTheMethodThatWritesAKubernetesObject() {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(KubernetesObject.class, "jsonValue"))
			.accepts(this.hints);
	}

	@Test
	void watchStatusAndTheEndpointsDescriptorsBindWithTheirNestedRecords() {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(WatchStatus.class, "state"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(WatchStatus.Watched.class)).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Resource.class)).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(ListwatchEndpoint.WatchDescriptor.class, "labelSelector")).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(ListwatchEndpoint.ResourceDescriptor.class))
			.accepts(this.hints);
	}

	@Test
	void theWatchesPropertiesBindWithABinder() {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ListwatchProperties.Watch.class, "setType"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(ListwatchProperties.Defaults.class)).accepts(this.hints);
	}

	@Test
	void aTypeWithoutAHintIsRefused() {
		assertThat(RuntimeHintsPredicates.reflection().onType(ListwatchRuntimeHintsTests.class)).rejects(this.hints);
	}

	@Test
	void springFindsBothContributionsInAotFactories() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.anyMatch(ListwatchRuntimeHints.class::isInstance);
		assertThat(AotServices.factories().load(BeanFactoryInitializationAotProcessor.class))
			.anyMatch(WatchTypesAotProcessor.class::isInstance);
	}

}
