package dev.listwatch.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * A declared watch cannot work as declared. The message names the watch, the property and
 * the fix; startup fails with a failure analysis that shows them.
 */
class WatchDeclarationException extends RuntimeException {

	private final String watch;

	private final @Nullable String property;

	private final String fix;

	WatchDeclarationException(String watch, @Nullable String property, String problem, String fix,
			@Nullable Throwable cause) {
		super("Watch '" + watch + "' cannot work: "
				+ ((property != null) ? "listwatch.watches." + watch + "." + property + " " : "") + problem, cause);
		this.watch = watch;
		this.property = property;
		this.fix = fix;
	}

	/**
	 * @return the watch's name
	 */
	public String watch() {
		return this.watch;
	}

	/**
	 * @return the property at fault, relative to {@code listwatch.watches.<name>}, or
	 * {@code null}
	 */
	public @Nullable String property() {
		return this.property;
	}

	/**
	 * @return what to do about it
	 */
	public String fix() {
		return this.fix;
	}

}
