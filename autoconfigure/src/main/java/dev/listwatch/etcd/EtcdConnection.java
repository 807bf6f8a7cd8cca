package dev.listwatch.etcd;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.ssl.SslBundle;

/**
 * Where etcd is and how to log in, as a plain value. {@link #toString()} never shows the
 * password.
 *
 * @param endpoints etcd's client URLs ({@code http://} or {@code https://}, host and
 * port), at least one; requests go to one until it cannot be reached, then to the next
 * @param ssl the TLS material for {@code https} endpoints (trust: the CA of etcd's
 * serving certificate; key: a client certificate for {@code --client-cert-auth}), or
 * {@code null} for the JVM's defaults and no client certificate
 * @param username the etcd user to authenticate as, or {@code null} when etcd's auth is
 * off (or the client certificate's common name is the user)
 * @param password the user's password, or {@code null}
 * @param connectTimeout the TCP and TLS connect timeout, positive
 */
public record EtcdConnection(List<URI> endpoints, @Nullable SslBundle ssl, @Nullable String username,
		@Nullable String password, Duration connectTimeout) {

	/**
	 * Checks the values.
	 * @throws IllegalArgumentException when there is no endpoint, an endpoint is not an
	 * {@code http(s)} URL with a host (or carries a path other than {@code /}, a query or
	 * user information), a password is given without a user, or the timeout is not
	 * positive
	 */
	public EtcdConnection {
		Objects.requireNonNull(endpoints, "endpoints");
		Objects.requireNonNull(connectTimeout, "connectTimeout");
		if (endpoints.isEmpty()) {
			throw new IllegalArgumentException("no etcd endpoint: give at least one, e.g. http://127.0.0.1:2379");
		}
		for (URI endpoint : endpoints) {
			String scheme = endpoint.getScheme();
			if (!("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme)) || endpoint.getHost() == null
					|| endpoint.getRawUserInfo() != null || endpoint.getRawQuery() != null
					|| (endpoint.getRawPath() != null && !endpoint.getRawPath().isEmpty()
							&& !"/".equals(endpoint.getRawPath()))) {
				throw new IllegalArgumentException("etcd endpoint " + endpoint.getHost() + " is not an http(s) URL of "
						+ "scheme, host and port: write e.g. https://10.0.0.5:2379");
			}
		}
		endpoints = List.copyOf(endpoints);
		if (password != null && username == null) {
			throw new IllegalArgumentException("an etcd password without a user name: give the user name too");
		}
		if (connectTimeout.isNegative() || connectTimeout.isZero()) {
			throw new IllegalArgumentException("connectTimeout must be positive, not " + connectTimeout);
		}
	}

	@Override
	public String toString() {
		return "EtcdConnection[" + this.endpoints + ((this.ssl != null) ? ", TLS" : "")
				+ ((this.username != null) ? ", user " + this.username : "") + "]";
	}

}
