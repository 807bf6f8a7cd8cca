package dev.listwatch.client;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.channels.WritePendingException;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

import dev.listwatch.cluster.Cluster;
import org.apache.commons.logging.LogFactory;
import org.eclipse.jetty.client.BasicAuthentication;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.HttpProxy;
import org.eclipse.jetty.client.HttpResponseException;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Origin;
import org.eclipse.jetty.client.ProxyConfiguration;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Socks5;
import org.eclipse.jetty.client.Socks5Proxy;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;

/**
 * The transport to a cluster behind a proxy that the JDK HTTP client cannot use, on
 * Jetty's HTTP client ({@code org.eclipse.jetty:jetty-client}, an optional dependency;
 * this class is loaded only when such a proxy is configured): an {@code https://} proxy
 * (TLS to the proxy), a {@code socks5://} proxy (with the username/password method when
 * the proxy has a user; host names are resolved by the proxy, as Go's SOCKS5 dialer has
 * them), or an {@code http://} proxy with credentials on the way to an {@code https}
 * server (Basic {@code Proxy-Authorization} sent pre-emptively on the CONNECT, which the
 * JDK client never does). Nothing listens: the tunnel is Jetty's own connection.
 *
 * <p>
 * The guarantees of the JDK transport hold: HTTP/1.1; the cluster's TLS to the API server
 * ({@code tls-server-name} as SNI and as the name checked,
 * {@code insecure-skip-tls-verify}, the client certificate, the CA, the SSL bundle's
 * protocols and ciphers); the connect timeout; no read or idle timeout (watches stream
 * for minutes); no redirects followed; no content decoding (bodies arrive as the server
 * sends them); response bodies streamed as they arrive, never buffered whole. An
 * {@code https://} proxy's certificate is verified against the proxy's host, by the
 * cluster's CA and the JVM's default trust store, whatever
 * {@code insecure-skip-tls-verify} says (the proxy credentials go to it); it is shown no
 * client certificate.
 */
final class JettyTransport {

	/** The logger under which Jetty's client logs each request's headers at DEBUG. */
	private static final String HEADERS_LOGGER = "org.eclipse.jetty.client.transport.HttpSender";

	/** How long a request waits for its response's headers: as long as it takes. */
	private static final long NO_TIMEOUT_DAYS = 365;

	private JettyTransport() {
	}

	/**
	 * Builds and starts Jetty's client for a cluster behind a proxy.
	 * @param cluster the cluster
	 * @param proxy its proxy
	 * @param serverTls for an {@code https} server: the bundle with the trust managers
	 * and SSL context the cluster asks for (see {@code Transport.sslBundle}); else
	 * {@code null}
	 * @return the request factory and how to stop the client, which its owner must do
	 */
	static Started create(Cluster cluster, Cluster.Proxy proxy, @Nullable SslBundle serverTls) {
		if (LogFactory.getLog(HEADERS_LOGGER).isDebugEnabled()) {
			LogFactory.getLog(JettyTransport.class)
				.warn("Logger " + HEADERS_LOGGER + " is at DEBUG: Jetty's client then logs the headers of every "
						+ "request, the API server's and the proxy's credentials included. Set it to INFO.");
		}
		QueuedThreadPool threads = new QueuedThreadPool(200, 1, 60_000);
		threads.setName("listwatch-proxied");
		threads.setDaemon(true);
		threads.setStopTimeout(1000);
		ScheduledExecutorScheduler scheduler = new ScheduledExecutorScheduler("listwatch-proxied-scheduler", true);
		ClientConnector connector = new ClientConnector();
		connector.setExecutor(threads);
		connector.setScheduler(scheduler);
		connector.setSelectors(1);
		connector.setConnectTimeout(cluster.connectTimeout());
		connector.setIdleTimeout(Duration.ZERO);
		if (serverTls != null) {
			connector.setSslContextFactory(serverTls(serverTls));
		}
		HttpClient client = new HttpClient(new HttpClientTransportOverHTTP(connector));
		client.setExecutor(threads);
		client.setScheduler(scheduler);
		client.setFollowRedirects(false);
		client.setConnectTimeout(cluster.connectTimeout().toMillis());
		// watches stream for minutes without a byte when nothing changes
		client.setIdleTimeout(0);
		// every watch holds its connection: no queueing behind open watches
		client.setMaxConnectionsPerDestination(Integer.MAX_VALUE);
		ProxyConfiguration.Proxy jettyProxy = proxy(proxy, cluster);
		if (jettyProxy.getSslContextFactory() != null) {
			// started and stopped with the client
			client.addBean(jettyProxy.getSslContextFactory());
		}
		client.getProxyConfiguration().addProxy(jettyProxy);
		if (proxy.username() != null && proxy.scheme() != Cluster.Proxy.Scheme.SOCKS5) {
			client.getAuthenticationStore()
				.addAuthenticationResult(new BasicAuthentication.BasicResult(jettyProxy.getURI(),
						HttpHeader.PROXY_AUTHORIZATION, proxy.username(),
						Objects.requireNonNullElse(proxy.password(), ""), StandardCharsets.UTF_8));
		}
		try {
			client.start();
		}
		catch (Exception ex) {
			stop(client);
			throw new IllegalStateException("Cannot start the HTTP client for the proxy " + proxy + ": " + ex, ex);
		}
		// bodies as the server sends them, as on the JDK client (no Accept-Encoding)
		client.getContentDecoderFactories().clear();
		return new Started(new RequestFactory(client, proxy), () -> stop(client));
	}

