package dev.listwatch.autoconfigure.controller;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * A declared controller cannot work as declared. The message names the controller and the
 * property; startup fails with a failure analysis ({@link Analyzer}) that shows them and
 * the fix.
 */
class ControllerDeclarationException extends RuntimeException {

	private final String fix;

	ControllerDeclarationException(String controller, @Nullable String property, String problem, String fix) {
		super("Controller '" + controller + "' cannot work: "
				+ ((property != null) ? "listwatch.controllers." + controller + "." + property + " " : "") + problem);
		this.fix = fix;
	}

	/**
	 * @return what to do about it
	 */
	String fix() {
		return this.fix;
	}

	/**
	 * The failure analysis of a controller declared in a way that cannot work.
	 */
	static final class Analyzer extends AbstractFailureAnalyzer<ControllerDeclarationException> {

		@Override
		protected FailureAnalysis analyze(Throwable rootFailure, ControllerDeclarationException cause) {
			return new FailureAnalysis(cause.getMessage(), cause.fix(), cause);
		}

	}

}
