/**
 * The API of listwatch, shared by the client, the watch machinery and applications: the
 * Kubernetes values a watch moves ({@link dev.listwatch.KubernetesObject},
 * {@link dev.listwatch.ObjectMeta}, {@link dev.listwatch.Resource},
 * {@link dev.listwatch.ListOptions}, {@link dev.listwatch.ObjectList},
 * {@link dev.listwatch.WatchEvent}, {@link dev.listwatch.Status}), the list-and-watch
 * seam ({@link dev.listwatch.ListerWatcher}, {@link dev.listwatch.WatchStream},
 * {@link dev.listwatch.KubernetesApiException}), the read side of a watch's cache
 * ({@link dev.listwatch.Lister}, with {@link dev.listwatch.WatchIndex} and
 * {@link dev.listwatch.IndexFunction}) and the snapshot of a watch's state
 * ({@link dev.listwatch.WatchStatus}, {@link dev.listwatch.UnbindableObject}).
 *
 * <p>
 * The records and {@link dev.listwatch.KubernetesObject} are immutable. Types are
 * non-null unless annotated {@code @Nullable}.
 */
@NullMarked
package dev.listwatch;

import org.jspecify.annotations.NullMarked;
