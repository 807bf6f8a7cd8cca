package dev.listwatch.cluster;

/**
 * The credentials a client presents to the API server in the {@code Authorization}
 * header. Client certificates are not part of this interface: they live in the TLS
 * configuration of {@link Cluster#requestFactory()}.
 *
 * <p>Implementations are thread-safe. {@link #toString()} never shows a secret.
 */
public interface Credentials {

	/**
	 * The value for the {@code Authorization} header ({@code "Bearer x"} or
	 * {@code "Basic y"}), or {@code null} when no header should be sent (client
	 * certificate only, or anonymous). May block to run an exec credential plugin, whose
	 * result is cached until it expires; may re-read a token file that rotates.
	 * @return the header value or {@code null}
	 * @throws KubeconfigException if an exec plugin fails or a token file cannot be read
	 * for the first time
	 */
	String authorization();

	/**
	 * Called after the server answered 401: drops cached credentials (the output of an
	 * exec plugin, the contents of a token file) so the next {@link #authorization()}
	 * obtains fresh ones.
	 * @return {@code true} if a retry may now succeed (new credentials may be available),
	 * {@code false} if retrying with these credentials is pointless
	 */
	boolean refresh();

}
