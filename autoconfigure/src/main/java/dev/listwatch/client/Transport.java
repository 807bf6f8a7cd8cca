package dev.listwatch.client;

import java.net.Authenticator;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

import dev.listwatch.cluster.Cluster;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.HttpRedirects;
import org.springframework.boot.http.client.JdkHttpClientBuilder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslManagerBundle;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.util.ClassUtils;

/**
 * The HTTP transport to one cluster: a request factory set up with the cluster's TLS
 * ({@code tls-server-name} as SNI and as the name the certificate is checked against,
 * {@code insecure-skip-tls-verify}), proxy and connect timeout, with no read timeout
 * (watches stream for minutes) and no redirect following. It does not add the
 * {@code Authorization} header.
 *
 * <p>
 * Two clients, chosen by the proxy: the JDK HTTP client (HTTP/1.1), whose tasks run on
 * the thread that hands them over (see {@link InlineExecutor}), for a direct connection,
 * an {@code http://} proxy without credentials, and an {@code http://} proxy with
 * credentials for an {@code http} server (the JDK client answers its 407 itself); and
 * Jetty's HTTP client ({@link JettyTransport}, an optional dependency) for what the JDK
 * client cannot do: an {@code https://} or {@code socks5://} proxy, or an {@code http://}
 * proxy with credentials for an {@code https} server (the JDK client never sends Basic
 * credentials on a CONNECT). Neither opens a listening port.
 *
 * <p>
 * {@link #close()} stops the client; requests afterwards fail. Thread-safe.
 */
final class Transport implements AutoCloseable {

	/** The optional library for the proxies the JDK client cannot use. */
	static final String JETTY_ARTIFACT = "org.eclipse.jetty:jetty-client";

	private static final boolean JETTY_PRESENT = ClassUtils.isPresent("org.eclipse.jetty.client.HttpClient",
			Transport.class.getClassLoader());

	private final URI server;

	private final ClientHttpRequestFactory requestFactory;

	private final @Nullable InlineExecutor executor;

	private final Runnable stop;

	private final String description;

	private Transport(URI server, ClientHttpRequestFactory requestFactory, @Nullable InlineExecutor executor,
			Runnable stop, String description) {
		this.server = server;
		this.requestFactory = requestFactory;
		this.executor = executor;
		this.stop = stop;
		this.description = description;
	}

	/**
	 * Builds the transport to a cluster: on Jetty's client when its proxy needs it
	 * (starting that client's threads), else on the JDK client (starting no thread).
	 * @param cluster the cluster
	 * @return the transport, to be closed by its owner
	 * @throws IllegalStateException when the proxy needs Jetty's client and it is not on
	 * the class path (the message names the proxy, never its credentials, and the
	 * dependency to add)
	 */
	static Transport create(Cluster cluster) {
		Cluster.Proxy proxy = cluster.proxy();
		boolean https = "https".equalsIgnoreCase(cluster.server().getScheme());
		if (proxy != null && needsJetty(cluster)) {
			if (!JETTY_PRESENT) {
				throw new IllegalStateException(missingJettyMessage(cluster));
			}
			JettyTransport.Started jetty = JettyTransport.create(cluster, proxy, https ? sslBundle(cluster) : null);
			return new Transport(cluster.server(), jetty.requestFactory(), null, jetty.stop(),
					"via " + proxy + " on Jetty's client");
		}
		InlineExecutor executor = new InlineExecutor();
		try {
			HttpClientSettings settings = new HttpClientSettings(HttpRedirects.DONT_FOLLOW, cluster.connectTimeout(),
					null, https ? sslBundle(cluster) : null);
			JdkHttpClientBuilder builder = new JdkHttpClientBuilder().withExecutor(executor)
				.withCustomizer((client) -> client.version(HttpClient.Version.HTTP_1_1));
			if (!https) {
				// never speaks TLS: spare the start-up the JVM's default SSL context
				builder = builder.withCustomizer((client) -> client.sslContext(new DeferredSslContext())
					.sslParameters(DeferredSslContext.parameters()));
			}
			if (proxy != null) {
				builder = builder.withProxySelector(
						ProxySelector.of(InetSocketAddress.createUnresolved(proxy.host(), proxy.port())));
				if (proxy.username() != null) {
					// plain http server: the JDK client answers the proxy's 407 with
					// Basic itself
					Authenticator authenticator = authenticator(proxy);
					builder = builder.withCustomizer((client) -> client.authenticator(authenticator));
				}
			}
			return new Transport(cluster.server(), new ReadAheadRequestFactory(builder.build(settings)), executor,
					executor::shutdownNow, "JDK");
		}
		catch (RuntimeException ex) {
			executor.shutdownNow();
			throw ex;
		}
	}

	/**
	 * Whether a cluster needs Jetty's client: its proxy is {@code https://} or
	 * {@code socks5://}, or wants credentials on the way to an {@code https} server.
	 * @param cluster the cluster
	 * @return whether the JDK client cannot serve its proxy
	 */
	static boolean needsJetty(Cluster cluster) {
		Cluster.Proxy proxy = cluster.proxy();
		if (proxy == null) {
			return false;
		}
		boolean https = "https".equalsIgnoreCase(cluster.server().getScheme());
		return proxy.scheme() != Cluster.Proxy.Scheme.HTTP || (https && proxy.username() != null);
	}

