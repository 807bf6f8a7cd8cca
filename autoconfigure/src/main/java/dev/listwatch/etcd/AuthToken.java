package dev.listwatch.etcd;

import org.jspecify.annotations.Nullable;

/**
 * The etcd auth token of a transport: fetched by the first call that needs it (one
 * authentication at a time), kept until etcd refuses it. A refusal forgets the token only
 * while it is still the one refused: calls refused together, or one whose refusal comes
 * after another call already replaced the token, cause one authentication, not one each.
 * Never in a string of this class. Thread-safe.
 */
final class AuthToken {

	private final Object authenticating = new Object();

	/**
	 * The token; {@code ""} when etcd does not have auth enabled; {@code null} until
	 * known.
	 */
	private volatile @Nullable String token;

	/**
	 * The token, authenticating first when there is none yet.
	 * @param <E> what authenticating throws
	 * @param authenticate asks etcd for a token ({@code ""} when auth is off)
	 * @return the token, {@code ""} when etcd does not have auth enabled
	 * @throws E when authenticating fails
	 */
	<E extends Exception> String get(Authenticate<E> authenticate) throws E {
		String token = this.token;
		if (token == null) {
			synchronized (this.authenticating) {
				token = this.token;
				if (token == null) {
					token = authenticate.call();
					this.token = token;
				}
			}
		}
		return token;
	}

	/**
	 * Forgets the token etcd refused, so that the next call authenticates, unless it was
	 * replaced already.
	 * @param refused the token the refused call carried ({@code ""} when it carried none
	 * because etcd's auth was off when the token was asked for)
	 */
	void forget(String refused) {
		synchronized (this.authenticating) {
			if (refused.equals(this.token)) {
				this.token = null;
			}
		}
	}

	/**
	 * One authentication.
	 *
	 * @param <E> what it throws
	 */
	@FunctionalInterface
	interface Authenticate<E extends Exception> {

		String call() throws E;

	}

}
