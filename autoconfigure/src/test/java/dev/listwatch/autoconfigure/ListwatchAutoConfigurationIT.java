package dev.listwatch.autoconfigure;

import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configuration against a real kube-apiserver: a declared resource the cluster
 * does not serve fails startup with an analysis that names the watch and the fix.
 */
@ExtendWith(LocalApiServerExtension.class)
class ListwatchAutoConfigurationIT {

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations
		.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class, ListwatchAutoConfiguration.class));

	@Test
	void anUnknownKindFailsStartupWithTheAnalysis(LocalApiServer server) {
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(),
					"listwatch.watches.configmaps.api-version=v1", "listwatch.watches.configmaps.kind=ConfigMapz")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new ListwatchFailureAnalyzers.WatchDeclaration()
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription())
					.contains("Watch 'configmaps' cannot work: listwatch.watches.configmaps.kind names a resource the "
							+ "cluster does not serve")
					.contains("kind 'ConfigMapz'")
					.contains("ConfigMap (configmaps)");
				assertThat(analysis.getAction()).contains("kubectl api-resources");
			});
	}

	@Test
	void anUnknownGroupFailsStartupWithTheAnalysis(LocalApiServer server) {
		this.runner.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(),
				"listwatch.watches.widgets.api-version=example.com/v1", "listwatch.watches.widgets.resource=widgets")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new ListwatchFailureAnalyzers.WatchDeclaration()
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("Watch 'widgets' cannot work")
					.contains("listwatch.watches.widgets.resource");
				assertThat(analysis.getAction()).contains("CustomResourceDefinition");
			});
	}

	@Test
	void aKnownKindStartsAndSyncs(LocalApiServer server) {
		this.runner
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(),
					"listwatch.watches.namespaces.api-version=v1", "listwatch.watches.namespaces.kind=Namespace",
					"listwatch.startup.wait-for-sync=true", "listwatch.startup.sync-timeout=30s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				dev.listwatch.Lister<?> namespaces = context.getBean("namespacesLister", dev.listwatch.Lister.class);
				assertThat(namespaces.size()).isGreaterThanOrEqualTo(1);
			});
	}

}
