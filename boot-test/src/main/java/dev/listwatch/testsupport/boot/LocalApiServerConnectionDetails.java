package dev.listwatch.testsupport.boot;

import java.net.URI;

import dev.listwatch.autoconfigure.ListwatchConnectionDetails;
import dev.listwatch.cluster.Credentials;
import dev.listwatch.testsupport.LocalApiServer;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;
import org.springframework.boot.ssl.pem.PemSslStoreDetails;

/**
 * The {@link ListwatchConnectionDetails} of a {@link LocalApiServer}: its URL, its CA as
 * the trust material and its admin bearer token, namespace {@code default}.
 */
final class LocalApiServerConnectionDetails implements ListwatchConnectionDetails {

	private final LocalApiServer server;

	LocalApiServerConnectionDetails(LocalApiServer server) {
		this.server = server;
	}

	@Override
	public URI getServer() {
		return URI.create(this.server.serverUrl());
	}

	@Override
	public Credentials getCredentials() {
		return Credentials.bearerToken(this.server.adminToken());
	}

	@Override
	public SslBundle getSslBundle() {
		return SslBundle
			.of(new PemSslStoreBundle(null, PemSslStoreDetails.forCertificate(this.server.caCertificatePem())));
	}

	@Override
	public String toString() {
		return "LocalApiServerConnectionDetails[" + this.server.serverUrl() + "]";
	}

}
