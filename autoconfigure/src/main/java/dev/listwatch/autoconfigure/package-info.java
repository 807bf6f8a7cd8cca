/**
 * Auto-configuration of listwatch: properties, the per-watch beans, startup checks and
 * failure analyses.
 */
@NullMarked
package dev.listwatch.autoconfigure;

import org.jspecify.annotations.NullMarked;
