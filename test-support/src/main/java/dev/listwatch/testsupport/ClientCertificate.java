package dev.listwatch.testsupport;

import java.util.Objects;

/**
 * A client certificate and its private key, both PEM, as minted by
 * {@link LocalApiServer#mintClientCertificate(KeyType, KeyFormat, String, String...)}.
 *
 * @param certificatePem the certificate, {@code -----BEGIN CERTIFICATE-----}, signed by
 * the server's client CA; the user is its common name, the groups its organizations
 * @param privateKeyPem the private key in the requested {@link KeyFormat}
 */
public record ClientCertificate(String certificatePem, String privateKeyPem) {

	public ClientCertificate {
		Objects.requireNonNull(certificatePem, "certificatePem");
		Objects.requireNonNull(privateKeyPem, "privateKeyPem");
	}

	/** Leaves the key out: a record's default {@code toString} would print it. */
	@Override
	public String toString() {
		return "ClientCertificate[certificatePem=" + this.certificatePem.length() + " chars, privateKeyPem=<hidden>]";
	}

}
