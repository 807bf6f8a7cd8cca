/**
 * A real Kubernetes API server for listwatch's tests and local runs.
 * <p>
 * {@link dev.listwatch.testsupport.LocalApiServer} runs kube-apiserver 1.34.4 and etcd
 * 3.6.4, built from their Go modules by {@code testcluster/build.sh} (the repository's,
 * or the copy this jar carries) into {@code ~/.kubeapitest/k8s/1.34.4-linux-amd64} (built
 * on first use if missing; Go must be on the PATH then), and started through
 * {@code io.fabric8:kube-api-test}. JUnit 5 tests get the JVM's shared server with
 * {@code @ExtendWith(LocalApiServerExtension.class)} and a {@code LocalApiServer}
 * parameter; people get one with {@link dev.listwatch.testsupport.LocalApiServerMain}.
 */
package dev.listwatch.testsupport;
