package dev.listwatch;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * How listwatch shows what the application's code threw (a reconciler, an event listener,
 * an observation handler): the exception's class and where it was thrown, the top frame
 * of its stack ({@code java.lang.IllegalStateException at
 * com.example.Copier.reconcile:42}), and its message only where the application opted in
 * ({@code listwatch.show-exception-messages}). A message may quote values: a Jackson
 * binding error quotes its input, a JDBC URL its password. The one rule for health, the
 * {@code listwatch} endpoint, events and warnings and errors logged; the stack trace and
 * message of what is logged at WARN or ERROR without them go to DEBUG on the same logger.
 * Messages listwatch makes itself hold no secret and are shown as they are: a
 * {@link KubernetesApiException} (the request to the API server and its answer, never the
 * values sent) that the application's code let through is shown with its message.
 */
public final class Thrown {

	private Thrown() {
	}

	/**
	 * Where an exception was thrown: the class, method and line of the top frame of its
	 * stack.
	 * @param ex the exception
	 * @return for example {@code com.example.Copier.reconcile:42}, or {@code unknown} for
	 * an exception without a stack trace
	 */
	public static String where(Throwable ex) {
		StackTraceElement[] stack = ex.getStackTrace();
		if (stack.length == 0) {
			return "unknown";
		}
		StackTraceElement top = stack[0];
		return top.getClassName() + "." + top.getMethodName()
				+ ((top.getLineNumber() >= 0) ? ":" + top.getLineNumber() : "");
	}

	/**
	 * An exception as listwatch shows it: its class and where it was thrown, and its
	 * message when asked for.
	 * @param ex the exception
	 * @param message whether to show its message (the application opted in)
	 * @return for example {@code java.lang.IllegalStateException at
	 * com.example.Copier.reconcile:42}
	 */
	public static String describe(Throwable ex, boolean message) {
		String described = ex.getClass().getName() + " at " + where(ex);
		String shown = message(ex, message);
		return (shown != null) ? described + ": " + shown : described;
	}

	/**
	 * An exception's message as listwatch shows it: when asked for, and always for a
	 * {@link KubernetesApiException}, whose message listwatch made.
	 * @param ex the exception
	 * @param message whether to show its message (the application opted in)
	 * @return the message, or {@code null} when it is not shown (or has none)
	 */
	public static @Nullable String message(Throwable ex, boolean message) {
		return (message || ex instanceof KubernetesApiException) ? ex.getMessage() : null;
	}

	/**
	 * Logs a warning about what the application's code threw: the exception as
	 * {@link #describe} shows it, with its stack trace when messages are shown; else the
	 * stack trace goes to DEBUG.
	 * @param logger the logger
	 * @param message what failed
	 * @param ex what it threw
	 * @param showMessages whether to show exception messages
	 */
	public static void warn(Log logger, String message, Throwable ex, boolean showMessages) {
		if (showMessages) {
			logger.warn(message + ": " + describe(ex, true), ex);
			return;
		}
		logger.warn(message + ": " + describe(ex, false));
		if (logger.isDebugEnabled()) {
			logger.debug(message, ex);
		}
	}

	/**
	 * Logs an error about what the application's code threw, as {@link #warn} does.
	 * @param logger the logger
	 * @param message what failed
	 * @param ex what it threw
	 * @param showMessages whether to show exception messages
	 */
	public static void error(Log logger, String message, Throwable ex, boolean showMessages) {
		if (showMessages) {
			logger.error(message + ": " + describe(ex, true), ex);
			return;
		}
		logger.error(message + ": " + describe(ex, false));
		if (logger.isDebugEnabled()) {
			logger.debug(message, ex);
		}
	}

}
