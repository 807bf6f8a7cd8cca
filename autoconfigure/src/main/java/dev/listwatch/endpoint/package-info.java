/**
 * The {@code listwatch} actuator endpoint, showing each watch's
 * {@link dev.listwatch.WatchStatus}.
 */
@NullMarked
package dev.listwatch.endpoint;

import org.jspecify.annotations.NullMarked;
