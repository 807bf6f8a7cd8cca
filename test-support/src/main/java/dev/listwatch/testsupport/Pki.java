package dev.listwatch.testsupport;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECPoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.DERBitString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;

/**
 * The certificates of one local API server: one CA (self-signed,
 * {@code O=system:masters}) that signs the serving certificate and every client
 * certificate, and is itself the client certificate of the kubeconfig's default user, as
 * kube-api-test expects of {@code client.crt}.
 */
final class Pki {

	static final Duration VALIDITY = Duration.ofDays(365);

	private static final SecureRandom RANDOM = new SecureRandom();

	private final KeyPair caKeyPair;

	private final X509CertificateHolder caCertificate;

	private Pki(KeyPair caKeyPair, X509CertificateHolder caCertificate) {
		this.caKeyPair = caKeyPair;
		this.caCertificate = caCertificate;
	}

	static Pki create() {
		KeyPair keyPair = generate(KeyType.EC);
		X500Name name = name("listwatch-test-ca", "system:masters");
		Instant now = Instant.now();
		X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, serial(),
				Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(VALIDITY)), name, keyPair.getPublic());
		try {
			JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
			builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
			builder.addExtension(Extension.keyUsage, true,
					new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
			builder.addExtension(Extension.subjectKeyIdentifier, false,
					utils.createSubjectKeyIdentifier(keyPair.getPublic()));
		}
		catch (IOException | GeneralSecurityException ex) {
			throw new IllegalStateException("Cannot build the test CA", ex);
		}
		return new Pki(keyPair, sign(builder, keyPair.getPrivate()));
	}

	String caCertificatePem() {
		return pem("CERTIFICATE", encoded(this.caCertificate));
	}

	String caPrivateKeyPem() {
		return privateKeyPem(this.caKeyPair, KeyFormat.SEC1);
	}

	/**
	 * A serving certificate for {@code localhost}, {@code 127.0.0.1} and {@code ::1} (and
	 * the in-cluster names of the {@code kubernetes} service), signed by the CA.
	 * @return the certificate followed by the CA (the chain the server presents) and the
	 * key
	 */
	ClientCertificate servingCertificate() {
		KeyPair keyPair = generate(KeyType.EC);
		List<GeneralName> names = new ArrayList<>();
		for (String dns : List.of("localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
				"kubernetes.default.svc.cluster.local")) {
			names.add(new GeneralName(GeneralName.dNSName, dns));
		}
		names.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
		names.add(new GeneralName(GeneralName.iPAddress, "::1"));
		names.add(new GeneralName(GeneralName.iPAddress, "10.0.0.1"));
		X509CertificateHolder certificate = issue(name("kube-apiserver"), keyPair,
				KeyUsage.digitalSignature | KeyUsage.keyEncipherment, KeyPurposeId.id_kp_serverAuth,
				new GeneralNames(names.toArray(GeneralName[]::new)));
		return new ClientCertificate(pem("CERTIFICATE", encoded(certificate)) + caCertificatePem(),
				privateKeyPem(keyPair, KeyFormat.SEC1));
	}

	ClientCertificate clientCertificate(KeyType type, KeyFormat format, String user, String... groups) {
		if (type == KeyType.RSA && format == KeyFormat.SEC1) {
			throw new IllegalArgumentException("SEC1 is an encoding of EC keys; use PKCS1 or PKCS8 for RSA");
		}
		if (type == KeyType.EC && format == KeyFormat.PKCS1) {
			throw new IllegalArgumentException("PKCS1 is an encoding of RSA keys; use SEC1 or PKCS8 for EC");
		}
		if (user == null || user.isBlank()) {
			throw new IllegalArgumentException("user must not be blank");
		}
		KeyPair keyPair = generate(type);
		int keyUsage = KeyUsage.digitalSignature | ((type == KeyType.RSA) ? KeyUsage.keyEncipherment : 0);
		X509CertificateHolder certificate = issue(name(user, groups), keyPair, keyUsage, KeyPurposeId.id_kp_clientAuth,
				null);
		return new ClientCertificate(pem("CERTIFICATE", encoded(certificate)), privateKeyPem(keyPair, format));
	}

	void writeTo(Path dir) {
		ClientCertificate serving = servingCertificate();
		write(dir.resolve("ca.crt"), caCertificatePem());
		write(dir.resolve("client.crt"), caCertificatePem());
		write(dir.resolve("client.key"), caPrivateKeyPem());
		write(dir.resolve("apiserver.crt"), serving.certificatePem());
		write(dir.resolve("apiserver.key"), serving.privateKeyPem());
	}

	/**
	 * A serving certificate that is a client certificate too (for {@code localhost} and
	 * {@code 127.0.0.1}), signed by the CA: etcd's JSON gateway dials etcd's own gRPC
	 * port with the serving certificate, which {@code --client-cert-auth} checks as a
	 * client's.
	 * @return the certificate followed by the CA, and the key
	 */
	ClientCertificate peerCertificate() {
		KeyPair keyPair = generate(KeyType.EC);
		GeneralNames names = new GeneralNames(new GeneralName[] { new GeneralName(GeneralName.dNSName, "localhost"),
				new GeneralName(GeneralName.iPAddress, "127.0.0.1") });
		X509CertificateHolder certificate = issue(name("etcd"), keyPair,
				KeyUsage.digitalSignature | KeyUsage.keyEncipherment,
				new KeyPurposeId[] { KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth }, names);
		return new ClientCertificate(pem("CERTIFICATE", encoded(certificate)) + caCertificatePem(),
				privateKeyPem(keyPair, KeyFormat.SEC1));
	}

	private X509CertificateHolder issue(X500Name subject, KeyPair keyPair, int keyUsage, KeyPurposeId purpose,
			GeneralNames subjectAlternativeNames) {
		return issue(subject, keyPair, keyUsage, new KeyPurposeId[] { purpose }, subjectAlternativeNames);
	}

	private X509CertificateHolder issue(X500Name subject, KeyPair keyPair, int keyUsage, KeyPurposeId[] purposes,
			GeneralNames subjectAlternativeNames) {
		Instant now = Instant.now();
		X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(this.caCertificate.getSubject(), serial(),
				Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(VALIDITY)), subject, keyPair.getPublic());
		try {
			JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
			builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
			builder.addExtension(Extension.keyUsage, true, new KeyUsage(keyUsage));
			builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes));
			builder.addExtension(Extension.authorityKeyIdentifier, false,
					utils.createAuthorityKeyIdentifier(this.caCertificate.getSubjectPublicKeyInfo()));
			if (subjectAlternativeNames != null) {
				builder.addExtension(Extension.subjectAlternativeName, false, subjectAlternativeNames);
			}
		}
		catch (IOException | GeneralSecurityException ex) {
			throw new IllegalStateException("Cannot build a certificate for " + subject, ex);
		}
		return sign(builder, this.caKeyPair.getPrivate());
	}

	private static X500Name name(String commonName, String... organizations) {
		X500NameBuilder builder = new X500NameBuilder(BCStyle.INSTANCE);
		for (String organization : organizations) {
			builder.addRDN(BCStyle.O, organization);
		}
		builder.addRDN(BCStyle.CN, commonName);
		return builder.build();
	}

	private static BigInteger serial() {
		return new BigInteger(127, RANDOM).add(BigInteger.ONE);
	}

	private static X509CertificateHolder sign(X509v3CertificateBuilder builder, PrivateKey signer) {
		String algorithm = "EC".equals(signer.getAlgorithm()) ? "SHA256withECDSA" : "SHA256withRSA";
		try {
			return builder.build(new JcaContentSignerBuilder(algorithm).build(signer));
		}
		catch (OperatorCreationException ex) {
			throw new IllegalStateException("Cannot sign a certificate", ex);
		}
	}

	static KeyPair generate(KeyType type) {
		try {
			if (type == KeyType.RSA) {
				KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
				generator.initialize(2048, RANDOM);
				return generator.generateKeyPair();
			}
			KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
			generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
			return generator.generateKeyPair();
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("Cannot generate a " + type + " key", ex);
		}
	}

	static String privateKeyPem(KeyPair keyPair, KeyFormat format) {
		PrivateKeyInfo info = PrivateKeyInfo.getInstance(keyPair.getPrivate().getEncoded());
		try {
			return switch (format) {
				case PKCS8 -> pem("PRIVATE KEY", info.getEncoded());
				case PKCS1 -> pem("RSA PRIVATE KEY", info.parsePrivateKey().toASN1Primitive().getEncoded());
				case SEC1 -> pem("EC PRIVATE KEY", sec1((ECPrivateKey) keyPair.getPrivate(),
						(ECPublicKey) keyPair.getPublic(), info.getPrivateKeyAlgorithm()));
			};
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * SEC 1 with the curve parameters and the public key, as OpenSSL writes it (the JDK's
	 * own PKCS#8 encoding leaves both out of the inner structure, and Go's parser needs
	 * the curve).
	 */
	private static byte[] sec1(ECPrivateKey key, ECPublicKey publicKey, AlgorithmIdentifier algorithm)
			throws IOException {
		ASN1Encodable curve = algorithm.getParameters();
		ECPoint w = publicKey.getW();
		int fieldBytes = (key.getParams().getCurve().getField().getFieldSize() + 7) / 8;
		byte[] point = new byte[1 + 2 * fieldBytes];
		point[0] = 0x04;
		copyUnsigned(w.getAffineX(), point, 1, fieldBytes);
		copyUnsigned(w.getAffineY(), point, 1 + fieldBytes, fieldBytes);
		return new org.bouncycastle.asn1.sec.ECPrivateKey(key.getParams().getOrder().bitLength(), key.getS(),
				new DERBitString(point), curve)
			.getEncoded();
	}

	private static void copyUnsigned(BigInteger value, byte[] target, int offset, int length) {
		byte[] bytes = value.toByteArray();
		int start = Math.max(0, bytes.length - length);
		int count = bytes.length - start;
		System.arraycopy(bytes, start, target, offset + length - count, count);
	}

	private static byte[] encoded(X509CertificateHolder certificate) {
		try {
			return certificate.getEncoded();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static String pem(String type, byte[] content) {
		StringWriter out = new StringWriter();
		try (PemWriter writer = new PemWriter(out)) {
			writer.writeObject(new PemObject(type, content));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return out.toString();
	}

	static void write(Path file, String content) {
		try {
			Files.writeString(file, content, StandardCharsets.US_ASCII);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
