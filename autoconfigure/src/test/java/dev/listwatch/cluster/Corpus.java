package dev.listwatch.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;

/**
 * The kubeconfig corpus under {@code src/test/resources/kubeconfig}: templates whose
 * {@code ${NAME}} placeholders are filled with material generated at test time.
 */
public final class Corpus {

	public static final String OPENSHIFT_TOKEN = "sha256~OpEnShIfTtOkEn-7f3a9c";

	public static final String RANCHER_TOKEN = "rAnChErSeCrEt8842";

	public static final String BASIC_PASSWORD = "bAsIcPaSsWoRd-5521";

	public static final String DEV_TOKEN = "dEvToKeN-19f0";

	public static final String PROD_TOKEN = "pRoDtOkEn-77aa";

	public static final String TOKEN = "pLaNtEdToKeN-0b1c";

	private static TestPki.Issued ca;

	private static TestPki.Issued client;

	private static TestPki.Issued other;

	private Corpus() {
	}

	public static synchronized TestPki.Issued ca() {
		if (ca == null) {
			ca = TestPki.ca("corpus-ca");
			client = TestPki.issue(ca, "kind-admin", TestPki.KeyType.EC);
			other = TestPki.issue(ca, "other", TestPki.KeyType.EC);
		}
		return ca;
	}

	public static TestPki.Issued client() {
		ca();
		return client;
	}

	public static Map<String, String> variables() {
		Map<String, String> variables = new HashMap<>();
		variables.put("CA_DATA", ca().certificateBase64());
		variables.put("CLIENT_CERT_DATA", client().certificateBase64());
		variables.put("CLIENT_KEY_DATA", TestPki.base64(client().traditionalPem()));
		variables.put("OTHER_KEY_DATA", TestPki.base64(other.traditionalPem()));
		variables.put("OPENSHIFT_TOKEN", OPENSHIFT_TOKEN);
		variables.put("RANCHER_TOKEN", RANCHER_TOKEN);
		variables.put("BASIC_PASSWORD", BASIC_PASSWORD);
		variables.put("DEV_TOKEN", DEV_TOKEN);
		variables.put("TOKEN", TOKEN);
		return variables;
	}

	/**
	 * Copies a corpus file into {@code dir} (keeping its relative path) with the
	 * placeholders filled.
	 */
	public static Path write(String name, Path dir) {
		String resource = "kubeconfig/" + name;
		try (InputStream in = Corpus.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalArgumentException("No " + resource);
			}
			String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			for (Map.Entry<String, String> variable : variables().entrySet()) {
				text = text.replace("${" + variable.getKey() + "}", variable.getValue());
			}
			Path file = dir.resolve(name);
			Files.createDirectories(file.getParent());
			Files.writeString(file, text);
			return file;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	public static Path write(Path file, String text) {
		try {
			Files.createDirectories(file.getParent());
			Files.writeString(file, text);
			return file;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Writes an executable shell script. */
	public static Path script(Path file, String body) {
		write(file, "#!/bin/sh\n" + body + "\n");
		try {
			Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return file;
	}

	/** A script printing an ExecCredential with the given token. */
	public static Path credentialScript(Path file, String apiVersion, String token) {
		return script(file, """
				echo "$KUBERNETES_EXEC_INFO" > "$0.info"
				env > "$0.env"
				echo "$@" > "$0.args"
				cat <<JSON
				{"kind":"ExecCredential","apiVersion":"%s","spec":{},"status":{"token":"%s"}}
				JSON""".formatted(apiVersion, token));
	}

}
