package dev.listwatch.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.ClusterLoader;
import dev.listwatch.cluster.ConnectionSettings;

import org.springframework.web.client.RestClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * An {@link ApiServerClient} for a scripted server, made as the auto-configuration makes one
 * ({@link ClusterLoader}, then {@link ApiServerClient#create}), so that the tests go through the
 * transport services use: no kubeconfig, no environment, only the server's URL.
 */
final class ScriptedClients {

	private ScriptedClients() {
	}

	static ApiServerClient connect(URI server) {
		Path home;
		try {
			home = Files.createTempDirectory("listwatch-scripted-home");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		ConnectionSettings settings = new ConnectionSettings(null, null, server.toString(), null, null, null, null,
				null, null, null, null, Map.of(), home, home.resolve("no-service-account"), Clock.systemUTC());
		return ApiServerClient.create(ClusterLoader.load(settings), RestClient.builder(), JsonMapper.shared(),
				Clock.systemUTC());
	}

}
