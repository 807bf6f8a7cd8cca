package dev.listwatch;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A request to the Kubernetes API failed: the server answered with an error status, the
 * connection failed, or what arrived could not be decoded.
 * <p>
 * {@link #code()} is the HTTP status ({@code 0} for a failure without one, such as a
 * refused connection) and {@link #status()} the API {@link Status} when the server sent
 * one. The message names the request (verb and resource path) and the server's reason and
 * message; it never holds credentials.
 */
public class KubernetesApiException extends RuntimeException {

	private final transient @Nullable Status status;

	private final Kind kind;

	private final @Nullable Duration retryAfter;

	/**
	 * What kind of failure this is, so callers can switch on it.
	 */
	public enum Kind {

		/** The connection failed or broke: refused, reset, TLS failure, timeout. */
		CONNECTION,
		/**
		 * The client could not obtain credentials for the request, which was not sent: an
		 * exec credential plugin failed, a token file could not be read. The cause is
		 * what the credentials threw; the message names the request and the problem,
		 * never a secret.
		 */
		CREDENTIALS,
		/** The bytes received were not the JSON expected. */
		DECODE,
		/** 400. */
		BAD_REQUEST,
		/** 401: credentials missing, wrong or expired. */
		UNAUTHORIZED,
		/** 403: RBAC forbids the request. */
		FORBIDDEN,
		/** 404: no such resource (or namespace). */
		NOT_FOUND,
		/**
		 * 409: a write that conflicts with the object's current state: an update or
		 * delete whose {@code resourceVersion} (or uid) precondition no longer holds, a
		 * create of an object that exists ({@code AlreadyExists}), a server-side apply
		 * that would take fields another field manager owns (without {@code force}). An
		 * update that fails so is retried on the object read again: a controller
		 * requeues.
		 */
		CONFLICT,
		/**
		 * 410, or an ERROR event with reason Expired/Gone: the resourceVersion is too
		 * old; relist.
		 */
		GONE,
		/** 422. */
		INVALID,
		/** 429: throttled; see {@link #retryAfter()}. */
		TOO_MANY_REQUESTS,
		/** 5xx. */
		SERVER_ERROR,
		/** Any other status. */
		OTHER;

		/**
		 * The kind for an HTTP status code.
		 * @param code the status code
		 * @return the kind
		 */
		public static Kind of(int code) {
			return switch (code) {
				case 0 -> CONNECTION;
				case 400 -> BAD_REQUEST;
				case 401 -> UNAUTHORIZED;
				case 403 -> FORBIDDEN;
				case 404 -> NOT_FOUND;
				case 409 -> CONFLICT;
				case 410 -> GONE;
				case 422 -> INVALID;
				case 429 -> TOO_MANY_REQUESTS;
				default -> (code >= 500 && code < 600) ? SERVER_ERROR : OTHER;
			};
		}

	}

	/**
	 * Makes an exception.
	 * @param kind what went wrong
	 * @param message the message; must never hold a credential or an object's values
	 * @param status the API server's {@link Status}, or {@code null}
	 * @param retryAfter the delay the server asked for ({@code Retry-After}), or
	 * {@code null}
	 * @param cause the cause, or {@code null}
	 */
	public KubernetesApiException(Kind kind, String message, @Nullable Status status, @Nullable Duration retryAfter,
			@Nullable Throwable cause) {
		super(message, cause);
		this.kind = kind;
		this.status = status;
		this.retryAfter = retryAfter;
	}

	/**
	 * Makes an exception without a server status.
	 * @param kind what went wrong
	 * @param message the message; must never hold a credential or an object's values
	 * @param cause the cause, or {@code null}
	 */
	public KubernetesApiException(Kind kind, String message, @Nullable Throwable cause) {
		this(kind, message, null, null, cause);
	}

	/**
	 * The exception for an API {@link Status}, of a failed response or of an ERROR watch
	 * event. A status with reason {@code Expired} or {@code Gone} is of kind
	 * {@link Kind#GONE} whatever its code.
	 * @param request the request, for example {@code GET /api/v1/configmaps?watch=1}
	 * @param status the status
	 * @param retryAfter the delay the server asked for, or {@code null}
	 * @return the exception, its message naming the request, code, reason and message
	 */
	public static KubernetesApiException of(String request, Status status, @Nullable Duration retryAfter) {
		Kind kind = Kind.of(status.code());
		if ("Expired".equals(status.reason()) || "Gone".equals(status.reason())) {
			kind = Kind.GONE;
		}
		StringBuilder message = new StringBuilder(request).append(" failed: ").append(status.code());
		if (status.reason() != null && !status.reason().isEmpty()) {
			message.append(' ').append(status.reason());
		}
		if (status.message() != null && !status.message().isEmpty()) {
			message.append(": ").append(status.message());
		}
		if (retryAfter != null) {
			message.append(" (retry after ").append(describe(retryAfter)).append(')');
		}
		return new KubernetesApiException(kind, message.toString(), status, retryAfter, null);
	}

	/** A delay in milliseconds, or in seconds when milliseconds would overflow a long. */
	private static String describe(Duration delay) {
		long seconds = delay.getSeconds();
		return (seconds < Long.MAX_VALUE / 1000 && seconds > Long.MIN_VALUE / 1000) ? delay.toMillis() + " ms"
				: seconds + " s";
	}

	/**
	 * The kind of failure.
	 * @return the kind
	 */
	public Kind kind() {
		return this.kind;
	}

	/**
	 * The API status the server sent, if it sent one.
	 * @return the status or {@code null}
	 */
	public @Nullable Status status() {
		return this.status;
	}

	/**
	 * The HTTP status code, {@code 0} when there was none.
	 * @return the code
	 */
	public int code() {
		return (this.status != null) ? this.status.code() : 0;
	}

	/**
	 * The API reason ({@code Forbidden}, {@code Expired}, ...), or the kind's name
	 * without one.
	 * @return the reason
	 */
	public String reason() {
		return (this.status != null && this.status.reason() != null && !this.status.reason().isEmpty())
				? this.status.reason() : this.kind.name();
	}

	/**
	 * How long the server asked to wait ({@code Retry-After}), if it did.
	 * @return the delay or {@code null}
	 */
	public @Nullable Duration retryAfter() {
		return this.retryAfter;
	}

	/**
	 * Whether this failure means the resourceVersion asked for is gone and a relist is
	 * needed.
	 * @return {@code true} for 410 Gone and "too old resource version"
	 */
	public boolean isGone() {
		return this.kind == Kind.GONE;
	}

}
