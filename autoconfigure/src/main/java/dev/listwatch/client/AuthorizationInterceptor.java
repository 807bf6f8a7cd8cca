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
 * Sets the {@code Authorization} header of each request from the cluster's credentials, and
 * after a 401 refreshes them (re-runs an exec plugin, re-reads a token file) and sends the
 * request once more.
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
		String value = this.authorization.get();
		if (value != null) {
			request.getHeaders().set(HttpHeaders.AUTHORIZATION, value);
		}
		ClientHttpResponse response = execution.execute(request, body);
		if (response.getStatusCode().value() != HttpStatus.UNAUTHORIZED.value() || !this.refresh.get()) {
			return response;
		}
		response.close();
		String refreshed = this.authorization.get();
		if (refreshed != null) {
			request.getHeaders().set(HttpHeaders.AUTHORIZATION, refreshed);
		}
		else {
			request.getHeaders().remove(HttpHeaders.AUTHORIZATION);
		}
		return execution.execute(request, body);
	}

}
