package dev.listwatch.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A service that watches ConfigMaps and Deployments with listwatch: it logs every change,
 * serves the cached ConfigMaps over HTTP, annotates the ConfigMaps labelled
 * {@code app=web} through a controller ({@link WebStatusReconciler}), and reports its
 * watches and controller through actuator.
 * <p>
 * Against a cluster: {@code ./mvnw -pl sample-app spring-boot:run} (uses $KUBECONFIG or
 * ~/.kube/config; {@code -Dspring-boot.run.arguments=--listwatch.context=kind-dev} picks
 * a context). Without one: {@code ./mvnw -pl sample-app spring-boot:test-run}, which
 * starts a throwaway local API server (see {@code TestSampleApplication}).
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
