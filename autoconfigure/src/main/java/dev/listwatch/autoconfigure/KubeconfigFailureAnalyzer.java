package dev.listwatch.autoconfigure;

import dev.listwatch.cluster.KubeconfigException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link KubeconfigException} at startup: the description is the exception's
 * message (file, field, problem), the action its fix. Neither holds a secret.
 */
class KubeconfigFailureAnalyzer extends AbstractFailureAnalyzer<KubeconfigException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, KubeconfigException cause) {
		return new FailureAnalysis(cause.getMessage(), cause.fix(), cause);
	}

}
