package dev.listwatch.etcd;

import org.junit.jupiter.api.BeforeAll;

/**
 * {@link EtcdWatchIT} over etcd's native gRPC API ({@code listwatch.etcd.protocol=grpc}):
 * the watches of etcd keys, with the same assertions as over the JSON gateway.
 */
class EtcdWatchGrpcIT extends EtcdWatchIT {

	@BeforeAll
	static void overGrpc() {
		EtcdWatchIT.protocol = "grpc";
	}

}
