package dev.listwatch.cluster;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.ssl.SslBundle;

/**
 * TLS material named by properties (a CA, a client certificate and its key, each a PEM
 * file or the PEM text itself) as a Spring Boot {@link SslBundle}, with the checks and
 * the key manager the API server connection uses: every certificate and key must parse,
 * the key must belong to the certificate, and the client certificate is always presented,
 * whatever CAs the server names in its request. For connections other than the API
 * server's, such as etcd's ({@code listwatch.etcd.*}).
 */
public final class PemBundles {

	private static final String PEM_START = "-----BEGIN";

	private PemBundles() {
	}

	/**
	 * Builds the bundle.
	 * @param prefix the properties' common prefix, for messages, for example
	 * {@code listwatch.etcd.}
	 * @param certificateAuthority the CA certificates that sign the server's certificate
	 * (a path or PEM text), or {@code null} for the JVM's default trust store
	 * @param clientCertificate the client certificate chain (a path or PEM text), or
	 * {@code null}
	 * @param clientKey the client certificate's private key (a path or PEM text), or
	 * {@code null}
	 * @return the bundle
	 * @throws KubeconfigException naming the property and the fix (never key material)
	 * when a value cannot be read or parsed, only one of certificate and key is given, or
	 * they do not belong together
	 */
	public static SslBundle of(String prefix, @Nullable String certificateAuthority, @Nullable String clientCertificate,
			@Nullable String clientKey) {
		String settings = prefix + "* settings";
		List<X509Certificate> trusted = null;
		if (Values.hasText(certificateAuthority)) {
			String field = prefix + "certificate-authority";
			trusted = Values.certificates(pem(certificateAuthority, settings, field), settings, field,
					"give the PEM file of the CA that signs the server's certificate");
		}
		boolean hasCertificate = Values.hasText(clientCertificate);
		if (hasCertificate != Values.hasText(clientKey)) {
			String missing = prefix + (hasCertificate ? "client-key" : "client-certificate");
			throw new KubeconfigException(settings, missing,
					"is not set, but " + prefix + (hasCertificate ? "client-certificate" : "client-key") + " is",
					"set both " + prefix + "client-certificate and " + prefix + "client-key, or neither");
		}
		List<X509Certificate> chain = null;
		PrivateKey key = null;
		if (Values.hasText(clientCertificate) && Values.hasText(clientKey)) {
			String certificateField = prefix + "client-certificate";
			String keyField = prefix + "client-key";
			chain = Values.certificates(pem(clientCertificate, settings, certificateField), settings, certificateField,
					"give the PEM file of the client certificate");
			try {
				key = Tls.privateKey(pem(clientKey, settings, keyField));
			}
			catch (IllegalArgumentException ex) {
				throw new KubeconfigException(settings, keyField,
						"does not hold a PEM private key that can be read (" + ex.getMessage() + ")",
						"give the PEM file of the client certificate's key (PKCS#1, PKCS#8 or SEC1)");
			}
			if (!Tls.matches(chain.get(0), key)) {
				throw new KubeconfigException(settings, keyField, "is not the key of " + certificateField,
						"give the key that belongs to the client certificate");
			}
		}
		return Tls.bundle(trusted, chain, key, null);
	}

	private static String pem(String value, String settings, String field) {
		String text = value.strip();
		return text.startsWith(PEM_START) ? text : Values.readFile(Path.of(text), settings, field);
	}

}
