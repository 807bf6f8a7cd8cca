package dev.listwatch.cluster;

import java.net.URI;

import org.springframework.http.client.ClientHttpRequestFactory;

/**
 * A cluster to talk to: where the API server is, how to authenticate, which namespace
 * is the default, and an HTTP request factory whose TLS (CA, client certificate,
 * {@code tls-server-name}, {@code insecure-skip-tls-verify}), proxy and timeouts are set
 * up. Obtain one from {@link ClusterLoader#load(ConnectionSettings)}.
 *
 * <p>Immutable and safe to share between threads. {@link #toString()} never shows a
 * secret. {@link #close()} releases what it holds open (a relay for an authenticating
 * proxy); the auto-configured bean is closed with the application context.
 */
public final class Cluster implements AutoCloseable {

	private final URI server;

	private final Credentials credentials;

	private final String namespace;

	private final String description;

	private final ClientHttpRequestFactory requestFactory;

	private final AutoCloseable resources;

	Cluster(URI server, Credentials credentials, String namespace, String description,
			ClientHttpRequestFactory requestFactory, AutoCloseable resources) {
		this.server = server;
		this.credentials = credentials;
		this.namespace = namespace;
		this.description = description;
		this.requestFactory = requestFactory;
		this.resources = resources;
	}

	/**
	 * The API server's base URL, e.g. {@code https://127.0.0.1:6443}. It may carry a path
	 * prefix (Rancher: {@code https://rancher/k8s/clusters/c-1}) that API paths are
	 * appended to. Never ends with a slash.
	 * @return the server URL
	 */
	public URI server() {
		return this.server;
	}

	/**
	 * The credentials for the {@code Authorization} header.
	 * @return the credentials, never {@code null}
	 */
	public Credentials credentials() {
		return this.credentials;
	}

	/**
	 * The default namespace: the settings' namespace, else the context's, else the
	 * in-cluster namespace file, else {@code default}.
	 * @return the namespace
	 */
	public String namespace() {
		return this.namespace;
	}

	/**
	 * Where this cluster came from, safe for logs and health output, e.g.
	 * {@code context kind-dev in /home/u/.kube/config} or {@code in-cluster}.
	 * @return the description
	 */
	public String description() {
		return this.description;
	}

	/**
	 * A request factory on the JDK HTTP client (HTTP/1.1), configured with this cluster's
	 * TLS, proxy and connect timeout, with no read timeout (watches stream for minutes)
	 * and no redirect following. It does not add the {@code Authorization} header: use
	 * {@link #credentials()} for that. The same instance is returned on every call.
	 * @return the request factory
	 */
	public ClientHttpRequestFactory requestFactory() {
		return this.requestFactory;
	}

	/**
	 * Releases what this cluster holds open: the loopback relay that adds credentials to the
	 * CONNECT requests of an {@code https://} server's proxy (a {@code proxy-url} with user and
	 * password), and the tunnels it keeps. Requests through {@link #requestFactory()} that
	 * need the relay fail afterwards. Idempotent; does nothing when nothing is held.
	 */
	@Override
	public void close() {
		if (this.resources != null) {
			try {
				this.resources.close();
			}
			catch (Exception ex) {
				// the relay's close does not throw; nothing else to release
			}
		}
	}

	@Override
	public String toString() {
		return "Cluster[server=" + this.server + ", namespace=" + this.namespace + ", " + this.description
				+ ", credentials=" + this.credentials + "]";
	}

}
