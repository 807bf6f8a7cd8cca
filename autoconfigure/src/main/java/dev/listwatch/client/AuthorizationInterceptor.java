package dev.listwatch.client;

import java.io.IOException;
import java.util.function.Supplier;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Sets the {@code Authorization} header of each request from the cluster's credentials,
 * and after a 401 refreshes them (re-runs an exec plugin, re-reads a token file) and
 * sends the request once more. A failure of the credential suppliers is thrown as
 * {@link CredentialsUnavailable}, so that {@link ApiServerClient} tells it from any other
 * failure inside the exchange.
 */
final class AuthorizationInterceptor implements ClientHttpRequestInterceptor {

	private final Supplier<String> authorization;

	private final Supplier<Boolean> refresh;

	AuthorizationInterceptor(Supplier<String> authorization, Supplier<Boolean> refresh) {
		this.authorization = authorization;
		this.refresh = refresh;
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		String value = obtain(this.authorization);
		if (value != null) {
			request.getHeaders().set(HttpHeaders.AUTHORIZATION, value);
		}
		ClientHttpResponse response = execution.execute(request, body);
		if (response.getStatusCode().value() != HttpStatus.UNAUTHORIZED.value() || !obtain(this.refresh)) {
			return response;
		}
		response.close();
		String refreshed = obtain(this.authorization);
		if (refreshed != null) {
			request.getHeaders().set(HttpHeaders.AUTHORIZATION, refreshed);
		}
		else {
			request.getHeaders().remove(HttpHeaders.AUTHORIZATION);
		}
		return execution.execute(request, body);
	}

	private static <V> V obtain(Supplier<V> supplier) {
		try {
			return supplier.get();
		}
		catch (RuntimeException ex) {
			throw new CredentialsUnavailable(ex);
		}
	}

	/**
	 * The credentials could not be obtained: the cause is what the credential supplier
	 * threw (typically a {@link dev.listwatch.cluster.KubeconfigException}). A marker
	 * that {@link ApiServerClient} turns into a
	 * {@link dev.listwatch.KubernetesApiException} of kind
	 * {@link dev.listwatch.KubernetesApiException.Kind#CREDENTIALS}; it never leaves this
	 * package.
	 */
	static final class CredentialsUnavailable extends RuntimeException {

		CredentialsUnavailable(RuntimeException cause) {
			super("could not obtain credentials", cause);
		}

	}

}
