/**
 * A second source behind the same {@link dev.listwatch.ListerWatcher} contract: keys
 * under a prefix in etcd, listed and watched through etcd's native gRPC API (when
 * grpc-java is on the class path; {@code GrpcTransport}) or its JSON gateway
 * ({@code Gateway}), both behind one {@code Transport}, so that an informer (the same
 * reflector, store, lister, events, health and meters as every watch) keeps a cache of
 * them without a Kubernetes API server. {@link dev.listwatch.etcd.EtcdClient} makes a
 * lister-watcher per key prefix; {@link dev.listwatch.etcd.EtcdConnection} says where
 * etcd is. The rest is package-private. Values are non-null unless annotated
 * {@code @Nullable}.
 */
@NullMarked
package dev.listwatch.etcd;

import org.jspecify.annotations.NullMarked;
