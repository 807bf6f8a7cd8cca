package dev.listwatch.cluster;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509KeyManager;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundleKey;
import org.springframework.boot.ssl.SslManagerBundle;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.boot.ssl.SslStoreBundle;
import org.springframework.boot.ssl.pem.PemContent;
import org.springframework.boot.ssl.pem.PemSslStore;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;

/**
 * Parses PEM certificates and keys, and turns a kubeconfig's TLS material into a Spring
 * Boot {@link SslBundle} (trust: the CA; key: the client certificate, or one an exec
 * plugin returns). The checks on the server's name ({@code tls-server-name},
 * {@code insecure-skip-tls-verify}) are the client's.
 */
final class Tls {

	static final String CLIENT_ALIAS = "client";

	private Tls() {
	}

	/**
	 * Parses PEM certificates.
	 * @param pem the PEM text
	 * @return the certificates, never empty
	 * @throws IllegalArgumentException if there is no parseable certificate
	 */
	static List<X509Certificate> certificates(String pem) {
		List<X509Certificate> certificates;
		try {
			certificates = PemContent.of(pem).getCertificates();
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("unparseable certificate", ex);
		}
		if (certificates == null || certificates.isEmpty()) {
			throw new IllegalArgumentException("no certificate");
		}
		return certificates;
	}

	/**
	 * Parses a PEM private key (PKCS#1 RSA, PKCS#8, SEC1 EC).
	 * @param pem the PEM text
	 * @return the key
	 * @throws IllegalArgumentException if there is no parseable key; the message never
	 * holds key material
	 */
	static PrivateKey privateKey(String pem) {
		PrivateKey key;
		try {
			key = PemContent.of(pem).getPrivateKey();
		}
		catch (RuntimeException ex) {
			// the cause is dropped on purpose: parser messages could quote key material
			throw new IllegalArgumentException("unparseable private key");
		}
		if (key == null) {
			throw new IllegalArgumentException("no private key");
		}
		return key;
	}

	/**
	 * Whether the private key belongs to the certificate: signs a random challenge and
	 * verifies it with the certificate's public key.
	 */
	static boolean matches(X509Certificate certificate, PrivateKey key) {
		PublicKey publicKey = certificate.getPublicKey();
		String algorithm = switch (key.getAlgorithm()) {
			case "RSA" -> "SHA256withRSA";
			case "EC" -> "SHA256withECDSA";
			case "Ed25519", "EdDSA" -> "Ed25519";
			case "Ed448" -> "Ed448";
			default -> null;
		};
		if (algorithm == null) {
			return true; // unknown algorithm: let the TLS handshake decide
		}
		try {
			byte[] challenge = new byte[32];
			new SecureRandom().nextBytes(challenge);
			Signature signer = Signature.getInstance(algorithm);
			signer.initSign(key);
			signer.update(challenge);
			byte[] signature = signer.sign();
			Signature verifier = Signature.getInstance(algorithm);
			verifier.initVerify(publicKey);
			verifier.update(challenge);
			return verifier.verify(signature);
		}
		catch (GeneralSecurityException | RuntimeException ex) {
			return false;
		}
	}