	/**
	 * A started client.
	 *
	 * @param requestFactory its request factory
	 * @param stop stops it (idempotent)
	 */
	record Started(ClientHttpRequestFactory requestFactory, Runnable stop) {
	}

	private static void stop(HttpClient client) {
		try {
			client.stop();
		}
		catch (Exception ex) {
			// stopping aborts what is open; nothing else to do
		}
	}

	private static ProxyConfiguration.Proxy proxy(Cluster.Proxy proxy, Cluster cluster) {
		Origin.Address address = new Origin.Address(proxy.host(), proxy.port());
		return switch (proxy.scheme()) {
			case HTTP -> new HttpProxy(address, false);
			case HTTPS -> new HttpProxy(address, proxyTls(cluster, proxy));
			case SOCKS5 -> {
				Socks5Proxy socks = new Socks5Proxy(address, false);
				if (proxy.username() != null) {
					socks.putAuthenticationFactory(new Socks5.UsernamePasswordAuthenticationFactory(proxy.username(),
							Objects.requireNonNullElse(proxy.password(), ""), StandardCharsets.UTF_8));
				}
				yield socks;
			}
		};
	}

	/** TLS to the API server: the JDK transport's bundle, managers and SNI. */
	private static SslContextFactory.Client serverTls(SslBundle bundle) {
		SslContextFactory.Client tls = new SslContextFactory.Client();
		tls.setSslContext(bundle.createSslContext());
		SslOptions options = bundle.getOptions();
		String[] ciphers = options.getCiphers();
		if (ciphers != null) {
			tls.setIncludeCipherSuites(ciphers);
		}
		String[] protocols = options.getEnabledProtocols();
		if (protocols != null) {
			tls.setIncludeProtocols(protocols);
		}
		return tls;
	}

	/**
	 * TLS to an {@code https://} proxy: its certificate checked against its host by the
	 * cluster's CA and the JVM's default trust store; no client certificate.
	 */
	static SslContextFactory.Client proxyTls(Cluster cluster, Cluster.Proxy proxy) {
		List<X509ExtendedTrustManager> trust = new ArrayList<>(x509(defaultTrustManagers()));
		SslBundle ssl = cluster.ssl();
		if (ssl != null) {
			trust.addAll(x509(ssl.getManagers().getTrustManagers()));
		}
		SSLContext context;
		try {
			context = SSLContext.getInstance("TLS");
			String refusal = "The certificate of the proxy " + proxy
					+ " is trusted neither by the cluster's CA nor by the JVM's trust store: add the CA that issued it to"
					+ " the kubeconfig's certificate-authority(-data) or to the JVM's trust store";
			context.init(null, new TrustManager[] { new ServerTrust.AnyOfTrustManager(trust, refusal) }, null);
		}
		catch (java.security.GeneralSecurityException ex) {
			throw new IllegalStateException("Cannot set up TLS to the proxy: " + ex.getMessage(), ex);
		}
		SslContextFactory.Client tls = new SslContextFactory.Client();
		tls.setSslContext(context);
		tls.setEndpointIdentificationAlgorithm("HTTPS");
		return tls;
	}

