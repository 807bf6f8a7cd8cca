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
import javax.net.ssl.SSLParameters;
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
import org.springframework.boot.ssl.SslOptions;
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
 * With HTTP/2 asked for ({@code listwatch.connection.http2}), the JDK client speaks it to
 * an {@code https} server that offers it by ALPN: every request and watch to the server
 * is a stream of one connection (see {@link Http2Pool} for what is added to the JDK
 * client for that). Plain {@code http} stays HTTP/1.1 (the JDK client would only try an
 * h2c upgrade, which Go servers do not take), and so does Jetty's client.
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

	private final @Nullable Http2Pool pool;

	private Transport(URI server, ClientHttpRequestFactory requestFactory, @Nullable InlineExecutor executor,
			Runnable stop, String description, @Nullable Http2Pool pool) {
		this.server = server;
		this.requestFactory = requestFactory;
		this.executor = executor;
		this.stop = stop;
		this.description = description;
		this.pool = pool;
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
		return create(cluster, false);
	}

	/**
	 * Builds the transport to a cluster, as {@link #create(Cluster)}, on HTTP/2 where it
	 * can.
	 * @param cluster the cluster
	 * @param http2 whether to speak HTTP/2 to an {@code https} server on the JDK client
	 * (negotiated by ALPN: a server that does not offer it is spoken to in HTTP/1.1);
	 * plain {@code http} and Jetty's client stay on HTTP/1.1
	 * @return the transport, to be closed by its owner
	 */
	static Transport create(Cluster cluster, boolean http2) {
		Cluster.Proxy proxy = cluster.proxy();
		boolean https = "https".equalsIgnoreCase(cluster.server().getScheme());
		if (proxy != null && needsJetty(cluster)) {
			if (!JETTY_PRESENT) {
				throw new IllegalStateException(missingJettyMessage(cluster));
			}
			JettyTransport.Started jetty = JettyTransport.create(cluster, proxy, https ? sslBundle(cluster) : null);
			return new Transport(cluster.server(), jetty.requestFactory(), null, jetty.stop(),
					"via " + proxy + " on Jetty's client", null);
		}
		InlineExecutor executor = new InlineExecutor();
		try {
			HttpClientSettings settings = new HttpClientSettings(HttpRedirects.DONT_FOLLOW, cluster.connectTimeout(),
					null, https ? sslBundle(cluster) : null);
			if (http2 && https) {
				Http2Pool pool = new Http2Pool(cluster.server(),
						() -> jdkClient(cluster, executor, settings, HttpClient.Version.HTTP_2),
						() -> jdkClient(cluster, executor, settings, HttpClient.Version.HTTP_1_1),
						cluster.connectTimeout());
				return new Transport(cluster.server(), new ReadAheadRequestFactory(pool), executor, () -> {
					pool.close();
					executor.shutdownNow();
				}, "JDK, HTTP/2", pool);
			}
			HttpClient client = jdkClient(cluster, executor, settings, HttpClient.Version.HTTP_1_1);
			return new Transport(cluster.server(), new ReadAheadRequestFactory(client), executor, executor::shutdownNow,
					"JDK, HTTP/1.1", null);
		}
		catch (RuntimeException ex) {
			executor.shutdownNow();
			throw ex;
		}
	}

	private static HttpClient jdkClient(Cluster cluster, InlineExecutor executor, HttpClientSettings settings,
			HttpClient.Version version) {
		Cluster.Proxy proxy = cluster.proxy();
		boolean https = "https".equalsIgnoreCase(cluster.server().getScheme());
		JdkHttpClientBuilder builder = new JdkHttpClientBuilder().withExecutor(executor)
			.withCustomizer((client) -> client.version(version));
		if (!https) {
			// never speaks TLS: spare the start-up the JVM's default SSL context
			builder = builder.withCustomizer((client) -> client.sslContext(new DeferredSslContext())
				.sslParameters(DeferredSslContext.parameters()));
		}
		else if (version == HttpClient.Version.HTTP_2) {
			SSLParameters parameters = http2Parameters(settings.sslBundle());
			builder = builder.withCustomizer((client) -> client.sslParameters(parameters));
		}
		if (proxy != null) {
			builder = builder
				.withProxySelector(ProxySelector.of(InetSocketAddress.createUnresolved(proxy.host(), proxy.port())));
			if (proxy.username() != null) {
				// plain http server: the JDK client answers the proxy's 407 with Basic
				// itself
				Authenticator authenticator = authenticator(proxy);
				builder = builder.withCustomizer((client) -> client.authenticator(authenticator));
			}
		}
		return builder.build(settings);
	}

	/**
	 * The SSL parameters of an HTTP/2 client: the bundle's ciphers and protocols, and TLS
	 * 1.3 and 1.2 when it names none. The JDK client offers h2 by ALPN only when the
	 * parameters name TLS 1.2 or 1.3 (Boot's builder leaves them unset unless the bundle
	 * sets them, and the client then quietly speaks HTTP/1.1).
	 * @param bundle the SSL bundle
	 * @return the parameters
	 */
	static SSLParameters http2Parameters(@Nullable SslBundle bundle) {
		SslOptions options = (bundle != null) ? bundle.getOptions() : SslOptions.NONE;
		String[] protocols = options.getEnabledProtocols();
		SSLParameters parameters = new SSLParameters();
		parameters.setCipherSuites(options.getCiphers());
		parameters.setProtocols((protocols != null) ? protocols : new String[] { "TLSv1.3", "TLSv1.2" });
		return parameters;
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
	 * The HTTP/2 clients, when the transport speaks HTTP/2 (for tests).
	 * @return the pool, or {@code null} on HTTP/1.1
	 */
	@Nullable Http2Pool http2Pool() {
		return this.pool;
	}

	/**
	 * What the transport asks the server for: {@code HTTP/2} (an {@code https} server on
	 * the JDK client with HTTP/2 on; a server that does not offer it by ALPN is spoken to
	 * in HTTP/1.1), else {@code HTTP/1.1}.
	 * @return the protocol
	 */
	String protocol() {
		return (this.pool != null) ? "HTTP/2" : "HTTP/1.1";
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
