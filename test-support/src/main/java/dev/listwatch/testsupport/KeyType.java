package dev.listwatch.testsupport;

/**
 * The kind of key pair behind a client certificate minted by
 * {@link LocalApiServer#mintClientCertificate(KeyType, KeyFormat, String, String...)}.
 */
public enum KeyType {

	/** RSA, 2048 bits. */
	RSA,

	/** Elliptic curve, NIST P-256 (secp256r1). */
	EC

}