	private static TrustManager[] defaultTrustManagers() {
		try {
			TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
			factory.init((KeyStore) null);
			return factory.getTrustManagers();
		}
		catch (NoSuchAlgorithmException | KeyStoreException ex) {
			throw new IllegalStateException("Cannot read the JVM's default trust store: " + ex.getMessage(), ex);
		}
	}

	private static List<X509ExtendedTrustManager> x509(TrustManager[] managers) {
		List<X509ExtendedTrustManager> x509 = new ArrayList<>();
		for (TrustManager manager : managers) {
			if (manager instanceof X509ExtendedTrustManager extended) {
				x509.add(extended);
			}
		}
		return x509;
	}

	/**
	 * Spring's request factory over Jetty's client. Bodies stream: each chunk is handed
	 * to the reading thread as it arrives. Interrupting a thread that waits for a
	 * response aborts the request; closing a body before its end aborts the response (its
	 * connection is cut), which also ends a read parked on it.
	 */
	static final class RequestFactory implements ClientHttpRequestFactory {

		private final HttpClient client;

		private final Cluster.Proxy proxy;

		RequestFactory(HttpClient client, Cluster.Proxy proxy) {
			this.client = client;
			this.proxy = proxy;
		}

		@Override
		public ClientHttpRequest createRequest(URI uri, HttpMethod method) {
			return new JettyRequest(this.client, this.proxy, uri, method);
		}

	}

	private static final class JettyRequest extends BufferedRequest {

		private final HttpClient client;

		private final Cluster.Proxy proxy;

		JettyRequest(HttpClient client, Cluster.Proxy proxy, URI uri, HttpMethod method) {
			super(uri, method);
			this.client = client;
			this.proxy = proxy;
		}

		@Override
		protected ClientHttpResponse executeInternal(HttpHeaders headers, byte[] body) throws IOException {
			if (!this.client.isRunning()) {
				throw new IOException("the API server client is closed");
			}
			// a GET whose exchange broke in Jetty's TLS layer before any answer (a race
			// of
			// its fill and flush on a fresh tunnel, seen under load) is sent once more:
			// nothing of it reached the application and a GET changes nothing
			int attempts = (getMethod() == HttpMethod.GET) ? 2 : 1;
			for (int attempt = 1;; attempt++) {
				Request request = newRequest(headers, body);
				InputStreamResponseListener listener = new InputStreamResponseListener();
				request.send(listener);
				try {
					Response response = listener.get(NO_TIMEOUT_DAYS, TimeUnit.DAYS);
					return new JettyResponse(response, new Body(request, listener));
				}
				catch (InterruptedException ex) {
					request.abort(new InterruptedIOException("the request was interrupted"));
					Thread.currentThread().interrupt();
					throw new InterruptedIOException("the request was interrupted");
				}
				catch (TimeoutException ex) {
					request.abort(ex);
					throw new IOException("no response in " + NO_TIMEOUT_DAYS + " days", ex);
				}
				catch (ExecutionException ex) {
					Throwable cause = Objects.requireNonNull(ex.getCause(), "a failed exchange has a cause");
					if (attempt < attempts && cause instanceof WritePendingException && this.client.isRunning()) {
						continue;
					}
					return failed(cause);
				}
			}
		}

		private Request newRequest(HttpHeaders headers, byte[] body) {
			Request request = this.client.newRequest(getURI()).method(getMethod().name());
			request.headers((fields) -> headers.forEach((name, values) -> {
				// the proxy's credentials are the client's, never a caller's
				if (BufferedRequest.passed(name) && !HttpHeader.PROXY_AUTHORIZATION.is(name)) {
					fields.remove(name);
					values.forEach((value) -> fields.add(name, value));
				}
			}));
			if (body.length > 0) {
				MediaType type = headers.getContentType();
				request.body(new BytesRequestContent((type != null) ? type.toString() : null, body));
			}
			return request;
		}

