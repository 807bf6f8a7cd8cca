package dev.listwatch.client;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

import org.jspecify.annotations.Nullable;

/**
 * The JVM's default {@link SSLContext}, set up the first time TLS is asked of it rather
 * than when it is made.
 *
 * <p>
 * The JDK HTTP client takes an SSL context when it is built, and without one it sets up
 * the JVM's default there and then: the security providers, the cipher suites and the
 * JVM's trust store, some 500 classes and several hundred milliseconds of a start-up. The
 * transport to a plain {@code http} server never speaks TLS (it follows no redirect and
 * talks to that server only), so it is given this context, which costs nothing until a
 * TLS connection is asked of it, and is then the default context exactly.
 */
final class DeferredSslContext extends SSLContext {

	DeferredSslContext() {
		super(new Spi(), null, "Default");
	}

	/**
	 * The parameters to give the HTTP client beside this context, in place of the ones it
	 * would ask this context for at once: none set, so that an engine keeps the default
	 * context's own (its protocols and cipher suites).
	 * @return new parameters
	 */
	static SSLParameters parameters() {
		return new SSLParameters();
	}

	private static final class Spi extends SSLContextSpi {

		private volatile @Nullable SSLContext delegate;

		private SSLContext delegate() {
			SSLContext context = this.delegate;
			if (context == null) {
				try {
					context = SSLContext.getDefault();
				}
				catch (NoSuchAlgorithmException ex) {
					throw new IllegalStateException("The JVM has no default SSL context", ex);
				}
				this.delegate = context;
			}
			return context;
		}

		@Override
		protected void engineInit(KeyManager[] keyManagers, TrustManager[] trustManagers, SecureRandom random) {
			throw new UnsupportedOperationException("The default SSL context is initialized already");
		}

		@Override
		protected SSLSocketFactory engineGetSocketFactory() {
			return delegate().getSocketFactory();
		}

		@Override
		protected SSLServerSocketFactory engineGetServerSocketFactory() {
			return delegate().getServerSocketFactory();
		}

		@Override
		protected SSLEngine engineCreateSSLEngine() {
			return delegate().createSSLEngine();
		}

		@Override
		protected SSLEngine engineCreateSSLEngine(String host, int port) {
			return delegate().createSSLEngine(host, port);
		}

		@Override
		protected SSLSessionContext engineGetServerSessionContext() {
			return delegate().getServerSessionContext();
		}

		@Override
		protected SSLSessionContext engineGetClientSessionContext() {
			return delegate().getClientSessionContext();
		}

		@Override
		protected SSLParameters engineGetDefaultSSLParameters() {
			return delegate().getDefaultSSLParameters();
		}

		@Override
		protected SSLParameters engineGetSupportedSSLParameters() {
			return delegate().getSupportedSSLParameters();
		}

	}

}
