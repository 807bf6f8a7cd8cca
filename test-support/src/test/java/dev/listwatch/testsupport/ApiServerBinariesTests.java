package dev.listwatch.testsupport;

import java.nio.file.Files;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The version test-support looks for is the one testcluster/go.mod builds: bumping one without the
 * other would send every test run to build into a folder nobody reads.
 */
class ApiServerBinariesTests {

	@Test
	void looksForTheVersionThatGoModBuilds() throws Exception {
		String goMod = Files.readString(ApiServerBinaries.testclusterDir().resolve("go.mod"));
		Matcher kubernetes = Pattern.compile("(?m)^\\s*k8s\\.io/kubernetes v(\\S+)$").matcher(goMod);
		assertThat(kubernetes.find()).as("k8s.io/kubernetes in testcluster/go.mod").isTrue();
		assertThat(ApiServerBinaries.VERSION).isEqualTo(kubernetes.group(1));
		// compared as names: Path.endsWith in AssertJ resolves the real path, which needs the folder
		// to exist, and on a new machine nothing has built it yet
		assertThat(ApiServerBinaries.versionDir().getFileName()).hasToString(kubernetes.group(1) + "-linux-amd64");
		assertThat(ApiServerBinaries.versionDir().getParent()).isEqualTo(ApiServerBinaries.k8sDir());
	}

}
