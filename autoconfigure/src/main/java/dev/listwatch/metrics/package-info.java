/**
 * Micrometer meters of the watches, read from each watch's
 * {@link dev.listwatch.WatchStatus}.
 */
@NullMarked
package dev.listwatch.metrics;

import org.jspecify.annotations.NullMarked;
