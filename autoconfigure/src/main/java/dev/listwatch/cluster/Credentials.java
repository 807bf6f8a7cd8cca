package dev.listwatch.cluster;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The credentials a client presents to the API server in the {@code Authorization}
 * header. Client certificates are not part of this interface: they are the key material
 * of {@link Cluster#ssl()}.
 *
 * <p>
 * Implementations must be thread-safe: the client calls them from any thread that sends a
 * request, concurrently. Their {@link #toString()} must never show a secret (the ones
 * made here name only where the secret comes from). An application's own implementation
 * (for example in a {@code ListwatchConnectionDetails}) may throw any
 * {@link RuntimeException} from {@link #authorization()}: the client reports it as a
 * {@code KubernetesApiException} of kind {@code CREDENTIALS} for the request, which is
 * then not sent.
 */
public interface Credentials {

	/**
	 * The value for the {@code Authorization} header ({@code "Bearer x"} or
	 * {@code "Basic y"}), or {@code null} when no header should be sent (client
	 * certificate only, or anonymous). Called before every request. May block to run an
	 * exec credential plugin, whose result is cached until it expires; may re-read a
	 * token file that rotates.
	 * @return the header value or {@code null}
	 * @throws KubeconfigException if an exec plugin fails or a token file cannot be read
	 * for the first time (other implementations may throw any runtime exception)
	 */
	@Nullable String authorization();

	/**
	 * Called after the server answered 401: drops cached credentials (the output of an
	 * exec plugin, the contents of a token file) so the next {@link #authorization()}
	 * obtains fresh ones. The request is retried once when this returns {@code true}.
	 * @return {@code true} if a retry may now succeed (new credentials may be available),
	 * {@code false} if retrying with these credentials is pointless
	 */
	boolean refresh();

	/**
	 * No {@code Authorization} header: a client certificate only, or anonymous.
	 * @return the shared instance
	 */
	static Credentials none() {
		return StaticCredentials.NONE;
	}

	/**
	 * A bearer token that never changes ({@code Authorization: Bearer <token>});
	 * surrounding whitespace is dropped. Its {@code toString()} says "bearer token",
	 * never the token.
	 * @param token the token, not blank
	 * @return the credentials
	 * @throws IllegalArgumentException if the token is blank
	 */
	static Credentials bearerToken(String token) {
		Objects.requireNonNull(token, "token");
		if (token.isBlank()) {
			throw new IllegalArgumentException("The bearer token is blank: give the token, or use Credentials.none()");
		}
		return StaticCredentials.token(token, "the application");
	}

	/**
	 * A bearer token read from a file that may rotate (a projected service-account
	 * token): read now, re-read at most once a minute and at once after a 401; a failed
	 * re-read keeps the last token.
	 * @param file the token file
	 * @return the credentials
	 * @throws KubeconfigException if the file cannot be read now or is empty
	 */
	static Credentials tokenFile(Path file) {
		Objects.requireNonNull(file, "file");
		return new TokenFileCredentials(file, "the application's Credentials.tokenFile", "file", Clock.systemUTC());
	}

}
