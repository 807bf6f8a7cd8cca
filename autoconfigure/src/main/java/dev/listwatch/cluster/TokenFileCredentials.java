package dev.listwatch.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A bearer token read from a file that may rotate (projected service-account tokens,
 * {@code tokenFile} in a kubeconfig). Like client-go, the file is re-read at most once a
 * minute, and at once after {@link #refresh()}; if a re-read fails the last token is
 * kept.
 *
 * <p>
 * A static token given next to the file (a kubeconfig user with both {@code token} and
 * {@code tokenFile}) is only the fallback, as in client-go ("the last successfully read
 * value takes precedence over BearerToken"): it is used while the file has never been
 * read, and then the file is not required to exist at startup.
 */
final class TokenFileCredentials implements Credentials {

	static final Duration REREAD_INTERVAL = Duration.ofMinutes(1);

	private static final Log logger = LogFactory.getLog(TokenFileCredentials.class);

	private final Path file;

	private final String field;

	private final String origin;

	private final Clock clock;

	private final @Nullable String fallback;

	private final @Nullable String fallbackField;

	/** The last token read from the file, or {@code null} if it was never read. */
	private @Nullable String token;

	private Instant readAt;

	/**
	 * Creates the credentials and reads the file once.
	 * @param file the token file
	 * @param origin the file that named it (for errors)
	 * @param field the field that named it (for errors)
	 * @param clock the clock
	 * @throws KubeconfigException if the file cannot be read or is empty
	 */
	TokenFileCredentials(Path file, String origin, String field, Clock clock) {
		this(file, origin, field, clock, null, null);
	}

	/**
	 * Creates the credentials with a static token to use while the file cannot be read,
	 * and tries to read the file once.
	 * @param file the token file
	 * @param origin the file that named it (for errors)
	 * @param field the field that named it (for errors)
	 * @param clock the clock
	 * @param fallback the static token, or {@code null} for none (then the file must be
	 * readable now)
	 * @param fallbackField the field that holds the static token (for logs), or
	 * {@code null}
	 * @throws KubeconfigException if there is no fallback and the file cannot be read or
	 * is empty
	 */
	TokenFileCredentials(Path file, String origin, String field, Clock clock, @Nullable String fallback,
			@Nullable String fallbackField) {
		this.file = file;
		this.origin = origin;
		this.field = field;
		this.clock = clock;
		this.fallback = (fallback != null) ? fallback.strip() : null;
		this.fallbackField = fallbackField;
		this.readAt = clock.instant();
		if (this.fallback == null) {
			this.token = read(true);
		}
		else {
			reread(this.readAt);
		}
	}

	Path file() {
		return this.file;
	}

	@Override
	public synchronized String authorization() {
		Instant now = this.clock.instant();
		if (!now.isBefore(this.readAt.plus(REREAD_INTERVAL))) {
			reread(now);
		}
		return "Bearer " + current();
	}

	private String current() {
		// without a fallback, the constructor read a token (or threw), and a token is
		// never unset
		return Objects.requireNonNull((this.token != null) ? this.token : this.fallback, "a token or a fallback");
	}

	@Override
	public synchronized boolean refresh() {
		String previous = current();
		reread(this.clock.instant());
		return !current().equals(previous);
	}

	private void reread(Instant now) {
		this.readAt = now;
		try {
			this.token = read(false);
		}
		catch (KubeconfigException ex) {
			logger.warn(((this.token != null) ? "Keeping the previous token: "
					: "Using the token of " + this.fallbackField + " until the file can be read: ") + ex.getMessage());
		}
	}

	private String read(boolean initial) {
		String value;
		try {
			value = Files.readString(this.file, StandardCharsets.UTF_8).strip();
		}
		catch (IOException | RuntimeException ex) {
			throw new KubeconfigException(this.origin, this.field,
					"names token file " + this.file + " that cannot be read (" + ex.getClass().getSimpleName() + ")",
					"check that the file exists and is readable by this process");
		}
		if (value.isEmpty()) {
			throw new KubeconfigException(this.origin, this.field, "names token file " + this.file + " that is empty",
					"write the token into the file, or fix the path");
		}
		if (!initial && logger.isDebugEnabled()) {
			logger.debug("Re-read token file " + this.file);
		}
		return value;
	}

	@Override
	public String toString() {
		return "bearer token from file " + this.file
				+ ((this.fallback != null) ? " (else " + this.fallbackField + ")" : "");
	}

}
