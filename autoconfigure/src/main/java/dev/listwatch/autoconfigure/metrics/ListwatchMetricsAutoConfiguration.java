package dev.listwatch.autoconfigure.metrics;

import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.client.RequestBudget;
import dev.listwatch.controller.Controller;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.metrics.ControllerMeterBinder;
import dev.listwatch.metrics.ListwatchMeterBinder;
import dev.listwatch.metrics.RequestBudgetMeterBinder;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the listwatch meters ({@link ListwatchMeterBinder},
 * {@link RequestBudgetMeterBinder} for the connection's request budget, and
 * {@link ControllerMeterBinder} for the controllers), when Micrometer and a
 * {@link MeterRegistry} are there.
 */
@AutoConfiguration(after = ListwatchAutoConfiguration.class, afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, InformerFactory.class })
public final class ListwatchMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ListwatchMeterBinder listwatchMeterBinder(ObjectProvider<Informer<?>> informers, InformerFactory runtime) {
		return new ListwatchMeterBinder(informers, runtime.clock());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RequestBudget.class)
	RequestBudgetMeterBinder listwatchRequestBudgetMeterBinder(RequestBudget budget) {
		// the budget bean, not the client's: the client (and the kubeconfig it loads) is
		// made only when something needs it, which an application of etcd watches lacks
		return new RequestBudgetMeterBinder(budget);
	}

	@Bean
	@ConditionalOnMissingBean
	ControllerMeterBinder listwatchControllerMeterBinder(ObjectProvider<Controller<?>> controllers) {
		return new ControllerMeterBinder(controllers);
	}

}
