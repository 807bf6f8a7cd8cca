package dev.listwatch.autoconfigure.aot;

import java.util.LinkedHashSet;
import java.util.Set;

import dev.listwatch.KubernetesObject;
import dev.listwatch.informer.Informer;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.ResolvableType;

/**
 * Registers Jackson binding hints for the Java types of the watches: each
 * {@code <name>Informer} bean's type argument, as declared with
 * {@code listwatch.watches.<name>.type} (or by an application's own {@code Informer<T>}
 * bean), so that their objects bind in a native image. A watch of
 * {@link KubernetesObject} needs none.
 */
final class WatchTypesAotProcessor implements BeanFactoryInitializationAotProcessor {

	@Override
	public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
			ConfigurableListableBeanFactory beanFactory) {
		Set<Class<?>> types = types(beanFactory);
		if (types.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> {
			BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();
			types.forEach(
					(type) -> bindings.registerReflectionHints(generationContext.getRuntimeHints().reflection(), type));
		};
	}

	/**
	 * The types of the informers the bean factory defines, other than
	 * {@link KubernetesObject}.
	 * @param beanFactory the bean factory
	 * @return the types, in bean definition order
	 */
	static Set<Class<?>> types(ConfigurableListableBeanFactory beanFactory) {
		Set<Class<?>> types = new LinkedHashSet<>();
		for (String name : beanFactory.getBeanNamesForType(Informer.class, true, false)) {
			BeanDefinition definition = beanFactory.getMergedBeanDefinition(name);
			ResolvableType beanType = (definition instanceof RootBeanDefinition root) ? root.getResolvableType()
					: definition.getResolvableType();
			Class<?> type = beanType.as(Informer.class).getGeneric(0).resolve();
			if (type != null && type != KubernetesObject.class && type != Object.class) {
				types.add(type);
			}
		}
		return types;
	}

}
