/**
 * The cluster to connect to, as a value: {@link dev.listwatch.cluster.Cluster} (server,
 * TLS as a Spring Boot {@code SslBundle}, {@link dev.listwatch.cluster.Credentials},
 * proxy, timeouts, {@code tls-server-name}, default namespace, a description safe to
 * log), and how it is loaded from a kubeconfig, the {@code listwatch.*} settings or a
 * pod's in-cluster configuration
 * ({@link dev.listwatch.cluster.Cluster#load(dev.listwatch.cluster.ConnectionOptions)}),
 * with every problem reported as a {@link dev.listwatch.cluster.KubeconfigException} that
 * names the file, the field and the fix, never a secret.
 *
 * <p>
 * This package opens no connection and starts no thread; the transport is the client's.
 * Values are non-null unless annotated {@code @Nullable}.
 */
@NullMarked
package dev.listwatch.cluster;

import org.jspecify.annotations.NullMarked;
