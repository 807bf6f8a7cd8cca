package dev.listwatch.etcd;

import org.junit.jupiter.api.BeforeAll;

/**
 * {@link EtcdFailurePathsIT} over etcd's native gRPC API
 * ({@code listwatch.etcd.protocol=grpc}): the failure paths, with the same assertions as
 * over the JSON gateway.
 */
class EtcdFailurePathsGrpcIT extends EtcdFailurePathsIT {

	@BeforeAll
	static void overGrpc() {
		EtcdWatchIT.protocol = "grpc";
	}

}
