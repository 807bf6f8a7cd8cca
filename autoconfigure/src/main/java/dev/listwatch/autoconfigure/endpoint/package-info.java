/**
 * Auto-configuration of the {@code listwatch} actuator endpoint.
 */
@NullMarked
package dev.listwatch.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
