package dev.listwatch.client;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Clock;

import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.ManagedHttpClientConnectionFactory;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.AbstractBufferingClientHttpRequest;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.RestClient;

/**
 * Benchmark only: an {@link ApiServerClient} over Apache HttpClient 5 classic (blocking;
 * the watch is read on its own thread, no selector or executor hand-over), plain HTTP, no
 * TLS, proxy or credentials. Closing a response aborts its connection, so that closing a
 * watch does not drain it.
 */
public final class ApacheClient {

	private ApacheClient() {
	}

	/**
	 * @param server the fake API server's URL
	 * @param bufferSize the connection's read buffer
	 * @return the client and the HTTP client to close after it
	 */
	public static ApiServerClient create(URI server, int bufferSize) {
		CloseableHttpClient http = HttpClients.custom()
			.setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
				.setConnectionFactory(ManagedHttpClientConnectionFactory.builder()
					.http1Config(Http1Config.custom().setBufferSize(bufferSize).build())
					.build())
				.build())
			.disableRedirectHandling()
			.disableAutomaticRetries()
			.disableContentCompression()
			.build();
		RestClient rest = RestClient.builder().requestFactory(new Factory(http)).build();
		return new ApiServerClient(rest, server, JsonMapper.builder().build(), Clock.systemUTC());
	}

	private record Factory(CloseableHttpClient client) implements ClientHttpRequestFactory {

		@Override
		public ClientHttpRequest createRequest(URI uri, HttpMethod method) {
			return new AbstractBufferingClientHttpRequest() {

				@Override
				public HttpMethod getMethod() {
					return method;
				}

				@Override
				public URI getURI() {
					return uri;
				}

				@Override
				protected ClientHttpResponse executeInternal(HttpHeaders headers, byte[] body) throws IOException {
					HttpUriRequestBase request = new HttpUriRequestBase(method.name(), uri);
					headers.forEach((name, values) -> {
						if (!name.equalsIgnoreCase("Content-Length") && !name.equalsIgnoreCase("Transfer-Encoding")) {
							values.forEach((value) -> request.addHeader(name, value));
						}
					});
					if (body.length > 0) {
						request.setEntity(new ByteArrayEntity(body, null));
					}
					ClassicHttpResponse response = Factory.this.client.executeOpen(null, request, null);
					return new Response(request, response);
				}

			};
		}

	}

	private static final class Response implements ClientHttpResponse {

		private final HttpUriRequestBase request;

		private final ClassicHttpResponse response;

		private final HttpHeaders headers = new HttpHeaders();

		private InputStream body;

		Response(HttpUriRequestBase request, ClassicHttpResponse response) {
			this.request = request;
			this.response = response;
			for (Header header : response.getHeaders()) {
				this.headers.add(header.getName(), header.getValue());
			}
		}

		@Override
		public HttpStatusCode getStatusCode() {
			return HttpStatusCode.valueOf(this.response.getCode());
		}

		@Override
		public String getStatusText() {
			return this.response.getReasonPhrase();
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

		@Override
		public InputStream getBody() throws IOException {
			if (this.body == null) {
				HttpEntity entity = this.response.getEntity();
				InputStream content = (entity != null) ? entity.getContent() : InputStream.nullInputStream();
				this.body = new FilterInputStream(content) {
					@Override
					public int read(byte[] b, int off, int len) throws IOException {
						return this.in.read(b, off, len);
					}

					@Override
					public void close() {
						abort();
					}
				};
			}
			return this.body;
		}

		private void abort() {
			this.request.cancel();
			try {
				this.response.close();
			}
			catch (IOException ex) {
				// gone either way
			}
		}

		@Override
		public void close() {
			abort();
		}

	}

}
