package dev.listwatch.client;

import java.net.InetAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

import org.jspecify.annotations.Nullable;

/**
 * How the client checks the API server's certificate beyond its chain: against
 * {@code tls-server-name} instead of the URL's host, or not at all
 * ({@code insecure-skip-tls-verify}).
 */
final class ServerTrust {

	private ServerTrust() {
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
	 * A trust manager on the client side of a connection: it checks servers only, all
	 * three ways of asking through
	 * {@link #checkServerTrusted(X509Certificate[], String)}, and refuses to check
	 * clients.
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
	 * Trusts a server that any of its delegates trusts (asked the way it was asked, so
	 * that a delegate that checks the host name against the engine's peer does so): an
	 * {@code https://} proxy is trusted by the cluster's CA or by the JVM's default trust
	 * store.
	 */
	static final class AnyOfTrustManager extends ClientSideTrustManager {

		private final List<X509ExtendedTrustManager> delegates;

		private final String refusal;

		/**
		 * Trusts what any delegate trusts.
		 * @param delegates the delegates
		 * @param refusal what a refusal says first, e.g. which server was not trusted and
		 * how to trust it
		 */
		AnyOfTrustManager(List<X509ExtendedTrustManager> delegates, String refusal) {
			this.delegates = List.copyOf(delegates);
			this.refusal = refusal;
		}

		@Override
		public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
			check((delegate) -> delegate.checkServerTrusted(chain, authType));
		}

		@Override
		public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
				throws CertificateException {
			check((delegate) -> delegate.checkServerTrusted(chain, authType, socket));
		}

		@Override
		public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
				throws CertificateException {
			check((delegate) -> delegate.checkServerTrusted(chain, authType, engine));
		}

		private void check(Check check) throws CertificateException {
			@Nullable CertificateException first = null;
			for (X509ExtendedTrustManager delegate : this.delegates) {
				try {
					check.on(delegate);
					return;
				}
				catch (CertificateException ex) {
					if (first == null) {
						first = ex;
					}
				}
			}
			throw new CertificateException(
					this.refusal + ((first != null) ? " (" + first.getMessage() + ")" : " (no trust material)"), first);
		}

		@Override
		public X509Certificate[] getAcceptedIssuers() {
			return this.delegates.stream()
				.flatMap((delegate) -> Arrays.stream(delegate.getAcceptedIssuers()))
				.toArray(X509Certificate[]::new);
		}

		private interface Check {

			void on(X509ExtendedTrustManager delegate) throws CertificateException;

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

}
