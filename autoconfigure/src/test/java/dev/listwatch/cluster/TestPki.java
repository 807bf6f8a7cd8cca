package dev.listwatch.cluster;

import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Test-only certificates and keys, generated at test time (nothing is committed).
 */
public final class TestPki {

	private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

	public enum KeyType {

		RSA, EC

	}

	/**
	 * A certificate with its key pair.
	 */
	public record Issued(X509Certificate certificate, KeyPair keys) {

		public String certificatePem() {
			try {
				return pem("CERTIFICATE", this.certificate.getEncoded());
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

		/** PKCS#8 ("BEGIN PRIVATE KEY"). */
		public String pkcs8Pem() {
			return pem("PRIVATE KEY", this.keys.getPrivate().getEncoded());
		}

		/**
		 * PKCS#1 for RSA ("BEGIN RSA PRIVATE KEY"), SEC1 for EC ("BEGIN EC PRIVATE KEY").
		 */
		public String traditionalPem() {
			try {
				PrivateKey key = this.keys.getPrivate();
				PrivateKeyInfo info = PrivateKeyInfo.getInstance(key.getEncoded());
				if (key instanceof ECPrivateKey ec) {
					SubjectPublicKeyInfo publicKey = SubjectPublicKeyInfo
						.getInstance(this.keys.getPublic().getEncoded());
					org.bouncycastle.asn1.sec.ECPrivateKey sec1 = new org.bouncycastle.asn1.sec.ECPrivateKey(256,
							ec.getS(), publicKey.getPublicKeyData(), info.getPrivateKeyAlgorithm().getParameters());
					return pem("EC PRIVATE KEY", sec1.getEncoded());
				}
				return pem("RSA PRIVATE KEY", info.parsePrivateKey().toASN1Primitive().getEncoded());
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

		public String certificateBase64() {
			return base64(certificatePem());
		}

		/**
		 * An SSLContext presenting this certificate, trusting {@code trusted} for
		 * clients.
		 */
		public SSLContext serverContext(X509Certificate trusted) {
			try {
				KeyStore keyStore = KeyStore.getInstance("PKCS12");
				keyStore.load(null, null);
				keyStore.setKeyEntry("server", this.keys.getPrivate(), "pw".toCharArray(),
						new X509Certificate[] { this.certificate });
				KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
				keyManagers.init(keyStore, "pw".toCharArray());
				TrustManagerFactory trustManagers = null;
				if (trusted != null) {
					KeyStore trustStore = KeyStore.getInstance("PKCS12");
					trustStore.load(null, null);
					trustStore.setCertificateEntry("ca", trusted);
					trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
					trustManagers.init(trustStore);
				}
				SSLContext context = SSLContext.getInstance("TLS");
				context.init(keyManagers.getKeyManagers(),
						(trustManagers != null) ? trustManagers.getTrustManagers() : null, null);
				return context;
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

	private TestPki() {
	}

	public static String base64(String text) {
		return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
	}

	public static String pem(String type, byte[] der) {
		String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
		return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
	}

	public static KeyPair keyPair(KeyType type) {
		try {
			if (type == KeyType.RSA) {
				KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
				generator.initialize(2048);
				return generator.generateKeyPair();
			}
			KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
			generator.initialize(new ECGenParameterSpec("secp256r1"));
			return generator.generateKeyPair();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	public static Issued ca(String commonName) {
		KeyPair keys = keyPair(KeyType.EC);
		return new Issued(sign(commonName, commonName, keys.getPublic(), keys.getPrivate(), true, List.of()), keys);
	}

	/**
	 * Issues a certificate.
	 * @param issuer the CA
	 * @param commonName the subject CN
	 * @param type the key type
	 * @param names subject alternative names: IP literals become IP SANs, others DNS SANs
	 */
	public static Issued issue(Issued issuer, String commonName, KeyType type, String... names) {
		KeyPair keys = keyPair(type);
		X509Certificate certificate = sign(issuer.certificate().getSubjectX500Principal().getName(), commonName,
				keys.getPublic(), issuer.keys().getPrivate(), false, List.of(names));
		return new Issued(certificate, keys);
	}

	private static X509Certificate sign(String issuer, String subject, java.security.PublicKey publicKey,
			PrivateKey signer, boolean ca, List<String> names) {
		try {
			Instant now = Instant.now();
			X500Name issuerName = ca ? new X500Name("CN=" + subject) : new X500Name(issuer);
			JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuerName,
					BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(now.minus(1, ChronoUnit.HOURS)),
					Date.from(now.plus(1, ChronoUnit.DAYS)), new X500Name("CN=" + subject), publicKey);
			builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
			if (ca) {
				builder.addExtension(Extension.keyUsage, true,
						new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
			}
			if (!names.isEmpty()) {
				List<GeneralName> generalNames = new ArrayList<>();
				for (String name : names) {
					boolean ip = name.matches("[0-9.]+") || name.contains(":");
					generalNames.add(ip
							? new GeneralName(GeneralName.iPAddress,
									new org.bouncycastle.asn1.DEROctetString(InetAddress.getByName(name).getAddress()))
							: new GeneralName(GeneralName.dNSName, name));
				}
				builder.addExtension(Extension.subjectAlternativeName, false,
						new GeneralNames(generalNames.toArray(GeneralName[]::new)));
			}
			String algorithm = signer.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
			return new JcaX509CertificateConverter()
				.getCertificate(builder.build(new JcaContentSignerBuilder(algorithm).build(signer)));
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
