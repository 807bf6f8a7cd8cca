/**
 * The API server client: {@link dev.listwatch.client.ApiServerClient} makes a
 * {@code ListerWatcher} per resource (paged lists, streamed watches, API discovery) on
 * Boot's {@code RestClient}, over a transport it builds from a {@code Cluster} value and
 * owns (the JDK HTTP client with the cluster's TLS and proxy; Jetty's HTTP client, an
 * optional dependency, only for a proxy the JDK client cannot use), and releases on
 * {@code close()}; and a {@link dev.listwatch.client.ResourceWriter} per resource,
 * through which reconcilers read and change objects on the same connection; each request
 * takes a token of the connection's {@link dev.listwatch.client.RequestBudget} first, and
 * a whole-object write asks {@link dev.listwatch.client.WholeObjectWrites} whether it may
 * be sent. {@link dev.listwatch.client.ObjectBytes} reads one object's JSON as the lists
 * are read, for objects from other sources (etcd values).
 *
 * <p>
 * Everything but {@code ApiServerClient}, {@code ResourceWriter}, {@code RequestBudget},
 * {@code WholeObjectWrites} and {@code ObjectBytes} is package-private. Values are
 * non-null unless annotated {@code @Nullable}.
 */
@NullMarked
package dev.listwatch.client;

import org.jspecify.annotations.NullMarked;
