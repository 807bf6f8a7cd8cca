package dev.listwatch.client;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.List;
import java.util.function.BiFunction;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * An {@link SSLContext} whose engines send {@code tls-server-name} as the TLS server name
 * indication (SNI), as client-go does, whatever host the URL names.
 *
 * <p>
 * The JDK HTTP client sets the SNI of every connection itself: the URL's host when it is
 * a DNS name (overwriting any server name given through
 * {@code HttpClient.Builder.sslParameters}), none when it is an IP address. Gateways that
 * route on SNI then see the URL's host instead of the name the cluster is reached by. The
 * engines of this context replace the server names on every
 * {@link SSLEngine#setSSLParameters(SSLParameters)}, so the name that reaches the wire is
 * {@code tls-server-name}, or no name at all when {@code tls-server-name} is an IP
 * address (Go sends no SNI for an address either). The HTTP {@code Host} header still
 * names the URL's host, as in client-go. Verifying the certificate against
 * {@code tls-server-name} is the trust manager's work (see {@link ServerTrust}).
 */
final class ServerNameSslContext extends SSLContext {

	/**
	 * Wraps an initialized context.
	 * @param delegate the context that does the TLS work
	 * @param serverName the name to send as SNI
	 */
	ServerNameSslContext(SSLContext delegate, String serverName) {
		super(new Spi(delegate, serverNames(serverName)), delegate.getProvider(), delegate.getProtocol());
	}

	static List<SNIServerName> serverNames(String serverName) {
		return ServerTrust.isIpLiteral(serverName) ? List.of() : List.of(new SNIHostName(serverName));
	}

	private static final class Spi extends SSLContextSpi {

		private final SSLContext delegate;

		private final List<SNIServerName> serverNames;

		Spi(SSLContext delegate, List<SNIServerName> serverNames) {
			this.delegate = delegate;
			this.serverNames = serverNames;
		}

		@Override
		protected void engineInit(KeyManager[] keyManagers, TrustManager[] trustManagers, SecureRandom random) {
			throw new UnsupportedOperationException("Already initialized");
		}

		@Override
		protected SSLSocketFactory engineGetSocketFactory() {
			return this.delegate.getSocketFactory();
		}

		@Override
		protected SSLServerSocketFactory engineGetServerSocketFactory() {
			return this.delegate.getServerSocketFactory();
		}

		@Override
		protected SSLEngine engineCreateSSLEngine() {
			return new ServerNameEngine(this.delegate.createSSLEngine(), this.serverNames);
		}

		@Override
		protected SSLEngine engineCreateSSLEngine(String host, int port) {
			return new ServerNameEngine(this.delegate.createSSLEngine(host, port), this.serverNames);
		}

		@Override
		protected SSLSessionContext engineGetServerSessionContext() {
			return this.delegate.getServerSessionContext();
		}

		@Override
		protected SSLSessionContext engineGetClientSessionContext() {
			return this.delegate.getClientSessionContext();
		}

		@Override
		protected SSLParameters engineGetDefaultSSLParameters() {
			SSLParameters parameters = this.delegate.getDefaultSSLParameters();
			parameters.setServerNames(this.serverNames);
			return parameters;
		}

		@Override
		protected SSLParameters engineGetSupportedSSLParameters() {
			return this.delegate.getSupportedSSLParameters();
		}

	}

	/**
	 * Delegates everything, but replaces the server names of the parameters it is given.
	 */
	static final class ServerNameEngine extends SSLEngine {

		private final SSLEngine delegate;

		private final List<SNIServerName> serverNames;

		ServerNameEngine(SSLEngine delegate, List<SNIServerName> serverNames) {
			super(delegate.getPeerHost(), delegate.getPeerPort());
			this.delegate = delegate;
			this.serverNames = serverNames;
			SSLParameters parameters = delegate.getSSLParameters();
			parameters.setServerNames(serverNames);
			delegate.setSSLParameters(parameters);
		}

		@Override
		public void setSSLParameters(SSLParameters parameters) {
			parameters.setServerNames(this.serverNames);
			this.delegate.setSSLParameters(parameters);
		}

		@Override
		public SSLParameters getSSLParameters() {
			return this.delegate.getSSLParameters();
		}

		@Override
		public SSLEngineResult wrap(ByteBuffer src, ByteBuffer dst) throws SSLException {
			return this.delegate.wrap(src, dst);
		}

		@Override
		public SSLEngineResult wrap(ByteBuffer[] srcs, ByteBuffer dst) throws SSLException {
			return this.delegate.wrap(srcs, dst);
		}

		@Override
		public SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length, ByteBuffer dst) throws SSLException {
			return this.delegate.wrap(srcs, offset, length, dst);
		}

		@Override
		public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer dst) throws SSLException {
			return this.delegate.unwrap(src, dst);
		}

		@Override
		public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts) throws SSLException {
			return this.delegate.unwrap(src, dsts);
		}

		@Override
		public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts, int offset, int length) throws SSLException {
			return this.delegate.unwrap(src, dsts, offset, length);
		}

		@Override
		public Runnable getDelegatedTask() {
			return this.delegate.getDelegatedTask();
		}

		@Override
		public void closeInbound() throws SSLException {
			this.delegate.closeInbound();
		}

		@Override
		public boolean isInboundDone() {
			return this.delegate.isInboundDone();
		}

		@Override
		public void closeOutbound() {
			this.delegate.closeOutbound();
		}

		@Override
		public boolean isOutboundDone() {
			return this.delegate.isOutboundDone();
		}

		@Override
		public String[] getSupportedCipherSuites() {
			return this.delegate.getSupportedCipherSuites();
		}

		@Override
		public String[] getEnabledCipherSuites() {
			return this.delegate.getEnabledCipherSuites();
		}

		@Override
		public void setEnabledCipherSuites(String[] suites) {
			this.delegate.setEnabledCipherSuites(suites);
		}

		@Override
		public String[] getSupportedProtocols() {
			return this.delegate.getSupportedProtocols();
		}

		@Override
		public String[] getEnabledProtocols() {
			return this.delegate.getEnabledProtocols();
		}

		@Override
		public void setEnabledProtocols(String[] protocols) {
			this.delegate.setEnabledProtocols(protocols);
		}

		@Override
		public SSLSession getSession() {
			return this.delegate.getSession();
		}

		@Override
		public SSLSession getHandshakeSession() {
			return this.delegate.getHandshakeSession();
		}

		@Override
		public void beginHandshake() throws SSLException {
			this.delegate.beginHandshake();
		}

		@Override
		public SSLEngineResult.HandshakeStatus getHandshakeStatus() {
			return this.delegate.getHandshakeStatus();
		}

		@Override
		public void setUseClientMode(boolean mode) {
			this.delegate.setUseClientMode(mode);
		}

		@Override
		public boolean getUseClientMode() {
			return this.delegate.getUseClientMode();
		}

		@Override
		public void setNeedClientAuth(boolean need) {
			this.delegate.setNeedClientAuth(need);
		}

		@Override
		public boolean getNeedClientAuth() {
			return this.delegate.getNeedClientAuth();
		}

		@Override
		public void setWantClientAuth(boolean want) {
			this.delegate.setWantClientAuth(want);
		}

		@Override
		public boolean getWantClientAuth() {
			return this.delegate.getWantClientAuth();
		}

		@Override
		public void setEnableSessionCreation(boolean flag) {
			this.delegate.setEnableSessionCreation(flag);
		}

		@Override
		public boolean getEnableSessionCreation() {
			return this.delegate.getEnableSessionCreation();
		}

		@Override
		public String getApplicationProtocol() {
			return this.delegate.getApplicationProtocol();
		}

		@Override
		public String getHandshakeApplicationProtocol() {
			return this.delegate.getHandshakeApplicationProtocol();
		}

		@Override
		public void setHandshakeApplicationProtocolSelector(BiFunction<SSLEngine, List<String>, String> selector) {
			this.delegate.setHandshakeApplicationProtocolSelector(selector);
		}

		@Override
		public BiFunction<SSLEngine, List<String>, String> getHandshakeApplicationProtocolSelector() {
			return this.delegate.getHandshakeApplicationProtocolSelector();
		}

		@Override
		public String toString() {
			return this.delegate.toString();
		}

	}

}
