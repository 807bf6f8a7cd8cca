/**
 * Auto-configuration of the {@code listwatch} health contributor.
 */
@NullMarked
package dev.listwatch.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
