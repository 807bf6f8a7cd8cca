package dev.listwatch.autoconfigure;

import java.net.URI;

import dev.listwatch.cluster.Credentials;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Details for the connection to a Kubernetes API server, in Spring Boot's
 * {@link ConnectionDetails} pattern: when the application (or a test's service
 * connection) defines a bean of this type, the auto-configuration connects with it and
 * does not read the kubeconfig, the in-cluster environment or the
 * {@code listwatch.connection.*} connection properties (except
 * {@code listwatch.connection.connect-timeout}). Without one, a default built from those
 * sources is used.
 *
 * <p>
 * The getters are called once, on the thread that creates the {@code Cluster} bean, while
 * the application context starts. A connection made from these details goes to the server
 * directly (no proxy) and verifies its certificate (there is no way to skip verification
 * here).
 */
public interface ListwatchConnectionDetails extends ConnectionDetails {

	/**
	 * The API server's base URL, e.g. {@code https://10.0.0.1:6443}; it may carry a path
	 * prefix that API paths are appended to.
	 * @return the URL, never {@code null}
	 */
	URI getServer();

	/**
	 * The credentials for the {@code Authorization} header: see
	 * {@link Credentials#bearerToken}, {@link Credentials#tokenFile}, or an own
	 * implementation (which must be thread-safe and keep secrets out of its
	 * {@code toString()}).
	 * @return the credentials, by default {@link Credentials#none()}
	 */
	default Credentials getCredentials() {
		return Credentials.none();
	}

	/**
	 * The TLS material for an {@code https} server: trust material that verifies the
	 * server's certificate chain, and key material for a client certificate.
	 * @return the bundle, or {@code null} (the default) for the JVM's default trust store
	 * and no client certificate
	 */
	default @Nullable SslBundle getSslBundle() {
		return null;
	}

	/**
	 * The name to send as TLS SNI and to check the server's certificate against instead
	 * of the URL's host (a kubeconfig's {@code tls-server-name}).
	 * @return the name, or {@code null} (the default) for the URL's host
	 */
	default @Nullable String getTlsServerName() {
		return null;
	}

	/**
	 * The default namespace of the connection.
	 * @return the namespace, by default {@code default}
	 */
	default String getNamespace() {
		return "default";
	}

}
