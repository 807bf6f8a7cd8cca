package dev.listwatch.client;

import java.net.URI;
import java.util.Locale;
import java.util.Set;

import org.springframework.http.HttpMethod;
import org.springframework.http.client.AbstractBufferingClientHttpRequest;

/**
 * What the transports' requests share: a URI and a method, and the headers a caller may
 * not set (the HTTP clients set them themselves).
 */
abstract class BufferedRequest extends AbstractBufferingClientHttpRequest {

	/** Headers the HTTP clients set themselves and refuse from callers. */
	private static final Set<String> RESTRICTED = Set.of("connection", "content-length", "expect", "host", "upgrade");

	private final URI uri;

	private final HttpMethod method;

	BufferedRequest(URI uri, HttpMethod method) {
		this.uri = uri;
		this.method = method;
	}

	@Override
	public HttpMethod getMethod() {
		return this.method;
	}

	@Override
	public URI getURI() {
		return this.uri;
	}

	/**
	 * Whether a header of the caller's is passed on.
	 * @param name the header's name
	 * @return whether the client leaves it to the caller
	 */
	static boolean passed(String name) {
		return !RESTRICTED.contains(name.toLowerCase(Locale.ROOT));
	}

}
