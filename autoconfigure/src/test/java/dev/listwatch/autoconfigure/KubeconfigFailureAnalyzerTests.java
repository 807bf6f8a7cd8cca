package dev.listwatch.autoconfigure;

import dev.listwatch.cluster.KubeconfigException;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@ExtendWith(OutputCaptureExtension.class)
class KubeconfigFailureAnalyzerTests {

	@Test
	void describesTheProblemAndTheFix() {
		KubeconfigException cause = new KubeconfigException("/home/u/.kube/config", "users[admin].user.client-key-data",
				"is not valid base64", "paste the output of `base64 -w0 key.pem`");
		FailureAnalysis analysis = new KubeconfigFailureAnalyzer()
			.analyze(new BeanCreationException("cluster", "Failed", cause));
		assertThat(analysis.getDescription()).isEqualTo(cause.getMessage())
			.contains("/home/u/.kube/config")
			.contains("users[admin].user.client-key-data");
		assertThat(analysis.getAction()).isEqualTo("paste the output of `base64 -w0 key.pem`");
		assertThat(analysis.getCause()).isSameAs(cause);
	}

	@Test
	void reportsStartupFailure(CapturedOutput output) {
		SpringApplication application = new SpringApplication(BrokenKubeconfig.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(application::run);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Kubeconfig /home/u/.kube/config: current-context is not set")
			.contains("Action:")
			.contains("set listwatch.context to one of [a, b]");
	}

	@Configuration(proxyBeanMethods = false)
	static class BrokenKubeconfig {

		@Bean
		String cluster() {
			throw new KubeconfigException("/home/u/.kube/config", "current-context", "is not set",
					"set listwatch.context to one of [a, b]");
		}

	}

}
