package dev.listwatch.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The version test-support looks for is the one testcluster/go.mod builds: bumping one
 * without the other would send every test run to build into a folder nobody reads.
 */
class ApiServerBinariesTests {

	@Test
	void looksForTheVersionThatGoModBuilds() throws Exception {
		String goMod = Files.readString(ApiServerBinaries.testclusterDir().resolve("go.mod"));
		Matcher kubernetes = Pattern.compile("(?m)^\\s*k8s\\.io/kubernetes v(\\S+)$").matcher(goMod);
		assertThat(kubernetes.find()).as("k8s.io/kubernetes in testcluster/go.mod").isTrue();
		assertThat(ApiServerBinaries.VERSION).isEqualTo(kubernetes.group(1));
		// compared as names: Path.endsWith in AssertJ resolves the real path, which needs
		// the folder to exist, and on a new machine nothing has built it yet
		assertThat(ApiServerBinaries.versionDir().getFileName()).hasToString(kubernetes.group(1) + "-linux-amd64");
		assertThat(ApiServerBinaries.versionDir().getParent()).isEqualTo(ApiServerBinaries.k8sDir());
	}

	@Test
	void theJarCarriesEveryFileOfTheTestclusterModule() throws Exception {
		Path testcluster = ApiServerBinaries.testclusterDir();
		List<String> files;
		try (Stream<Path> paths = Files.walk(testcluster)) {
			files = paths.filter(Files::isRegularFile)
				.map((path) -> testcluster.relativize(path).toString())
				.filter((name) -> !name.startsWith("bin/"))
				.toList();
		}
		assertThat(ApiServerBinaries.SOURCES).containsExactlyInAnyOrderElementsOf(files);
		for (String name : ApiServerBinaries.SOURCES) {
			assertThat(getClass().getClassLoader().getResource(ApiServerBinaries.RESOURCES + name)).as(name)
				.isNotNull();
		}
	}

	@Test
	void extractsTheSourcesWithAnExecutableScript(@TempDir Path dir) throws Exception {
		Path extracted = ApiServerBinaries.extractSources(dir.resolve("testcluster"));
		Path testcluster = ApiServerBinaries.testclusterDir();
		for (String name : ApiServerBinaries.SOURCES) {
			assertThat(extracted.resolve(name)).hasSameBinaryContentAs(testcluster.resolve(name));
		}
		assertThat(extracted.resolve("build.sh")).isExecutable();
		Files.writeString(extracted.resolve("go.mod"), "stale");
		ApiServerBinaries.extractSources(extracted);
		assertThat(extracted.resolve("go.mod")).hasSameBinaryContentAs(testcluster.resolve("go.mod"));
	}

	@Test
	void theMessageWithoutGoNamesBothWaysOut() {
		assertThat(ApiServerBinaries.missingMessage()).contains("install Go", "KUBEAPITEST_DIR",
				ApiServerBinaries.versionDir().toString(), "kube-apiserver " + ApiServerBinaries.VERSION);
	}

}
