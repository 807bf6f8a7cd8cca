package dev.listwatch.client;

/**
 * Bytes from the API server that are not what was expected; wrapped into a
 * {@link dev.listwatch.KubernetesApiException} of kind DECODE before it leaves this package.
 */
class DecodeException extends RuntimeException {

	DecodeException(String message) {
		super(message);
	}

	DecodeException(String message, Throwable cause) {
		super(message, cause);
	}

}