	/**
	 * Builds the bundle of a kubeconfig's TLS material. Its trust managers check the
	 * chain against the CA (the JVM's defaults without one); its key manager always
	 * presents the client certificate, or the one an exec plugin returns (see
	 * {@link ClientKeyManager}).
	 * @param trusted CA certificates to trust, or {@code null} for the JVM's defaults
	 * @param clientChain client certificate chain, or {@code null}
	 * @param clientKey client key, or {@code null}
	 * @param exec an exec plugin that may return a client certificate, or {@code null}
	 * @return the bundle
	 */
	static SslBundle bundle(@Nullable List<X509Certificate> trusted, @Nullable List<X509Certificate> clientChain,
			@Nullable PrivateKey clientKey, @Nullable ExecCredentials exec) {
		PemSslStore keyStore = (clientChain != null) ? PemSslStore.of(null, CLIENT_ALIAS, null, clientChain, clientKey)
				: null;
		PemSslStore trustStore = (trusted != null) ? PemSslStore.of(trusted, null) : null;
		SslStoreBundle stores = new PemSslStoreBundle(keyStore, trustStore);
		SslBundleKey key = SslBundleKey.NONE;
		SslManagerBundle base = SslManagerBundle.from(stores, key);
		KeyManager[] keyManagers = (clientChain != null || exec != null) ? new KeyManager[] {
				new ClientKeyManager((clientChain != null) ? x509(base.getKeyManagers()) : null, exec) } : null;
		SslManagerBundle managers = new SslManagerBundle() {

			@Override
			public KeyManagerFactory getKeyManagerFactory() {
				return base.getKeyManagerFactory();
			}

			@Override
			public TrustManagerFactory getTrustManagerFactory() {
				return base.getTrustManagerFactory();
			}

			@Override
			// null when there is no client certificate: SSLContext.init takes null
			@SuppressWarnings("NullAway")
			public KeyManager @Nullable [] getKeyManagers() {
				return keyManagers;
			}

		};
		return SslBundle.of(stores, key, SslOptions.NONE, SslBundle.DEFAULT_PROTOCOL, managers);
	}

	private static X509KeyManager x509(KeyManager[] keyManagers) {
		for (KeyManager keyManager : keyManagers) {
			if (keyManager instanceof X509KeyManager x509) {
				return x509;
			}
		}
		throw new IllegalStateException("No X509KeyManager");
	}

	/**
	 * Always presents the client certificate, whatever CAs the server lists in its
	 * certificate request (as client-go does), instead of the JDK's issuer filtering. A
	 * certificate returned by an exec plugin wins over the kubeconfig's (as in
	 * client-go); the plugin may run during the handshake.
	 */
	static final class ClientKeyManager extends X509ExtendedKeyManager {

		private static final String EXEC_ALIAS = "exec";

		private static final org.apache.commons.logging.Log logger = org.apache.commons.logging.LogFactory
			.getLog(ClientKeyManager.class);

		private final @Nullable X509KeyManager delegate;

		private final @Nullable ExecCredentials exec;

		ClientKeyManager(@Nullable X509KeyManager delegate, @Nullable ExecCredentials exec) {
			this.delegate = delegate;
			this.exec = exec;
		}

		private @Nullable String choose() {
			if (this.exec != null) {
				try {
					if (this.exec.clientCertificateChain() != null) {
						return EXEC_ALIAS;
					}
				}
				catch (KubeconfigException ex) {
					logger.warn("No client certificate from the exec plugin: " + ex.getMessage());
				}
			}
			return (this.delegate != null) ? CLIENT_ALIAS : null;
		}

		@Override
		public String @Nullable [] getClientAliases(String keyType, Principal[] issuers) {
			String alias = choose();
			return (alias != null) ? new String[] { alias } : null;
		}

		@Override
		public @Nullable String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
			return choose();
		}

		@Override
		public @Nullable String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
			return choose();
		}

		@Override
		public String @Nullable [] getServerAliases(String keyType, Principal[] issuers) {
			return null;
		}

		@Override
		public @Nullable String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
			return null;
		}

		@Override
		public X509Certificate @Nullable [] getCertificateChain(String alias) {
			if (EXEC_ALIAS.equals(alias)) {
				return Objects.requireNonNull(this.exec, "chosen only with exec").cachedClientCertificateChain();
			}
			return (this.delegate != null) ? this.delegate.getCertificateChain(alias) : null;
		}

		@Override
		public @Nullable PrivateKey getPrivateKey(String alias) {
			if (EXEC_ALIAS.equals(alias)) {
				return Objects.requireNonNull(this.exec, "chosen only with exec").clientKey();
			}
			return (this.delegate != null) ? this.delegate.getPrivateKey(alias) : null;
		}

	}

}
