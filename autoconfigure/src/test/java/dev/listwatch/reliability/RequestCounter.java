package dev.listwatch.reliability;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Counts the requests listwatch sends, by kind, seen from inside the client (TLS hides
 * them from the fault proxy): a {@link RestClientCustomizer} that adds an interceptor to
 * Boot's {@code RestClient.Builder}, which {@code ApiServerClient.create} builds on.
 */
public final class RequestCounter implements ClientHttpRequestInterceptor, RestClientCustomizer {

	/** What a request was. */
	public enum Kind {

		/** A LIST of the watched resource. */
		LIST,
		/** A WATCH with {@code sendInitialEvents=true}: a streaming list. */
		STREAMING_LIST,
		/** A plain WATCH. */
		WATCH,
		/** Discovery and anything else. */
		OTHER

	}

	public record Request(Kind kind, String pathAndQuery, long nanos) {
	}

	private final String resourcePath;

	final List<Request> requests = new CopyOnWriteArrayList<>();

	/**
	 * @param resourcePath the path of the watched collection, e.g.
	 * {@code /api/v1/namespaces/x/configmaps}
	 */
	public RequestCounter(String resourcePath) {
		this.resourcePath = resourcePath;
	}

	@Override
	public void customize(org.springframework.web.client.RestClient.Builder builder) {
		builder.requestInterceptor(this);
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		String path = request.getURI().getRawPath();
		String query = (request.getURI().getRawQuery() != null) ? request.getURI().getRawQuery() : "";
		Kind kind;
		if (!path.endsWith(this.resourcePath)) {
			kind = Kind.OTHER;
		}
		else if (!("&" + query + "&").contains("&watch=1&")) {
			kind = Kind.LIST;
		}
		else if (query.contains("sendInitialEvents=true")) {
			kind = Kind.STREAMING_LIST;
		}
		else {
			kind = Kind.WATCH;
		}
		this.requests.add(new Request(kind, path + "?" + query, System.nanoTime()));
		return execution.execute(request, body);
	}

	public long count(Kind kind) {
		return this.requests.stream().filter((r) -> r.kind() == kind).count();
	}

	/** LISTs and streaming lists: the requests that fetch everything. */
	public long fullSyncs() {
		return count(Kind.LIST) + count(Kind.STREAMING_LIST);
	}

}
