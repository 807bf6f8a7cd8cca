/**
 * Auto-configuration of the controllers declared under {@code listwatch.controllers}:
 * {@link dev.listwatch.autoconfigure.controller.ControllerAutoConfiguration} and its
 * {@link dev.listwatch.autoconfigure.controller.ControllerProperties}; the bean
 * registration, the leader-only runs and the failure analysis are package-private.
 */
@NullMarked
package dev.listwatch.autoconfigure.controller;

import org.jspecify.annotations.NullMarked;
