package dev.listwatch.autoconfigure.aot;

import java.lang.reflect.Method;

import dev.listwatch.KubernetesObject;
import dev.listwatch.WatchStatus;
import dev.listwatch.autoconfigure.EtcdProperties;
import dev.listwatch.autoconfigure.LeaderElectionProperties;
import dev.listwatch.autoconfigure.ListwatchProperties;
import dev.listwatch.endpoint.ListwatchEndpoint;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;
import org.springframework.util.Assert;
import org.springframework.util.ReflectionUtils;

/**
 * The reflection listwatch itself needs in a native image: the method through which
 * Jackson writes a {@link KubernetesObject} (its JSON as it came), the records Jackson
 * writes for the actuator endpoint and for {@link WatchStatus}, and the properties bound
 * with a {@code Binder} when the watches' beans are made. The types of the declared
 * watches are {@link WatchTypesAotProcessor}'s.
 */
final class ListwatchRuntimeHints implements RuntimeHintsRegistrar {

	private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		Method jsonValue = ReflectionUtils.findMethod(KubernetesObject.class, "jsonValue");
		Assert.state(jsonValue != null, "KubernetesObject has no jsonValue() method for Jackson");
		hints.reflection().registerMethod(jsonValue, ExecutableMode.INVOKE);
		this.bindings.registerReflectionHints(hints.reflection(), WatchStatus.class,
				ListwatchEndpoint.WatchesDescriptor.class, ListwatchEndpoint.WatchDescriptor.class);
		BindableRuntimeHintsRegistrar
			.forTypes(ListwatchProperties.class, EtcdProperties.class, LeaderElectionProperties.class)
			.registerHints(hints, classLoader);
	}

}
