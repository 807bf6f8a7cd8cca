package dev.listwatch.client;

import org.jspecify.annotations.Nullable;

/**
 * Bytes from the API server that are not what was expected; wrapped into a
 * {@link dev.listwatch.KubernetesApiException} of kind DECODE before it leaves this
 * package.
 */
class DecodeException extends RuntimeException {

	DecodeException(String message) {
		super(message);
	}

	DecodeException(String message, Throwable cause) {
		super(message, cause);
	}

	/**
	 * For exceptions that are control flow, thrown often and always caught: without a
	 * stack trace (and suppressed exceptions) throwing one costs little more than
	 * returning.
	 * @param message the message
	 * @param writableStackTrace whether to fill in the stack trace (and keep suppressed
	 * exceptions)
	 */
	DecodeException(@Nullable String message, boolean writableStackTrace) {
		super(message, null, writableStackTrace, writableStackTrace);
	}

}
