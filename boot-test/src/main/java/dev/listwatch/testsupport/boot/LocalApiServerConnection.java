package dev.listwatch.testsupport.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Connects the application context of a Spring test to a real Kubernetes API server: the
 * JVM's {@link dev.listwatch.testsupport.LocalApiServer#shared() shared}
 * {@link dev.listwatch.testsupport.LocalApiServer} (kube-apiserver 1.34 on etcd 3.6,
 * started on first use and stopped when the JVM exits; its binaries are built first if
 * they are missing).
 * <p>
 * The context gets three beans:
 * <ul>
 * <li>{@code listwatchConnectionDetails}, a
 * {@link dev.listwatch.autoconfigure.ListwatchConnectionDetails} with the server's URL,
 * its CA and an admin bearer token, so listwatch connects to that server and ignores the
 * kubeconfig, the in-cluster environment and the {@code listwatch.connection.*}
 * connection properties;</li>
 * <li>{@code localApiServer}, the {@link dev.listwatch.testsupport.LocalApiServer} itself
 * (its kubeconfig, {@code kubectl}, tokens);</li>
 * <li>{@code apiWriter}, an {@link dev.listwatch.testsupport.ApiWriter} that creates,
 * patches and deletes objects on it as the admin.</li>
 * </ul>
 * Test classes with this annotation share one application context where their
 * configuration is otherwise equal, as Spring's context cache allows. The server is
 * shared by all of them: objects one test creates are there for the next, so give each
 * test names of its own. <pre>{@code
 * &#64;SpringBootTest(properties = {
 *         "listwatch.watches.configmaps.api-version=v1",
 *         "listwatch.watches.configmaps.kind=ConfigMap",
 *         "listwatch.watches.configmaps.namespace=default" })

 * &#64;LocalApiServerConnection
 * class ConfigMapListenerTests {
 *
 *     &#64;Autowired
 *     ApiWriter writer;
 *
 *
&#64;Test
 *     void seesANewConfigMap() {
 *         writer.create("/api/v1/namespaces/default/configmaps",
 *                 ApiWriter.configMap("default", "web", "colour", "blue"));
 *         // assert what the application's listener did
 *     }
 *
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface LocalApiServerConnection {

}
