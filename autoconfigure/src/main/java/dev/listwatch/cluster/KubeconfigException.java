package dev.listwatch.cluster;

import org.jspecify.annotations.Nullable;

/**
 * A kubeconfig (or in-cluster configuration) that cannot be used.
 *
 * <p>
 * The message always names the file, the field inside it (for example
 * {@code users[admin].user.client-key-data}) and how to fix it. It never contains a
 * secret: tokens, passwords, keys and the output of exec credential plugins are never
 * copied into it. Thrown by {@link Cluster#load(ConnectionOptions)} on the loading
 * thread, and by {@link Credentials#authorization()} on a requesting thread (where the
 * client reports it as a {@code KubernetesApiException} of kind {@code CREDENTIALS}).
 */
public class KubeconfigException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String file;

	private final String field;

	private final String fix;

	/**
	 * Creates an exception.
	 * @param file the file that holds the problem (or a description such as
	 * {@code "listwatch.* settings"}); never {@code null}
	 * @param field the field inside the file, empty or {@code null} when the whole file
	 * is at fault
	 * @param problem what is wrong, phrased to follow the field name (e.g. "is not valid
	 * base64"); must not contain a secret
	 * @param fix what the user should do; must not contain a secret
	 */
	public KubeconfigException(String file, @Nullable String field, String problem, String fix) {
		this(file, field, problem, fix, null);
	}

	/**
	 * Creates an exception with a cause. The cause's own message is never added to this
	 * message; callers pass only causes whose messages hold no secret.
	 * @param file the file that holds the problem
	 * @param field the field inside the file, empty when the whole file is at fault
	 * @param problem what is wrong
	 * @param fix what the user should do
	 * @param cause the underlying exception, or {@code null}
	 */
	public KubeconfigException(String file, @Nullable String field, String problem, String fix,
			@Nullable Throwable cause) {
		super(message(file, field, problem, fix), cause);
		this.file = file;
		this.field = (field != null) ? field : "";
		this.fix = fix;
	}

	private static String message(String file, @Nullable String field, String problem, String fix) {
		StringBuilder message = new StringBuilder("Kubeconfig ").append(file);
		if (field != null && !field.isEmpty()) {
			message.append(": ").append(field);
		}
		message.append(' ').append(problem).append(". Fix: ").append(fix);
		return message.toString();
	}

	/**
	 * The file at fault.
	 * @return the file (a path, or a description for settings and in-cluster
	 * configuration)
	 */
	public String file() {
		return this.file;
	}

	/**
	 * The field at fault, in kubectl's naming, e.g.
	 * {@code users[admin].user.client-key-data}.
	 * @return the field, empty when the whole file is at fault
	 */
	public String field() {
		return this.field;
	}

	/**
	 * What the user should do about it.
	 * @return the fix
	 */
	public String fix() {
		return this.fix;
	}

}
