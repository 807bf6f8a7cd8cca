package dev.listwatch.client;

import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.Status;
import dev.listwatch.cluster.KubeconfigException;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Turns failed responses and broken connections into {@link KubernetesApiException}s
 * whose message names the request and the server's reason and message.
 */
final class ApiErrors {

	private static final int MAX_ERROR_BODY = 64 * 1024;

	/**
	 * The longest delay {@link #retryAfter} returns: one hour. A server that asks for
	 * more is waited for an hour (and the reflector caps that further at its maximum
	 * backoff).
	 */
	static final Duration MAX_RETRY_AFTER = Duration.ofHours(1);

	private ApiErrors() {
	}

	/**
	 * The exception for a response with an error status. Reads at most 64 KiB of its
	 * body.
	 * @param request the request, for example {@code GET /api/v1/configmaps}
	 * @param response the response
	 * @param clock the clock for an HTTP-date Retry-After
	 * @return the exception
	 */
	static KubernetesApiException fromResponse(String request, ClientHttpResponse response, Clock clock) {
		int code;
		try {
			code = response.getStatusCode().value();
		}
		catch (IOException ex) {
			return connection(request, ex);
		}
		byte[] body = new byte[0];
		try (InputStream in = response.getBody()) {
			body = readErrorBody(in);
		}
		catch (IOException ex) {
			// the status code is enough
		}
		return fromBody(request, code, body, retryAfter(response.getHeaders(), clock));
	}

	/**
	 * Reads what of an error response's body is kept: at most 64 KiB.
	 * @param in the body
	 * @return its first bytes
	 * @throws IOException when reading fails
	 */
	static byte[] readErrorBody(InputStream in) throws IOException {
		return in.readNBytes(MAX_ERROR_BODY);
	}

	/**
	 * The exception for an error status and what was read of its body.
	 * @param request the request, for example {@code GET /api/v1/configmaps}
	 * @param code the status code
	 * @param body the body's first bytes (a {@code Status}, or anything)
	 * @param retryAfter the delay the server asked for, or {@code null}
	 * @return the exception
	 */
	static KubernetesApiException fromBody(String request, int code, byte[] body, @Nullable Duration retryAfter) {
		return of(request, status(code, body), retryAfter);
	}

	/**
	 * The exception for a failed write, whose message never quotes the object's values:
	 * the server's message as it is, except for 400 Bad Request and 422 Invalid, whose
	 * messages quote them (a decoding error quotes the body, a validation error the
	 * invalid value); of those it keeps the reason and the fields each cause names,
	 * without the causes' messages. The exception's
	 * {@link KubernetesApiException#status()} holds that message too.
	 * @param request what was asked, for example {@code update configmaps.v1 default/app}
	 * @param code the status code
	 * @param body the body's first bytes
	 * @param retryAfter the delay the server asked for, or {@code null}
	 * @return the exception
	 */
	static KubernetesApiException ofWrite(String request, int code, byte[] body, @Nullable Duration retryAfter) {
		Status status = status(code, body);
		if (code == 400 || code == 422) {
			List<String> causes = StatusDecoder.causes(body, 0, body.length);
			String fields = causes.isEmpty() ? "the server's message is not shown: it may quote the object's values"
					: "invalid fields: " + String.join(", ", causes);
			status = new Status(status.code(), status.reason(), fields);
		}
		return of(request, status, retryAfter);
	}

	private static Status status(int code, byte[] body) {
		Status status = StatusDecoder.decode(body, 0, body.length);
		if (status == null || (status.reason() == null && status.message() == null)) {
			return new Status(code, null, snippet(body));
		}
		if (status.code() == 0) {
			return new Status(code, status.reason(), status.message());
		}
		return status;
	}

	static KubernetesApiException of(String request, Status status, @Nullable Duration retryAfter) {
		return KubernetesApiException.of(request, status, retryAfter);
	}

	static KubernetesApiException connection(String request, Throwable cause) {
		return new KubernetesApiException(Kind.CONNECTION, request + " failed: " + describe(cause), cause);
	}

	/**
	 * The exception for a write whose connection failed after the request may have
	 * reached the server (a GOAWAY on Java 17, a reset, an EOF while waiting for the
	 * answer): the server may have applied it. Nothing sends it again.
	 * @param request the request, for example {@code POST /api/v1/configmaps}
	 * @param cause what the connection threw
	 * @return an exception of kind {@link Kind#CONNECTION} whose message says so
	 */
	static KubernetesApiException outcomeUnknown(String request, Throwable cause) {
		return new KubernetesApiException(Kind.CONNECTION,
				request + " failed, and its outcome is unknown: the" + " connection broke after the request was sent ("
						+ describe(cause) + "), so the server may have"
						+ " applied it; it was not sent again. Read the object before writing again (a create with"
						+ " generateName may have made an object)",
				cause);
	}

	/**
	 * The exception for a write the server applied (a 2xx status arrived) whose answer
	 * was cut off before its end (a GOAWAY on Java 17): the object it returns is lost,
	 * not the write.
	 * @param request the request, for example {@code POST /api/v1/configmaps}
	 * @param code the status received
	 * @param cause what the connection threw
	 * @return an exception of kind {@link Kind#CONNECTION} whose message says so
	 */
	static KubernetesApiException answerLost(String request, int code, Throwable cause) {
		return new KubernetesApiException(Kind.CONNECTION,
				request + " was applied (" + code + "), but its answer was" + " cut off (" + describe(cause)
						+ "); it was not sent again. Read the object to see it (a create"
						+ " with generateName made an object whose name did not arrive)",
				cause);
	}

