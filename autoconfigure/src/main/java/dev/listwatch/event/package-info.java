/**
 * The Spring application events a watch publishes, on its dispatch thread and never on
 * the thread that reads the watch: {@link dev.listwatch.event.ResourceEvent} for each
 * change to an object of the watch, {@link dev.listwatch.event.WatchSyncedEvent} once the
 * initial list has been published, and {@link dev.listwatch.event.WatchStateChangedEvent}
 * once per transition of the watch (synced, failing, recovered, failed, stopped), on a
 * queue of its own.
 *
 * <p>
 * Types are non-null unless annotated {@code @Nullable}.
 */
@NullMarked
package dev.listwatch.event;

import org.jspecify.annotations.NullMarked;