	/**
	 * Why a cluster cannot be reached without the optional library.
	 * @param cluster the cluster whose proxy needs it
	 * @return the message, naming the proxy (without credentials) and the dependency
	 */
	static String missingJettyMessage(Cluster cluster) {
		return "The cluster " + cluster.description() + " is reached through the proxy " + cluster.proxy()
				+ ", which listwatch speaks to with Jetty's HTTP client: add the dependency " + JETTY_ARTIFACT
				+ " (Spring Boot manages its version), or use an http:// proxy that needs no credentials";
	}

	/**
	 * Where the JDK client runs its tasks: on the thread that hands them over, until
	 * closed, then none (refused, so later requests fail as closed). Its selector thread
	 * then hands response bytes to a body itself, which only queues them (and a reading
	 * thread that asks for more lets the client read on): no further thread between the
	 * socket and the reading thread, which on a busy watch woke once per buffer. The JDK
	 * client's default is a cached pool that grows with the open watches.
	 */
	static final class InlineExecutor extends AbstractExecutorService {

		private volatile boolean shutdown;

		@Override
		public void execute(Runnable task) {
			if (this.shutdown) {
				throw new RejectedExecutionException("the API server client is closed");
			}
			task.run();
		}

		@Override
		public void shutdown() {
			this.shutdown = true;
		}

		@Override
		public List<Runnable> shutdownNow() {
			this.shutdown = true;
			return List.of();
		}

		@Override
		public boolean isShutdown() {
			return this.shutdown;
		}

		@Override
		public boolean isTerminated() {
			return this.shutdown;
		}

		@Override
		public boolean awaitTermination(long timeout, TimeUnit unit) {
			return this.shutdown;
		}

	}

	/**
	 * The cluster's bundle with the trust managers the cluster asks for: any certificate
	 * when {@code insecure-skip-tls-verify}, else the bundle's chain check plus the name
	 * check against {@code tls-server-name} when one is set (the JDK then skips its own
	 * check against the URL's host); and an SSL context that sends
	 * {@code tls-server-name} as SNI.
	 */
	static SslBundle sslBundle(Cluster cluster) {
		SslBundle ssl = cluster.ssl();
		// none: the JVM's default trust store and no client certificate
		SslBundle bundle = (ssl != null) ? ssl : SslBundle.of(null);
		SslManagerBundle base = bundle.getManagers();
		String serverName = cluster.tlsServerName();
		TrustManager[] trustManagers;
		if (cluster.insecureSkipTlsVerify()) {
			trustManagers = new TrustManager[] { new ServerTrust.InsecureTrustManager() };
		}
		else if (serverName != null) {
			trustManagers = new TrustManager[] {
					new ServerTrust.ServerNameTrustManager(x509(base.getTrustManagers()), serverName) };
		}
		else {
			trustManagers = base.getTrustManagers();
		}
		KeyManager[] keyManagers = base.getKeyManagers();
		SslManagerBundle managers = new SslManagerBundle() {

			@Override
			public javax.net.ssl.KeyManagerFactory getKeyManagerFactory() {
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
				return (serverName != null) ? new ServerNameSslContext(context, serverName) : context;
			}

		};
		return SslBundle.of(bundle.getStores(), bundle.getKey(), bundle.getOptions(), bundle.getProtocol(), managers);
	}

	private static X509TrustManager x509(TrustManager[] trustManagers) {
		for (TrustManager trustManager : trustManagers) {
			if (trustManager instanceof X509TrustManager x509) {
				return x509;
			}
		}
		throw new IllegalStateException("The SSL bundle has no X509TrustManager to check the API server with");
	}

	private static Authenticator authenticator(Cluster.Proxy proxy) {
		String user = proxy.username();
		char[] secret = (proxy.password() != null) ? proxy.password().toCharArray() : new char[0];
		return new Authenticator() {
			@Override
			protected @Nullable PasswordAuthentication getPasswordAuthentication() {
				return (getRequestorType() == RequestorType.PROXY) ? new PasswordAuthentication(user, secret) : null;
			}
		};
	}

	/**
	 * The API server's base URL.
	 * @return the URL
	 */
	URI server() {
		return this.server;
	}

	/**
	 * The request factory; the same instance on every call.
	 * @return the request factory
	 */
	ClientHttpRequestFactory requestFactory() {
		return this.requestFactory;
	}

	/**
	 * Where the JDK client runs its tasks (for tests).
	 * @return the executor, or {@code null} on Jetty's client
	 */
	@Nullable ExecutorService executor() {
		return this.executor;
	}

	/**
	 * Whether requests go through Jetty's client (for tests).
	 * @return whether the proxy needed it
	 */
	boolean jetty() {
		return this.executor == null;
	}

	/**
	 * Stops the client: open responses break, later requests fail. Idempotent.
	 */
	@Override
	public void close() {
		this.stop.run();
	}

	@Override
	public String toString() {
		return "Transport[" + this.server + ", " + this.description + "]";
	}

}