	/**
	 * Whether a request that failed so never reached the server: the connection was
	 * refused or timed out, the name did not resolve, TLS failed, or the client was
	 * closed.
	 * @param cause what the connection threw
	 * @return whether the request was certainly not sent
	 */
	static boolean notSent(Throwable cause) {
		java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
		for (Throwable t = cause; t != null && seen.add(t); t = t.getCause()) {
			if (t instanceof java.net.ConnectException || t instanceof java.net.http.HttpConnectTimeoutException
					|| t instanceof java.net.UnknownHostException
					|| t instanceof java.nio.channels.UnresolvedAddressException
					|| t instanceof javax.net.ssl.SSLHandshakeException
					|| t instanceof java.util.concurrent.RejectedExecutionException) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The exception for credentials that could not be obtained for a request.
	 * @param request the request, for example {@code GET /api/v1/configmaps}
	 * @param cause what the credential supplier threw
	 * @return an exception of kind {@link Kind#CREDENTIALS}; its message holds the
	 * message of a {@link KubeconfigException} (which never holds a secret) and only the
	 * type of any other exception (whose message might)
	 */
	static KubernetesApiException credentials(String request, Throwable cause) {
		boolean safe = cause instanceof KubeconfigException;
		String problem = safe ? cause.getMessage() : cause.getClass().getSimpleName();
		// any other cause stays off the exception: a logged stack trace would print its
		// message
		return new KubernetesApiException(Kind.CREDENTIALS,
				request + " failed: could not obtain credentials: " + problem, safe ? cause : null);
	}

	static KubernetesApiException decode(String request, Throwable cause) {
		return new KubernetesApiException(Kind.DECODE, request + ": " + cause.getMessage(), cause);
	}

	/**
	 * What went wrong, from the cause chain: each exception's type and message once,
	 * outermost first, without Spring's wrappers, for example
	 * {@code ConnectException: Connection refused <- ClosedChannelException}.
	 */
	static String describe(Throwable cause) {
		StringBuilder text = new StringBuilder();
		java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
		for (Throwable t = cause; t != null && seen.add(t); t = t.getCause()) {
			if (t instanceof org.springframework.web.client.RestClientException && t.getCause() != null) {
				continue;
			}
			if (t instanceof java.io.UncheckedIOException && t.getCause() != null) {
				continue;
			}
			String message = t.getMessage();
			if (message != null && !message.isBlank() && text.indexOf(message) >= 0) {
				// said already by the exception that wraps it
				continue;
			}
			String part = t.getClass().getSimpleName() + ((message != null && !message.isBlank()
					&& (t.getCause() == null || !message.equals(String.valueOf(t.getCause())))) ? ": " + message : "");
			if (text.indexOf(part) < 0) {
				text.append((text.length() > 0) ? " <- " : "").append(part);
			}
		}
		return text.toString();
	}

	/**
	 * The delay a {@code Retry-After} header asks for: a number of seconds or an HTTP
	 * date. Clamped at {@link #MAX_RETRY_AFTER}, so that no value (such as
	 * {@code 99999999999999999999} seconds or a date in the year 9999) overflows where it
	 * is used ({@link Duration#toMillis()} throws beyond about 292 million years);
	 * callers may cap it further.
	 * @param headers the response headers
	 * @param clock the clock an HTTP date is measured from
	 * @return the delay, between zero and {@link #MAX_RETRY_AFTER}, or {@code null} when
	 * there is no header or it is neither a number of seconds nor a date
	 */
	static @Nullable Duration retryAfter(HttpHeaders headers, Clock clock) {
		String value = headers.getFirst(HttpHeaders.RETRY_AFTER);
		if (value == null || value.isBlank()) {
			return null;
		}
		value = value.trim();
		if (isDigits(value)) {
			// more digits than a long holds is more than an hour all the same
			if (value.length() > 18) {
				return MAX_RETRY_AFTER;
			}
			return clamp(Duration.ofSeconds(Long.parseLong(value)));
		}
		try {
			ZonedDateTime at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME);
			Duration delay = Duration.between(clock.instant(), at.toInstant());
			return delay.isNegative() ? Duration.ZERO : clamp(delay);
		}
		catch (RuntimeException notADate) {
			return null;
		}
	}

	private static Duration clamp(Duration delay) {
		return (delay.compareTo(MAX_RETRY_AFTER) > 0) ? MAX_RETRY_AFTER : delay;
	}

	private static boolean isDigits(String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c < '0' || c > '9') {
				return false;
			}
		}
		return !value.isEmpty();
	}

	private static @Nullable String snippet(byte[] body) {
		int end = Math.min(body.length, 200);
		StringBuilder text = new StringBuilder();
		for (int i = 0; i < end; i++) {
			char c = (char) (body[i] & 0xff);
			text.append((c >= 0x20 && c < 0x7f) ? c : ' ');
		}
		String trimmed = text.toString().replaceAll("\\s+", " ").trim();
		return trimmed.isEmpty() ? null : "response body: " + trimmed + ((body.length > end) ? "..." : "");
	}

}
