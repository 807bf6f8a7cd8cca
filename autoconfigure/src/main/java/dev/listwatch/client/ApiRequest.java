package dev.listwatch.client;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpMethod;

/**
 * The requests a {@link ResourceWriter} sends: one request with a body (or none) to the
 * API server, its answer read whole whatever its status, so that the writer tells a
 * missing object from a failure and words the failure itself. {@link ApiServerClient}
 * hands one to each writer it makes, so that writers depend on this and not on the
 * client. A failed connection and credentials that could not be obtained surface as a
 * {@link dev.listwatch.KubernetesApiException} ({@code CONNECTION}, {@code CREDENTIALS});
 * an error status does not. Thread-safe.
 */
@FunctionalInterface
interface ApiRequest {

	/**
	 * Sends one request and reads its answer: the whole body of a 2xx response, at most
	 * 64 KiB of any other.
	 * @param method the method
	 * @param pathAndQuery the path and query below the server's URL
	 * @param contentType the body's media type, or {@code null} without a body
	 * @param body the body, or {@code null} for none
	 * @return the answer
	 */
	Reply send(HttpMethod method, String pathAndQuery, @Nullable String contentType, byte @Nullable [] body);

	/**
	 * The answer to a request.
	 *
	 * @param code the HTTP status
	 * @param body the body, possibly empty
	 * @param retryAfter the delay a {@code Retry-After} header asked for, or {@code null}
	 */
	record Reply(int code, byte[] body, @Nullable Duration retryAfter) {

		boolean ok() {
			return this.code >= 200 && this.code < 300;
		}

	}

}
