package dev.listwatch.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Failure analyses for watches that cannot start.
 */
final class ListwatchFailureAnalyzers {

	private ListwatchFailureAnalyzers() {
	}

	/**
	 * For a watch declared in a way that cannot work.
	 */
	static final class WatchDeclaration extends AbstractFailureAnalyzer<WatchDeclarationException> {

		@Override
		protected FailureAnalysis analyze(Throwable rootFailure, WatchDeclarationException cause) {
			return new FailureAnalysis(cause.getMessage(), cause.fix(), cause);
		}

	}

	/**
	 * For watches that did not sync in time while startup waited for them.
	 */
	static final class SyncTimeout extends AbstractFailureAnalyzer<WatchSyncTimeoutException> {

		@Override
		protected FailureAnalysis analyze(Throwable rootFailure, WatchSyncTimeoutException cause) {
			return new FailureAnalysis(cause.getMessage(),
					"Check that the cluster is reachable and that its credentials may list and watch these resources "
							+ "(see /actuator/health/listwatch), raise listwatch.startup.sync-timeout, or unset "
							+ "listwatch.startup.wait-for-sync to start without waiting.",
					cause);
		}

	}

}
