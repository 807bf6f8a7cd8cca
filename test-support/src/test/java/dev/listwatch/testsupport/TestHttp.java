package dev.listwatch.testsupport;

import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * An HTTP client for the tests, trusting a CA and optionally presenting a client
 * certificate.
 */
final class TestHttp {

	private TestHttp() {
	}

	static HttpClient client(String caPem, ClientCertificate clientCertificate) throws Exception {
		return client(caPem, clientCertificate, HttpClient.Version.HTTP_2);
	}

	static HttpClient client(String caPem, ClientCertificate clientCertificate, HttpClient.Version version)
			throws Exception {
		return HttpClient.newBuilder()
			.version(version)
			.sslContext(sslContext(caPem, clientCertificate))
			.connectTimeout(Duration.ofSeconds(5))
			.build();
	}

	static SSLContext sslContext(String caPem, ClientCertificate clientCertificate) throws Exception {
		KeyStore trust = KeyStore.getInstance("PKCS12");
		trust.load(null, null);
		trust.setCertificateEntry("ca", certificate(caPem));
		TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
		tmf.init(trust);
		KeyManagerFactory kmf = null;
		if (clientCertificate != null) {
			char[] password = "changeit".toCharArray();
			KeyStore keys = KeyStore.getInstance("PKCS12");
			keys.load(null, null);
			keys.setKeyEntry("client", privateKey(clientCertificate.privateKeyPem()), password,
					new Certificate[] { certificate(clientCertificate.certificatePem()) });
			kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
			kmf.init(keys, password);
		}
		SSLContext context = SSLContext.getInstance("TLS");
		context.init((kmf != null) ? kmf.getKeyManagers() : null, tmf.getTrustManagers(), null);
		return context;
	}

	static X509Certificate certificate(String pem) throws Exception {
		return (X509Certificate) CertificateFactory.getInstance("X.509")
			.generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
	}

	/** Reads PKCS#1, SEC 1 and PKCS#8 keys alike. */
	static PrivateKey privateKey(String pem) throws Exception {
		try (PEMParser parser = new PEMParser(new StringReader(pem))) {
			Object object = parser.readObject();
			JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
			if (object instanceof PEMKeyPair pair) {
				return converter.getKeyPair(pair).getPrivate();
			}
			if (object instanceof PrivateKeyInfo info) {
				return converter.getPrivateKey(info);
			}
			throw new IllegalArgumentException("Not a private key: " + object);
		}
	}

	static HttpRequest.Builder get(LocalApiServer server, String path) {
		return HttpRequest.newBuilder(URI.create(server.serverUrl() + path)).timeout(Duration.ofSeconds(20)).GET();
	}

	static HttpResponse<String> send(HttpClient client, HttpRequest request) throws Exception {
		return client.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
