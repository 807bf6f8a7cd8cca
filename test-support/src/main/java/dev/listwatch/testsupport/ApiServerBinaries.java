package dev.listwatch.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the kube-apiserver, etcd and kubectl binaries live, and building them with
 * {@code testcluster/build.sh} when they are missing.
 * <p>
 * The binaries are looked for in kube-api-test's layout under {@code $KUBEAPITEST_DIR}
 * (else {@code ~/.kubeapitest}). When they are missing and Go is on the PATH, all three
 * are built from the {@code testcluster} Go module, so nothing else needs installing: the
 * folder named by {@value #TESTCLUSTER_DIR_PROPERTY}, else the repository's
 * {@code testcluster/} above the working directory, else the copy of its sources that
 * this jar carries (under {@value #RESOURCES}), extracted next to the binaries. So a
 * project outside this repository builds them too.
 */
final class ApiServerBinaries {

	/** The Kubernetes version that {@code testcluster/go.mod} builds. */
	static final String VERSION = "1.34.4";

	static final String PLATFORM = "linux-amd64";

	/** System property naming the {@code testcluster} folder. */
	static final String TESTCLUSTER_DIR_PROPERTY = "listwatch.testcluster.dir";

	/** Where this jar carries the sources of the {@code testcluster} Go module. */
	static final String RESOURCES = "dev/listwatch/testsupport/testcluster/";

	/** The files of the {@code testcluster} Go module, relative to its folder. */
	static final List<String> SOURCES = List.of("build.sh", "go.mod", "go.sum", "cmd/kube-apiserver/main.go",
			"cmd/etcd/main.go", "cmd/kubectl/main.go", "proxy/go.mod", "proxy/go.sum", "proxy/main.go");

	private static final Logger logger = LoggerFactory.getLogger(ApiServerBinaries.class);

	private static final Logger buildLogger = LoggerFactory.getLogger("dev.listwatch.testsupport.testcluster");

	private ApiServerBinaries() {
	}

	/**
	 * The {@code k8s} folder of kube-api-test's layout, as {@code testcluster/build.sh}
	 * fills it.
	 * @return {@code $KUBEAPITEST_DIR/k8s}, else {@code ~/.kubeapitest/k8s}
	 */
	static Path k8sDir() {
		String base = System.getenv("KUBEAPITEST_DIR");
		Path root = (base != null && !base.isBlank()) ? Path.of(base)
				: Path.of(System.getProperty("user.home"), ".kubeapitest");
		return root.resolve("k8s").toAbsolutePath();
	}

	static Path versionDir() {
		return k8sDir().resolve(VERSION + "-" + PLATFORM);
	}

	static Path kubectl() {
		return versionDir().resolve("kubectl");
	}

	/**
	 * Makes sure the binaries are there, building them first if they are not (one build
	 * at a time on the machine, however many JVMs ask).
	 * @return the folder holding them
	 */
	static Path ensure() {
		Path dir = versionDir();
		if (present(dir)) {
			return dir;
		}
		try {
			Files.createDirectories(k8sDir());
			try (FileChannel channel = FileChannel.open(k8sDir().resolve(".listwatch-build.lock"),
					StandardOpenOption.CREATE, StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
				if (!present(dir)) {
					build();
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot build the kube-apiserver binaries", ex);
		}
		if (!present(dir)) {
			throw new IllegalStateException(
					"testcluster/build.sh ran, but " + dir + " still lacks kube-apiserver, etcd or kubectl");
		}
		return dir;
	}

	/**
	 * Lays out {@code
	 *
	<dir>
	 * /k8s/<version>-linux-amd64} for kube-api-test: {@code kubectl} links to the real
	 * one; {@code kube-apiserver} and {@code etcd} are small scripts that {@code exec}
	 * the real binaries under a watchdog. When this JVM is gone without stopping them
	 * (killed with SIGKILL by an IDE's stop button, a forked test JVM timing out), the
	 * watchdog kills them within a second or two and deletes what they leave behind
	 * (etcd's data, the server's folder).
	 * @param dir the server's kube-api-test folder
	 */
	static void linkInto(Path dir) throws IOException {
		Path target = Files.createDirectories(dir.resolve("k8s").resolve(VERSION + "-" + PLATFORM));
		Files.createSymbolicLink(target.resolve("kubectl"), kubectl());
		long jvm = ProcessHandle.current().pid();
		writeWatchdog(target.resolve("kube-apiserver"), versionDir().resolve("kube-apiserver"), jvm, "'" + dir + "'");
		writeWatchdog(target.resolve("etcd"), versionDir().resolve("etcd"), jvm, "\"$data\" \"$wal\"");
	}

	static void writeWatchdog(Path script, Path binary, long jvm, String leftovers) throws IOException {
		Files.writeString(script, """
				#!/bin/sh
				# Runs %1$s; kills it when the JVM that started it (pid %2$d) is gone.
				self=$$ prev= data= wal=
				for arg in "$@"; do
				  case "$prev" in -data-dir) data=$arg ;; -wal-dir) wal=$arg ;; esac
				  prev=$arg
				done
				( while kill -0 %2$d 2>/dev/null && kill -0 "$self" 2>/dev/null; do sleep 1; done
				  if ! kill -0 %2$d 2>/dev/null; then
				    kill -9 "$self" 2>/dev/null; sleep 1; rm -rf %3$s
				  fi ) </dev/null >/dev/null 2>&1 &
				exec '%4$s' "$@"
				""".formatted(binary.getFileName(), jvm, leftovers, binary), StandardCharsets.UTF_8);
		Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
	}

	/**
	 * The {@code testproxy} binary that {@code testcluster/build.sh} builds (an HTTP,
	 * HTTPS or SOCKS5 proxy on loopback), building it first if it is missing.
	 * @return its path
	 */
	static Path testProxy() {
		Path binary = k8sDir().getParent().resolve("listwatch-testproxy").resolve("testproxy");
		if (Files.isExecutable(binary)) {
			return binary;
		}
		try {
			Files.createDirectories(k8sDir());
			try (FileChannel channel = FileChannel.open(k8sDir().resolve(".listwatch-build.lock"),
					StandardOpenOption.CREATE, StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
				if (!Files.isExecutable(binary)) {
					build();
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot build testproxy", ex);
		}
		if (!Files.isExecutable(binary)) {
			throw new IllegalStateException("testcluster/build.sh ran, but " + binary + " is still missing");
		}
		return binary;
	}

	private static boolean present(Path dir) {
		return List.of("kube-apiserver", "etcd", "kubectl")
			.stream()
			.allMatch((name) -> Files.isExecutable(dir.resolve(name)));
	}

	private static void build() throws IOException {
		if (!onPath("go")) {
			throw new IllegalStateException(missingMessage());
		}
		Path script = testclusterDir().resolve("build.sh");
		logger.info(
				"kube-apiserver {} or testproxy is not in {}: building them with {} (a cold build of kube-apiserver takes several minutes)",
				VERSION, versionDir(), script);
		long started = System.nanoTime();
		ProcessBuilder builder = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true);
		builder.environment().put("KUBEAPITEST_DIR", k8sDir().getParent().toString());
		Process process = builder.start();
		StringBuilder tail = new StringBuilder();
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				buildLogger.info(line);
				tail.append(line).append('\n');
				if (tail.length() > 8000) {
					tail.delete(0, tail.length() - 8000);
				}
			}
		}
		int exit;
		try {
			exit = process.waitFor();
		}
		catch (InterruptedException ex) {
			process.destroy();
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while building kube-apiserver", ex);
		}
		if (exit != 0) {
			throw new IllegalStateException(script + " failed with exit code " + exit + ":\n" + tail);
		}
		logger.info("Built kube-apiserver {} in {} s", VERSION, (System.nanoTime() - started) / 1_000_000_000);
	}

	/**
	 * The {@code testcluster} folder: the system property
	 * {@value #TESTCLUSTER_DIR_PROPERTY}, else the first {@code testcluster/} with
	 * {@code build.sh} and {@code go.mod} found walking up from {@code user.dir}, else
	 * the sources this jar carries, extracted into
	 * {@code <kube-api-test folder>/listwatch-testcluster/<version>}.
	 */
	static Path testclusterDir() {
		String configured = System.getProperty(TESTCLUSTER_DIR_PROPERTY);
		if (configured != null && !configured.isBlank()) {
			Path dir = Path.of(configured).toAbsolutePath();
			if (!Files.isRegularFile(dir.resolve("build.sh"))) {
				throw new IllegalStateException(
						"-D" + TESTCLUSTER_DIR_PROPERTY + "=" + configured + " has no build.sh");
			}
			return dir;
		}
		Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath();
		for (Path dir = start; dir != null; dir = dir.getParent()) {
			if (Files.isRegularFile(dir.resolve("testcluster/build.sh"))
					&& Files.isRegularFile(dir.resolve("testcluster/go.mod"))) {
				return dir.resolve("testcluster");
			}
		}
		return extractSources(k8sDir().getParent().resolve("listwatch-testcluster").resolve(VERSION));
	}

	/**
	 * Writes the {@code testcluster} sources that this jar carries into a folder,
	 * replacing what an earlier extraction left there.
	 * @param dir the folder, created if need be
	 * @return the folder
	 */
	static Path extractSources(Path dir) {
		try {
			for (String name : SOURCES) {
				Path target = dir.resolve(name);
				Files.createDirectories(target.getParent());
				try (InputStream in = ApiServerBinaries.class.getClassLoader().getResourceAsStream(RESOURCES + name)) {
					if (in == null) {
						throw new IllegalStateException("The listwatch-test-support jar lacks " + RESOURCES + name
								+ ": it was built without the testcluster sources");
					}
					Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
				}
			}
			Files.setPosixFilePermissions(dir.resolve("build.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot extract the testcluster sources into " + dir, ex);
		}
		logger.debug("Extracted the testcluster sources into {}", dir);
		return dir;
	}

	/**
	 * What to do when the binaries are missing and Go is not on the PATH to build them.
	 */
	static String missingMessage() {
		return "kube-apiserver " + VERSION + " is not in " + versionDir() + " and Go is not on the PATH to build it."
				+ " Either install Go 1.24 or later (https://go.dev/doc/install) and rerun: kube-apiserver, etcd"
				+ " and kubectl are built from their Go modules (several minutes the first time);"
				+ " or put kube-apiserver " + VERSION + ", etcd 3.6 and kubectl, executable, into " + versionDir()
				+ " (io.fabric8:kube-api-test's layout: set KUBEAPITEST_DIR to use another folder than ~/.kubeapitest)";
	}

	private static boolean onPath(String command) {
		String path = System.getenv("PATH");
		if (path == null) {
			return false;
		}
		for (String entry : path.split(java.io.File.pathSeparator)) {
			if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, command))) {
				return true;
			}
		}
		return false;
	}

}
