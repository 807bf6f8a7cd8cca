package dev.listwatch.cluster;

import java.net.URI;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.ssl.SslBundle;

/**
 * What the sources say while the loader reads them, before it becomes a {@link Cluster}.
 * Each value remembers where it came from (file and field) so that a later conflict names
 * both. Used by one loading thread only.
 */
final class ClusterSpec {

	String description = "";

	@Nullable URI server;

	String serverOrigin = ClusterLoader.SETTINGS;

	String serverField = "listwatch.connection.server";

	@Nullable String tlsServerName;

	boolean insecure;

	String insecureOrigin = ClusterLoader.SETTINGS;

	String insecureField = "listwatch.connection.insecure-skip-tls-verify";

	Cluster.@Nullable Proxy proxy;

	/** Where {@link #proxy} was read: the file and the field. */
	@Nullable String proxyOrigin;

	@Nullable String proxyField;

	@Nullable String caPem;

	/**
	 * Where the CA came from, for errors: a kubeconfig field, a setting, or the ca.crt
	 * path.
	 */
	@Nullable String caField;

	@Nullable List<X509Certificate> ca;

	@Nullable List<X509Certificate> clientChain;

	@Nullable PrivateKey clientKey;

	/**
	 * An SSL bundle from the settings, which replaces the kubeconfig's CA and client
	 * certificate.
	 */
	@Nullable SslBundle sslBundle;

	@Nullable JsonNode execExtension;

	Credentials credentials = StaticCredentials.NONE;

	@Nullable String namespace;

}
