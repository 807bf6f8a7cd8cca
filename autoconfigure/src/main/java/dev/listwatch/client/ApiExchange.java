package dev.listwatch.client;

import java.io.IOException;

import org.springframework.http.client.ClientHttpResponse;

/**
 * The requests a lister-watcher sends: a GET to the API server whose successful response
 * a handler reads. {@link ApiServerClient} hands one to each lister-watcher it makes, so
 * that they depend on this and not on the client. Every failure (an error status, a
 * failed connection, credentials that could not be obtained) surfaces as a
 * {@link dev.listwatch.KubernetesApiException}; what the handler throws otherwise is
 * thrown as it is. Thread-safe.
 */
interface ApiExchange {

	/**
	 * Sends a GET and hands a successful response to {@code handler}.
	 * @param <R> the result
	 * @param pathAndQuery the path and query
	 * @param accept the {@code Accept} header
	 * @param handler what to do with a 2xx response
	 * @param close whether to close the response after the handler
	 * @return what the handler returned
	 */
	<R> R exchange(String pathAndQuery, String accept, ResponseHandler<R> handler, boolean close);

	/** What to do with a successful response. */
	@FunctionalInterface
	interface ResponseHandler<R> {

		R handle(ClientHttpResponse response) throws IOException;

	}

}