		/**
		 * A proxy that refuses the credentials of a CONNECT (407) is answered as the JDK
		 * client answers it for a plain request: with that response, whose body says
		 * which proxy and what to check. Any other failure is an {@link IOException}
		 * naming the proxy. Never a credential: neither the URL nor any header is quoted.
		 */
		private ClientHttpResponse failed(Throwable cause) throws IOException {
			if (!this.client.isRunning()) {
				throw new IOException("the API server client is closed", cause);
			}
			if (cause instanceof HttpResponseException refused) {
				int status = refused.getResponse().getStatus();
				String text = (status == 407) ? "The proxy " + this.proxy
						+ " refused the proxy credentials (407 Proxy Authentication Required) for the CONNECT to "
						+ authority(getURI()) + ": check the user and password of the proxy URL"
						: "The proxy " + this.proxy + " answered " + status + " to the CONNECT to "
								+ authority(getURI());
				return new RefusedResponse(status, text);
			}
			String message = (cause.getMessage() != null) ? cause.getMessage() : cause.getClass().getSimpleName();
			throw new IOException("through the proxy " + this.proxy + ": " + message, cause);
		}

		private static String authority(URI uri) {
			int port = (uri.getPort() != -1) ? uri.getPort() : ("https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80);
			return uri.getHost() + ":" + port;
		}

	}

	/**
	 * A response body: closing it before its end aborts the exchange (cutting its
	 * connection, waking a read parked on it); one read to its end has given its
	 * connection back to the pool when the end is returned, so that the next request
	 * reuses it (Jetty releases it just after the last bytes are handed over, on its own
	 * thread: the end waits for that, a second at the most).
	 */
	private static final class Body extends FilterInputStream {

		private final Request request;

		private final InputStreamResponseListener listener;

		private volatile boolean ended;

		Body(Request request, InputStreamResponseListener listener) {
			super(listener.getInputStream());
			this.request = request;
			this.listener = listener;
		}

		@Override
		public int read() throws IOException {
			int b = this.in.read();
			if (b < 0) {
				end();
			}
			return b;
		}

		@Override
		public int read(byte[] b, int off, int len) throws IOException {
			int n = this.in.read(b, off, len);
			if (n < 0) {
				end();
			}
			return n;
		}

		private void end() throws InterruptedIOException {
			if (this.ended) {
				return;
			}
			this.ended = true;
			try {
				this.listener.await(1, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new InterruptedIOException("a read of the response was interrupted");
			}
			catch (TimeoutException ex) {
				// the connection is released later, or not reused: nothing is lost
			}
		}

		@Override
		public void close() throws IOException {
			if (!this.ended) {
				this.request.abort(new IOException("the response body is closed"));
			}
			super.close();
		}

	}

	private static final class JettyResponse implements ClientHttpResponse {

		private final Response response;

		private final InputStream body;

		private final HttpHeaders headers = new HttpHeaders();

		JettyResponse(Response response, InputStream body) {
			this.response = response;
			this.body = body;
			for (HttpField field : response.getHeaders()) {
				this.headers.add(field.getName(), field.getValue());
			}
		}

		@Override
		public HttpStatusCode getStatusCode() {
			return HttpStatusCode.valueOf(this.response.getStatus());
		}

		@Override
		public String getStatusText() {
			String reason = this.response.getReason();
			return (reason != null) ? reason : "";
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

		@Override
		public InputStream getBody() {
			return this.body;
		}

		@Override
		public void close() {
			try {
				this.body.close();
			}
			catch (IOException ex) {
				// nothing to do: the connection is gone either way
			}
		}

	}

	/** A proxy's refusal of a CONNECT, as a response with a text body. */
	private static final class RefusedResponse implements ClientHttpResponse {

		private final int status;

		private final byte[] text;

		private final HttpHeaders headers = new HttpHeaders();

		RefusedResponse(int status, String text) {
			this.status = status;
			this.text = text.getBytes(StandardCharsets.UTF_8);
			this.headers.setContentType(MediaType.TEXT_PLAIN);
		}

		@Override
		public HttpStatusCode getStatusCode() {
			return HttpStatusCode.valueOf(this.status);
		}

		@Override
		public String getStatusText() {
			HttpStatus known = HttpStatus.resolve(this.status);
			return (known != null) ? known.getReasonPhrase() : "";
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

		@Override
		public InputStream getBody() {
			return new ByteArrayInputStream(this.text);
		}

		@Override
		public void close() {
		}

	}

}
