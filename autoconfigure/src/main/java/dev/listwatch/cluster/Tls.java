package dev.listwatch.cluster;

import java.net.InetAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.security.GeneralSecurityException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundleKey;
import org.springframework.boot.ssl.SslManagerBundle;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.boot.ssl.SslStoreBundle;
import org.springframework.boot.ssl.pem.PemContent;
import org.springframework.boot.ssl.pem.PemSslStore;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;

/**
 * Turns PEM material and kubeconfig TLS flags into a Spring Boot {@link SslBundle}.
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
	 * Builds the bundle.
	 * @param trusted CA certificates to trust, or {@code null} for the JVM's defaults
	 * @param clientChain client certificate chain, or {@code null}
	 * @param clientKey client key, or {@code null}
	 * @param exec an exec plugin that may return a client certificate, or {@code null}
	 * @param tlsServerName name to send as SNI and to verify the server certificate against
	 * instead of the URL's host, or {@code null}
	 * @param insecure accept any server certificate
	 * @return the bundle
	 */
	static SslBundle bundle(List<X509Certificate> trusted, List<X509Certificate> clientChain, PrivateKey clientKey,
			ExecCredentials exec, String tlsServerName, boolean insecure) {
		PemSslStore keyStore = (clientChain != null) ? PemSslStore.of(null, CLIENT_ALIAS, null, clientChain, clientKey)
				: null;
		PemSslStore trustStore = (trusted != null) ? PemSslStore.of(trusted, null) : null;
		SslStoreBundle stores = new PemSslStoreBundle(keyStore, trustStore);
		SslBundleKey key = SslBundleKey.NONE;
		SslManagerBundle base = SslManagerBundle.from(stores, key);
		KeyManager[] keyManagers = (clientChain != null || exec != null)
				? new KeyManager[] { new ClientKeyManager((clientChain != null) ? x509(base.getKeyManagers()) : null, exec) }
				: null;
		TrustManager[] trustManagers;
		if (insecure) {
			trustManagers = new TrustManager[] { new InsecureTrustManager() };
		}
		else if (tlsServerName != null) {
			trustManagers = new TrustManager[] {
					new ServerNameTrustManager(x509(base.getTrustManagerFactory()), tlsServerName) };
		}
		else {
			trustManagers = base.getTrustManagers();
		}
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
			public KeyManager[] getKeyManagers() {
				return keyManagers;
			}

			@Override
			public TrustManager[] getTrustManagers() {
				return trustManagers;
			}

			@Override
			public SSLContext createSslContext(String protocol) {
				SSLContext context = SslManagerBundle.super.createSslContext(protocol);
				return (tlsServerName != null) ? new ServerNameSslContext(context, tlsServerName) : context;
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

	private static X509TrustManager x509(TrustManagerFactory factory) {
		for (TrustManager trustManager : factory.getTrustManagers()) {
			if (trustManager instanceof X509TrustManager x509) {
				return x509;
			}
		}
		throw new IllegalStateException("No X509TrustManager in " + factory.getAlgorithm());
	}

	static boolean isIpLiteral(String host) {
		return host.indexOf(':') >= 0 || host.matches("[0-9.]+");
	}

	/**
	 * Whether the certificate is valid for the name: subject alternative names only (DNS
	 * with a single left-most wildcard label, or IP address), like Go.
	 */
	static boolean certificateMatches(X509Certificate certificate, String name) {
		Collection<List<?>> alternativeNames;
		try {
			alternativeNames = certificate.getSubjectAlternativeNames();
		}
		catch (CertificateParsingException ex) {
			return false;
		}
		if (alternativeNames == null) {
			return false;
		}
		boolean ip = isIpLiteral(name);
		for (List<?> alternativeName : alternativeNames) {
			int type = (Integer) alternativeName.get(0);
			Object value = alternativeName.get(1);
			if (ip && type == 7 && value instanceof String address && sameAddress(address, name)) {
				return true;
			}
			if (!ip && type == 2 && value instanceof String dns && dnsMatches(dns, name)) {
				return true;
			}
		}
		return false;
	}

	private static boolean sameAddress(String a, String b) {
		try {
			String left = a.startsWith("[") ? a.substring(1, a.length() - 1) : a;
			String right = b.startsWith("[") ? b.substring(1, b.length() - 1) : b;
			return InetAddress.getByName(left).equals(InetAddress.getByName(right));
		}
		catch (UnknownHostException ex) {
			return false;
		}
	}

	private static boolean dnsMatches(String pattern, String name) {
		String p = pattern.toLowerCase(Locale.ROOT);
		String n = name.toLowerCase(Locale.ROOT);
		if (p.endsWith(".")) {
			p = p.substring(0, p.length() - 1);
		}
		if (n.endsWith(".")) {
			n = n.substring(0, n.length() - 1);
		}
		if (p.startsWith("*.")) {
			int dot = n.indexOf('.');
			return dot > 0 && n.substring(dot).equals(p.substring(1));
		}
		return p.equals(n);
	}

	/**
	 * A trust manager on the client side of a connection: it checks servers only, all three
	 * ways of asking through {@link #checkServerTrusted(X509Certificate[], String)}, and refuses
	 * to check clients.
	 */
	abstract static class ClientSideTrustManager extends X509ExtendedTrustManager {

		@Override
		public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
				throws CertificateException {
			checkServerTrusted(chain, authType);
		}

		@Override
		public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
				throws CertificateException {
			checkServerTrusted(chain, authType);
		}

		@Override
		public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
			throw new CertificateException("Client certificates are not checked by a client");
		}

		@Override
		public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
				throws CertificateException {
			checkClientTrusted(chain, authType);
		}

		@Override
		public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
				throws CertificateException {
			checkClientTrusted(chain, authType);
		}

	}

	/**
	 * Checks the chain with the delegate (CA trust only) and the leaf against the
	 * configured {@code tls-server-name} instead of the URL's host.
	 */
	static final class ServerNameTrustManager extends ClientSideTrustManager {

		private final X509TrustManager delegate;

		private final String serverName;

		ServerNameTrustManager(X509TrustManager delegate, String serverName) {
			this.delegate = delegate;
			this.serverName = serverName;
		}

		@Override
		public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
			this.delegate.checkServerTrusted(chain, authType);
			if (chain == null || chain.length == 0 || !certificateMatches(chain[0], this.serverName)) {
				throw new CertificateException(
						"Server certificate is not valid for tls-server-name " + this.serverName);
			}
		}

		@Override
		public X509Certificate[] getAcceptedIssuers() {
			return this.delegate.getAcceptedIssuers();
		}

	}

	/**
	 * Accepts every server certificate: {@code insecure-skip-tls-verify: true}.
	 */
	static final class InsecureTrustManager extends ClientSideTrustManager {

		@Override
		public void checkServerTrusted(X509Certificate[] chain, String authType) {
		}

		@Override
		public X509Certificate[] getAcceptedIssuers() {
			return new X509Certificate[0];
		}

	}

	/**
	 * Always presents the client certificate, whatever CAs the server lists in its
	 * certificate request (as client-go does), instead of the JDK's issuer filtering. A
	 * certificate returned by an exec plugin wins over the kubeconfig's (as in client-go);
	 * the plugin may run during the handshake.
	 */
	static final class ClientKeyManager extends X509ExtendedKeyManager {

		private static final String EXEC_ALIAS = "exec";

		private static final org.apache.commons.logging.Log logger = org.apache.commons.logging.LogFactory
			.getLog(ClientKeyManager.class);

		private final X509KeyManager delegate;

		private final ExecCredentials exec;

		ClientKeyManager(X509KeyManager delegate, ExecCredentials exec) {
			this.delegate = delegate;
			this.exec = exec;
		}

		private String choose() {
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
		public String[] getClientAliases(String keyType, Principal[] issuers) {
			String alias = choose();
			return (alias != null) ? new String[] { alias } : null;
		}

		@Override
		public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
			return choose();
		}

		@Override
		public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
			return choose();
		}

		@Override
		public String[] getServerAliases(String keyType, Principal[] issuers) {
			return null;
		}

		@Override
		public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
			return null;
		}

		@Override
		public X509Certificate[] getCertificateChain(String alias) {
			if (EXEC_ALIAS.equals(alias)) {
				return this.exec.cachedClientCertificateChain();
			}
			return (this.delegate != null) ? this.delegate.getCertificateChain(alias) : null;
		}

		@Override
		public PrivateKey getPrivateKey(String alias) {
			if (EXEC_ALIAS.equals(alias)) {
				return this.exec.clientKey();
			}
			return (this.delegate != null) ? this.delegate.getPrivateKey(alias) : null;
		}

	}

}
