package dev.listwatch.autoconfigure.controller;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.listwatch.KubernetesObject;
import dev.listwatch.autoconfigure.ListwatchAutoConfiguration;
import dev.listwatch.controller.Controller;
import dev.listwatch.controller.Reconciler;
import dev.listwatch.controller.Result;
import dev.listwatch.informer.Informer;
import dev.listwatch.testsupport.ApiWriter;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Controllers declared in YAML on the real kube-apiserver, with a secondary watch
 * ({@code owns}) and a filter ({@code filter: generation-changed}): a change of an owned
 * object reconciles its owner, and only its owner; a change of a Deployment's labels
 * alone is not reconciled, a change of its spec is.
 */
@ExtendWith(LocalApiServerExtension.class)
class SecondaryWatchIT {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final String GROUP = "lwowners.example.com";

	private static LocalApiServer server;

	private final Map<String, AtomicInteger> reconciles = new ConcurrentHashMap<>();

	@BeforeAll
	static void start(LocalApiServer localApiServer) {
		server = localApiServer;
	}

	private ApplicationContextRunner runner(String namespace) {
		Reconciler<KubernetesObject> counting = (request) -> {
			this.reconciles.computeIfAbsent(request.key(), (key) -> new AtomicInteger()).incrementAndGet();
			return Result.done();
		};
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class, ControllerAutoConfiguration.class))
			.withBean("parentsReconciler", Reconciler.class, () -> counting)
			.withBean("deploymentsReconciler", Reconciler.class, () -> counting)
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(),
					"listwatch.watches.parents.api-version=v1", "listwatch.watches.parents.kind=ConfigMap",
					"listwatch.watches.parents.namespace=" + namespace,
					"listwatch.watches.parents.label-selector=role=parent", "listwatch.watches.children.api-version=v1",
					"listwatch.watches.children.kind=ConfigMap", "listwatch.watches.children.namespace=" + namespace,
					"listwatch.watches.children.label-selector=role=child",
					"listwatch.watches.deployments.api-version=apps/v1",
					"listwatch.watches.deployments.kind=Deployment",
					"listwatch.watches.deployments.namespace=" + namespace,
					"listwatch.controllers.parents.owns=children",
					"listwatch.controllers.deployments.filter=generation-changed");
	}

	@Test
	void aChangeOfAnOwnedObjectReconcilesItsOwner() {
		String namespace = server.createNamespace("lw-controller-owners");
		ApiWriter writer = server.writer();
		String path = "/api/v1/namespaces/" + namespace + "/configmaps";
		String uid = uid(writer.create(path, labelled(namespace, "parent-1", "parent", "")));
		writer.create(path, labelled(namespace, "parent-2", "parent", ""));
		runner(namespace).run((context) -> {
			assertThat(context).hasNotFailed();
			await().atMost(WAIT)
				.until(() -> count(namespace + "/parent-1") == 1 && count(namespace + "/parent-2") == 1);
			writer.create(path, labelled(namespace, "child-a", "child",
					",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"parent-1\",\"uid\":\""
							+ uid + "\"}]"));
			await().atMost(WAIT).until(() -> count(namespace + "/parent-1") == 2);
			writer.patch(path + "/child-a", "{\"data\":{\"v\":\"1\"}}");
			await().atMost(WAIT).until(() -> count(namespace + "/parent-1") == 3);
			assertThat(count(namespace + "/parent-2")).isEqualTo(1);
			// the owned objects are no keys of their own
			assertThat(this.reconciles).doesNotContainKey(namespace + "/child-a");
		});
	}

	@Test
	void aChangeOfLabelsAloneIsFilteredOutAndAChangeOfTheSpecIsReconciled() {
		String namespace = server.createNamespace("lw-controller-generation");
		ApiWriter writer = server.writer();
		String path = "/apis/apps/v1/namespaces/" + namespace + "/deployments";
		writer.create(path, """
				{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"%s"},
				 "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
				  "template":{"metadata":{"labels":{"app":"web"}},
				   "spec":{"containers":[{"name":"web","image":"nginx"}]}}}}""".formatted(namespace));
		String key = namespace + "/web";
		runner(namespace).run((context) -> {
			assertThat(context).hasNotFailed();
			Controller<?> controller = context.getBean("deploymentsController", Controller.class);
			await().atMost(WAIT).until(() -> count(key) == 1 && controller.status().processing() == 0);
			writer.patch(path + "/web", "{\"metadata\":{\"labels\":{\"tier\":\"front\"}}}");
			writer.patch(path + "/web", "{\"spec\":{\"replicas\":3}}");
			await().atMost(WAIT).until(() -> count(key) == 2);
			// the label change, delivered before the spec change, queued nothing
			assertThat(controller.status().adds()).isEqualTo(2);
		});
	}

	@Test
	void anOwnedObjectSeenBeforeItsOwnersResourceIsResolvedIsMappedToTheOwnersKeyOnceItIs() {
		String namespace = server.createNamespace("lw-controller-unresolved");
		ApiWriter writer = server.writer();
		// the owners' group answers 503 (an aggregated API whose service is not there)
		String apiService = "/apis/apiregistration.k8s.io/v1/apiservices/v1." + GROUP;
		writer.create("/apis/apiregistration.k8s.io/v1/apiservices", """
				{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.%1$s"},
				 "spec":{"group":"%1$s","version":"v1","groupPriorityMinimum":1000,"versionPriority":15,
				  "insecureSkipTLSVerify":true,"service":{"namespace":"default","name":"nowhere","port":443}}}"""
			.formatted(GROUP));
		await().atMost(WAIT).until(() -> answers(writer, "/apis/" + GROUP + "/v1").contains("503"));
		writer.create("/api/v1/namespaces/" + namespace + "/configmaps",
				labelled(namespace, "child", "child",
						",\"ownerReferences\":[{\"apiVersion\":\"" + GROUP
								+ "/v1\",\"kind\":\"Widget\",\"name\":\"owner\","
								+ "\"uid\":\"6a1f0b52-0000-4000-8000-000000000001\"}]"));
		Reconciler<KubernetesObject> counting = (request) -> {
			this.reconciles.computeIfAbsent(request.key(), (key) -> new AtomicInteger()).incrementAndGet();
			return Result.done();
		};
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, RestClientAutoConfiguration.class,
					ListwatchAutoConfiguration.class, ControllerAutoConfiguration.class))
			.withBean("widgetsReconciler", Reconciler.class, () -> counting)
			.withPropertyValues("listwatch.kubeconfig=" + server.kubeconfig(),
					// all namespaces: keys namespace/name once the resource is known
					"listwatch.watches.widgets.api-version=" + GROUP + "/v1", "listwatch.watches.widgets.kind=Widget",
					"listwatch.watches.children.api-version=v1", "listwatch.watches.children.kind=ConfigMap",
					"listwatch.watches.children.namespace=" + namespace,
					"listwatch.watches.children.label-selector=role=child",
					// declared after the owners: resolved at startup all the same
					"listwatch.watches.zsecrets.api-version=v1", "listwatch.watches.zsecrets.kind=Secret",
					"listwatch.watches.zsecrets.auto-startup=false", "listwatch.controllers.widgets.owns=children")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Informer<?> children = context.getBean("childrenInformer", Informer.class);
				Controller<?> controller = context.getBean("widgetsController", Controller.class);
				// the child delivered to the controller while the owners' resource is not
				// known
				await().atMost(WAIT)
					.until(() -> children.lister().hasSynced() && children.status().backlog() == 0
							&& controller.isRunning());
				// the owners' group is served again, by a CustomResourceDefinition
				writer.delete(apiService);
				writer.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", """
						{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
						 "metadata":{"name":"widgets.%1$s"},
						 "spec":{"group":"%1$s","scope":"Namespaced",
						  "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
						  "versions":[{"name":"v1","served":true,"storage":true,
						   "schema":{"openAPIV3Schema":{"type":"object",
						    "x-kubernetes-preserve-unknown-fields":true}}}]}}""".formatted(GROUP));
				await().atMost(Duration.ofSeconds(90))
					.until(() -> !this.reconciles.isEmpty() && controller.status().processing() == 0
							&& controller.status().ready() == 0);
				// its owner's key, never a cluster-scoped guess
				assertThat(this.reconciles).containsOnlyKeys(namespace + "/owner");
				Informer<?> secrets = context.getBean("zsecretsInformer", Informer.class);
				assertThat(secrets.listerWatcher().resource().namespaced()).isTrue();
			});
	}

	private static String answers(ApiWriter writer, String path) {
		try {
			return writer.get(path);
		}
		catch (IllegalStateException ex) {
			return String.valueOf(ex.getMessage());
		}
	}

	private int count(String key) {
		AtomicInteger count = this.reconciles.get(key);
		return (count != null) ? count.get() : 0;
	}

	private static String labelled(String namespace, String name, String role, String more) {
		return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\""
				+ namespace + "\",\"labels\":{\"role\":\"" + role + "\"}" + more + "},\"data\":{\"v\":\"0\"}}";
	}

	private static String uid(String json) {
		int at = json.indexOf("\"uid\":\"") + 7;
		return json.substring(at, json.indexOf('"', at));
	}

}
