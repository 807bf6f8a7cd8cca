package dev.listwatch.client;

import java.net.Authenticator;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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

/**
 * The HTTP transport to one cluster: a request factory on the JDK HTTP client (HTTP/1.1) set up
 * with the cluster's TLS ({@code tls-server-name} as SNI and as the name the certificate is
 * checked against, {@code insecure-skip-tls-verify}), proxy and connect timeout, with no read
 * timeout (watches stream for minutes) and no redirect following; and what it holds open: the
 * threads on which the JDK client delivers responses, and the loopback relay that adds
 * credentials to the CONNECT requests of an {@code https} server's proxy. It does not add the
 * {@code Authorization} header.
 *
 * <p>{@link #close()} stops both; requests afterwards fail. Thread-safe.
 */
final class Transport implements AutoCloseable {

	/** How many threads deliver response bytes: handing bytes to a body only queues them. */
	static final int THREADS = 4;

	private static final AtomicInteger transports = new AtomicInteger();

	private final URI server;

	private final ClientHttpRequestFactory requestFactory;

	private final ThreadPoolExecutor executor;

	private final @Nullable ProxyRelay relay;

	private Transport(URI server, ClientHttpRequestFactory requestFactory, ThreadPoolExecutor executor,
			@Nullable ProxyRelay relay) {
		this.server = server;
		this.requestFactory = requestFactory;
		this.executor = executor;
		this.relay = relay;
	}

	/**
	 * Builds the transport to a cluster. Opens the proxy relay when an {@code https} server is
	 * reached through a proxy that wants credentials; starts no thread otherwise (the executor's
	 * threads start with the first response and end after 30 idle seconds).
	 * @param cluster the cluster
	 * @return the transport, to be closed by its owner
	 */
	static Transport create(Cluster cluster) {
		ThreadPoolExecutor executor = newExecutor();
		boolean https = "https".equalsIgnoreCase(cluster.server().getScheme());
		Cluster.Proxy proxy = cluster.proxy();
		ProxyRelay relay = null;
		try {
			relay = (https && proxy != null && proxy.username() != null)
					? ProxyRelay.start(proxy, cluster.server(), cluster.connectTimeout()) : null;
			HttpClientSettings settings = new HttpClientSettings(HttpRedirects.DONT_FOLLOW, cluster.connectTimeout(),
					null, https ? sslBundle(cluster) : null);
			JdkHttpClientBuilder builder = new JdkHttpClientBuilder().withExecutor(executor)
				.withCustomizer((client) -> client.version(HttpClient.Version.HTTP_1_1));
			if (!https) {
				// never speaks TLS: spare the start-up the JVM's default SSL context
				builder = builder.withCustomizer(
						(client) -> client.sslContext(new DeferredSslContext()).sslParameters(DeferredSslContext.parameters()));
			}
			if (relay != null) {
				// an https server through a proxy that wants credentials: the relay adds them to the
				// CONNECT, which the JDK client never does (see ProxyRelay)
				builder = builder.withProxySelector(ProxySelector.of(relay.address()));
			}
			else if (proxy != null) {
				builder = builder
					.withProxySelector(ProxySelector.of(InetSocketAddress.createUnresolved(proxy.host(), proxy.port())));
				if (proxy.username() != null) {
					// plain http server: the JDK client answers the proxy's 407 with Basic itself
					Authenticator authenticator = authenticator(proxy);
					builder = builder.withCustomizer((client) -> client.authenticator(authenticator));
				}
			}
			return new Transport(cluster.server(), new ReadAheadRequestFactory(builder.build(settings)), executor, relay);
		}
		catch (RuntimeException ex) {
			if (relay != null) {
				relay.close();
			}
			executor.shutdownNow();
			throw ex;
		}
	}

	/**
	 * The threads on which the JDK client delivers responses. Its default is an unbounded cached
	 * pool that grows with the open watches; a few threads serve any number of watches.
	 */
	private static ThreadPoolExecutor newExecutor() {
		String prefix = "listwatch-http-" + transports.incrementAndGet() + "-";
		AtomicInteger count = new AtomicInteger();
		ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), (runnable) -> {
					Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
		pool.allowCoreThreadTimeOut(true);
		return pool;
	}

	/**
	 * The cluster's bundle with the trust managers the cluster asks for: any certificate when
	 * {@code insecure-skip-tls-verify}, else the bundle's chain check plus the name check against
	 * {@code tls-server-name} when one is set (the JDK then skips its own check against the URL's
	 * host); and an SSL context that sends {@code tls-server-name} as SNI.
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
	 * The threads that deliver responses (for tests).
	 * @return the executor
	 */
	ExecutorService executor() {
		return this.executor;
	}

	/**
	 * The proxy relay's address, if one runs (for tests).
	 * @return the address or {@code null}
	 */
	@Nullable InetSocketAddress relayAddress() {
		return (this.relay != null) ? this.relay.address() : null;
	}

	/**
	 * Stops the relay (cutting its tunnels) and the delivering threads (interrupting what they
	 * run). Idempotent; returns without waiting for the threads to end.
	 */
	@Override
	public void close() {
		if (this.relay != null) {
			this.relay.close();
		}
		this.executor.shutdownNow();
	}

	@Override
	public String toString() {
		return "Transport[" + this.server + ((this.relay != null) ? ", " + this.relay : "") + "]";
	}

}
