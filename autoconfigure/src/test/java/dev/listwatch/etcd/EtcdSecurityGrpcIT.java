package dev.listwatch.etcd;

import org.junit.jupiter.api.BeforeAll;

/**
 * {@link EtcdSecurityIT} over etcd's native gRPC API
 * ({@code listwatch.etcd.protocol=grpc}): TLS with a client certificate, and a user whose
 * token is renewed, with the same assertions as over the JSON gateway.
 */
class EtcdSecurityGrpcIT extends EtcdSecurityIT {

	@BeforeAll
	static void overGrpc() {
		EtcdWatchIT.protocol = "grpc";
	}

}
