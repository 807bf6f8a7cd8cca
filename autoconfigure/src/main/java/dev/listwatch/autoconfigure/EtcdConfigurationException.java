package dev.listwatch.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * The {@code listwatch.etcd.*} settings cannot work. The message names the property;
 * startup fails with a failure analysis ({@link Analyzer}) that shows it and the fix.
 * Never holds a secret.
 */
class EtcdConfigurationException extends RuntimeException {

	private final String fix;

	EtcdConfigurationException(String property, String problem, String fix, @Nullable Throwable cause) {
		super(property + " " + problem, cause);
		this.fix = fix;
	}

	/**
	 * @return what to do about it
	 */
	String fix() {
		return this.fix;
	}

	/**
	 * The failure analysis of settings that cannot work.
	 */
	static final class Analyzer extends AbstractFailureAnalyzer<EtcdConfigurationException> {

		@Override
		protected FailureAnalysis analyze(Throwable rootFailure, EtcdConfigurationException cause) {
			return new FailureAnalysis("etcd cannot be reached as configured: " + cause.getMessage(), cause.fix(),
					cause);
		}

	}

}
