package dev.listwatch.autoconfigure;

import java.net.URI;

import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.ConnectionOptions;
import dev.listwatch.cluster.Credentials;
import dev.listwatch.cluster.KubeconfigException;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * The default {@link ListwatchConnectionDetails}: the cluster of the {@code listwatch.*}
 * properties, the kubeconfig or the in-cluster environment, with the SSL bundle named by
 * {@code listwatch.connection.ssl-bundle}. Loaded on first use (so an application that
 * defines its own {@code Cluster} bean needs no kubeconfig), then kept.
 */
final class PropertiesListwatchConnectionDetails implements ListwatchConnectionDetails {

	static final String SSL_BUNDLE = "listwatch.connection.ssl-bundle";

	private final ListwatchProperties properties;

	private final ObjectProvider<SslBundles> sslBundles;

	private @Nullable Cluster cluster;

	PropertiesListwatchConnectionDetails(ListwatchProperties properties, ObjectProvider<SslBundles> sslBundles) {
		this.properties = properties;
		this.sslBundles = sslBundles;
	}

	/**
	 * The cluster, loaded on the first call.
	 * @return the cluster
	 * @throws KubeconfigException if the configuration cannot be used
	 */
	synchronized Cluster cluster() {
		Cluster cluster = this.cluster;
		if (cluster == null) {
			cluster = load();
			this.cluster = cluster;
		}
		return cluster;
	}

	private Cluster load() {
		ListwatchProperties.Connection connection = this.properties.getConnection();
		ConnectionOptions.Builder options = ConnectionOptions.builder()
			.kubeconfig(this.properties.getKubeconfig())
			.context(this.properties.getContext())
			.server(connection.getServer())
			.token(connection.getToken())
			.tokenFile(connection.getTokenFile())
			.certificateAuthority(connection.getCertificateAuthority())
			.certificateAuthorityData(connection.getCertificateAuthorityData())
			.namespace(connection.getNamespace())
			.insecureSkipTlsVerify(connection.getInsecureSkipTlsVerify())
			.connectTimeout(connection.getConnectTimeout())
			.execTimeout(connection.getExecTimeout());
		String name = connection.getSslBundle();
		if (name != null && !name.isBlank()) {
			options.sslBundle(name.strip(), sslBundle(name.strip()));
		}
		return Cluster.load(options.build());
	}

	private SslBundle sslBundle(String name) {
		SslBundles bundles = this.sslBundles.getIfAvailable();
		if (bundles == null) {
			throw new KubeconfigException("listwatch settings", SSL_BUNDLE,
					"names SSL bundle '" + name + "' but the application has no SSL bundles (no SslBundles bean)",
					"define the bundle under spring.ssl.bundle.pem." + name
							+ " with Spring Boot's SSL auto-configuration enabled, or unset " + SSL_BUNDLE);
		}
		try {
			return bundles.getBundle(name);
		}
		catch (NoSuchSslBundleException ex) {
			throw new KubeconfigException("listwatch settings", SSL_BUNDLE,
					"names SSL bundle '" + name + "' which is not defined (defined bundles: " + bundles.getBundleNames()
							+ ")",
					"define it under spring.ssl.bundle.pem." + name
							+ " (truststore.certificate: the API server's CA; keystore.certificate and keystore.private-key: a client certificate), "
							+ "or set " + SSL_BUNDLE
							+ " to one of the defined bundles, or unset it to use the kubeconfig's CA and client certificate",
					ex);
		}
	}

	@Override
	public URI getServer() {
		return cluster().server();
	}

	@Override
	public Credentials getCredentials() {
		return cluster().credentials();
	}

	@Override
	public @Nullable SslBundle getSslBundle() {
		return cluster().ssl();
	}

	@Override
	public @Nullable String getTlsServerName() {
		return cluster().tlsServerName();
	}

	@Override
	public String getNamespace() {
		return cluster().namespace();
	}

}
