/**
 * Spring Boot tests of an application's listwatch listeners against a real
 * kube-apiserver:
 * {@link dev.listwatch.testsupport.boot.LocalApiServerConnection @LocalApiServerConnection}
 * on a test class starts the JVM's shared
 * {@link dev.listwatch.testsupport.LocalApiServer} and connects listwatch to it through a
 * {@link dev.listwatch.autoconfigure.ListwatchConnectionDetails} bean, as Boot's
 * {@code @ServiceConnection} connects an application to a Testcontainers container.
 */
@NullMarked
package dev.listwatch.testsupport.boot;

import org.jspecify.annotations.NullMarked;
