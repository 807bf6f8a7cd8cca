package dev.listwatch.testsupport;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a project outside this repository gets: {@link LocalApiServerMain} run from the
 * packaged test-support jar in a JVM of its own, whose working directory is outside the
 * repository, with {@code listwatch.testcluster.dir} unset and an empty
 * {@code KUBEAPITEST_DIR}. It extracts the {@code testcluster} sources from the jar,
 * builds the binaries there (kube-apiserver, etcd and kubectl: seconds with Go's build
 * cache warm), and starts a server.
 */
class ProvisioningOutsideTheRepositoryIT {

	private static final String READY = "is ready at https://127.0.0.1:";

	@TempDir
	Path kubeapitest;

	@TempDir
	Path project;

	@Test
	void buildsTheBinariesFromTheJarsSourcesAndStartsAServer() throws Exception {
		Path jar = Path.of(System.getProperty("listwatch.testsupport.jar", "")).toAbsolutePath();
		assertThat(jar).as("the packaged jar (run by failsafe after package)").isRegularFile();
		Path repository = repositoryRoot();
		assertThat(this.project.startsWith(repository)).as("the working directory is outside the repository").isFalse();
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", classpath(jar),
						"-Dlogback.configurationFile="
								+ Path.of("target/test-classes/logback-test.xml").toAbsolutePath(),
						LocalApiServerMain.class.getName()));
		ProcessBuilder builder = new ProcessBuilder(command).directory(this.project.toFile()).redirectErrorStream(true);
		builder.environment().put("KUBEAPITEST_DIR", this.kubeapitest.toString());
		Process process = builder.start();
		BlockingQueue<String> lines = new LinkedBlockingQueue<>();
		Thread reader = new Thread(() -> readLines(process, lines), "provisioning-output");
		reader.setDaemon(true);
		reader.start();
		List<String> output = new ArrayList<>();
		try {
			long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
			String line;
			while ((line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) != null
					&& !line.contains(READY)) {
				output.add(line);
				if (line.equals("<exit>")) {
					break;
				}
			}
			assertThat(line).as("the server's ready line; output so far:%n%s", String.join("\n", output))
				.isNotNull()
				.contains(READY);
		}
		finally {
			process.destroy();
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				process.destroyForcibly();
			}
		}
		Path extracted = this.kubeapitest.resolve("listwatch-testcluster").resolve(ApiServerBinaries.VERSION);
		assertThat(String.join("\n", output)).contains("building them with " + extracted.resolve("build.sh"));
		for (String source : ApiServerBinaries.SOURCES) {
			assertThat(extracted.resolve(source)).isRegularFile();
		}
		Path binaries = this.kubeapitest.resolve("k8s").resolve(ApiServerBinaries.VERSION + "-linux-amd64");
		for (String binary : List.of("kube-apiserver", "etcd", "kubectl")) {
			assertThat(binaries.resolve(binary)).isExecutable();
		}
		// kubectl is built from testcluster/go.mod too, not taken from the PATH
		Process kubectl = new ProcessBuilder(binaries.resolve("kubectl").toString(), "version", "--client", "-o",
				"json")
			.redirectErrorStream(true)
			.start();
		String version = new String(kubectl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(kubectl.waitFor()).as(version).isZero();
		assertThat(version).contains("\"gitVersion\": \"v" + ApiServerBinaries.VERSION + "\"");
	}

	/**
	 * This JVM's class path with the jar in place of the module's class folders.
	 */
	private static String classpath(Path jar) {
		Path target = jar.getParent();
		List<String> entries = new ArrayList<>();
		entries.add(jar.toString());
		for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
			if (!entry.isEmpty() && !Path.of(entry).toAbsolutePath().startsWith(target)) {
				entries.add(entry);
			}
		}
		return String.join(File.pathSeparator, entries);
	}

	private static Path repositoryRoot() {
		return ApiServerBinaries.testclusterDir().getParent();
	}

	private static void readLines(Process process, BlockingQueue<String> lines) {
		try (BufferedReader in = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = in.readLine()) != null) {
				lines.add(line);
			}
		}
		catch (IOException ex) {
			lines.add("<read failed: " + ex + ">");
		}
		lines.add("<exit>");
	}

}
