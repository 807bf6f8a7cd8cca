package dev.listwatch.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.ConnectionOptions;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

/**
 * An {@link ApiServerClient} for a scripted server, made as the auto-configuration makes
 * one ({@link Cluster#load}, then {@link ApiServerClient#create}), so that the tests go
 * through the transport services use: no kubeconfig, no environment, only the server's
 * URL.
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
		ConnectionOptions options = ConnectionOptions.builder()
			.server(server.toString())
			.environment(Map.of())
			.homeDirectory(home)
			.serviceAccountDirectory(home.resolve("no-service-account"))
			.build();
		return ApiServerClient.create(Cluster.load(options), RestClient.builder(), JsonMapper.shared(),
				Clock.systemUTC());
	}

}
