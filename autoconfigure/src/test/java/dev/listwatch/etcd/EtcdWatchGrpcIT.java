package dev.listwatch.etcd;

import java.net.ServerSocket;
import java.time.Duration;

import dev.listwatch.informer.Informer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link EtcdWatchIT} over etcd's native gRPC API ({@code listwatch.etcd.protocol=grpc}):
 * the watches of etcd keys, with the same assertions as over the JSON gateway.
 */
class EtcdWatchGrpcIT extends EtcdWatchIT {

	@BeforeAll
	static void overGrpc() {
		EtcdWatchIT.protocol = "grpc";
	}

	/**
	 * An endpoint that takes the TCP connection (the kernel's backlog) and never answers
	 * is passed over after the connect timeout: gRPC's HTTP/2 handshake does not
	 * complete. (Over the gateway, the request waits for its answer instead.)
	 */
	@Test
	void anEndpointThatAcceptsAndNeverAnswersIsPassedOverAfterTheConnectTimeout() throws Exception {
		put("/silent/a", "{}");
		try (ServerSocket silent = new ServerSocket(0, 1)) {
			runner("http://127.0.0.1:" + silent.getLocalPort() + "," + endpoint(), "/silent/",
					"listwatch.etcd.connect-timeout=1s")
				.run((context) -> {
					Informer<?> informer = informer(context);
					await().atMost(Duration.ofSeconds(30)).until(() -> informer.status().synced());
					put("/silent/b", "{}");
					await().atMost(Duration.ofSeconds(10)).until(() -> lister(context).get(null, "b").isPresent());
					assertThat(informer.status().relists()).isZero();
				});
		}
	}

}
