package dev.listwatch.etcd;

import dev.listwatch.Status;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Gateway#status(int, String)} and {@link Gateway#cancelled(String)}: every
 * refusal etcd makes for a token is 401, whatever its gRPC code, so that the caller
 * authenticates again; the other codes keep their meaning.
 */
class GatewayStatusTests {

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			16 | etcdserver: invalid auth token                                  | 401
			3  | etcdserver: revision of auth store is old                       | 401
			3  | etcdserver: user name is empty                                  | 401
			3  | etcdserver: authentication failed, invalid user ID or password  | 400
			7  | etcdserver: permission denied                                   | 403
			11 | etcdserver: mvcc: required revision has been compacted          | 410
			14 | etcdserver: no leader                                           | 503
			""")
	void aRefusedTokenIs401WhateverItsCode(int grpcCode, String message, int expected) {
		Status status = Gateway.status(grpcCode, message);
		assertThat(status.code()).isEqualTo(expected);
		assertThat(status.message()).isEqualTo("etcd: " + message);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			rpc error: code = Unauthenticated desc = etcdserver: invalid auth token           | 401
			rpc error: code = InvalidArgument desc = etcdserver: revision of auth store is old | 401
			rpc error: code = InvalidArgument desc = etcdserver: user name is empty           | 401
			rpc error: code = PermissionDenied desc = etcdserver: permission denied           | 403
			""")
	void aWatchCancelledForItsToken(String reason, int expected) {
		assertThat(Gateway.cancelled(reason).code()).isEqualTo(expected);
	}

}
