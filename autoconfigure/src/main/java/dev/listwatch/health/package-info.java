/**
 * Actuator health of the watches, computed from each watch's
 * {@link dev.listwatch.WatchStatus}.
 */
@NullMarked
package dev.listwatch.health;

import org.jspecify.annotations.NullMarked;
