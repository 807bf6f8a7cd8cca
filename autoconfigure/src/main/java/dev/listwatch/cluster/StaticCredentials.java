package dev.listwatch.cluster;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import org.jspecify.annotations.Nullable;

/**
 * Credentials that never change: a bearer token, basic auth, or nothing (client
 * certificate only, or anonymous).
 */
final class StaticCredentials implements Credentials {

	enum Kind {

		/** No Authorization header. */
		NONE,

		/** {@code Bearer <token>}. */
		TOKEN,

		/** {@code Basic <base64(user:password)>}. */
		BASIC

	}

	static final StaticCredentials NONE = new StaticCredentials(Kind.NONE, null, "no Authorization header");

	private final Kind kind;

	private final @Nullable String authorization;

	private final String source;

	private StaticCredentials(Kind kind, @Nullable String authorization, String source) {
		this.kind = kind;
		this.authorization = authorization;
		this.source = source;
	}

	static StaticCredentials token(String token, String source) {
		return new StaticCredentials(Kind.TOKEN, "Bearer " + token.strip(), source);
	}

	static StaticCredentials basic(String username, @Nullable String password, String source) {
		String pair = username + ":" + ((password != null) ? password : "");
		return new StaticCredentials(Kind.BASIC,
				"Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)), source);
	}

	Kind kind() {
		return this.kind;
	}

	@Override
	public @Nullable String authorization() {
		return this.authorization;
	}

	@Override
	public boolean refresh() {
		return false;
	}

	@Override
	public String toString() {
		return switch (this.kind) {
			case NONE -> "no credentials";
			case TOKEN -> "bearer token from " + this.source;
			case BASIC -> "basic auth from " + this.source;
		};
	}

}
