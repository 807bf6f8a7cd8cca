package dev.listwatch.testsupport;

/**
 * The PEM encoding of a private key minted by
 * {@link LocalApiServer#mintClientCertificate(KeyType, KeyFormat, String, String...)}:
 * the three encodings that kubeconfig files carry in practice.
 */
public enum KeyFormat {

	/** PKCS#1, {@code -----BEGIN RSA PRIVATE KEY-----}; RSA keys only. */
	PKCS1,

	/** PKCS#8, {@code -----BEGIN PRIVATE KEY-----}; RSA and EC keys. */
	PKCS8,

	/**
	 * SEC 1 (RFC 5915), {@code -----BEGIN EC PRIVATE KEY-----}, with the named curve and
	 * the public key inside, as {@code openssl ecparam -genkey} writes it; EC keys only.
	 */
	SEC1

}
