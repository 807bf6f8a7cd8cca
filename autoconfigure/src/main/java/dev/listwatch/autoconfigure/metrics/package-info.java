/**
 * Auto-configuration of the listwatch meters.
 */
@NullMarked
package dev.listwatch.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
