package dev.listwatch.etcd;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The hand-written protobuf of etcd's messages: what is sent is read back field by field,
 * answers decode with the fields the lister-watcher uses (and skip every other, known or
 * not), and a message cut short fails instead of decoding to something else.
 */
class ProtobufTests {

	@Test
	void aWatchResponseWithEventsDecodesAndSkipsOtherFields() {
		Protobuf.Writer header = new Protobuf.Writer(16);
		header.varint(1, 0xFFFF_FFFF_FFFFL); // cluster_id
		header.varint(3, 300_000_000_000L); // revision
		Protobuf.Writer put = event(0, "/p/ns/a", "{\"v\":1}", 299_999_999_999L, 1);
		Protobuf.Writer delete = event(1, "/p/ns/b", "", 300_000_000_000L, 0);
		Protobuf.Writer response = new Protobuf.Writer(16);
		response.bytes(1, header.toByteArray());
		response.varint(2, -1); // watch_id, negative: a ten-byte varint
		response.bytes(11, put.toByteArray());
		response.varint(99, 7); // a field of a later etcd
		response.bytes(11, delete.toByteArray());
		byte[] bytes = withFixedFields(response.toByteArray());
		Transport.Answer answer = Protobuf.watchResponse(bytes);
		assertThat(answer.revision()).isEqualTo(300_000_000_000L);
		assertThat(answer.created()).isFalse();
		assertThat(answer.canceled()).isFalse();
		assertThat(answer.events()).hasSize(2);
		Transport.Event first = answer.events().get(0);
		assertThat(first.delete()).isFalse();
		assertThat(new String(first.kv().key(), StandardCharsets.UTF_8)).isEqualTo("/p/ns/a");
		assertThat(new String(first.kv().value(), StandardCharsets.UTF_8)).isEqualTo("{\"v\":1}");
		assertThat(first.kv().modRevision()).isEqualTo(299_999_999_999L);
		assertThat(first.kv().version()).isEqualTo(1);
		Transport.Event second = answer.events().get(1);
		assertThat(second.delete()).isTrue();
		assertThat(second.kv().value()).isEmpty();
	}

	@Test
	void aCancelledWatchCarriesItsReasonAndCompactRevision() {
		Protobuf.Writer response = new Protobuf.Writer(16);
		response.varint(4, 1);
		response.varint(5, 42);
		response.bytes(6, "rpc error: code = Unauthenticated desc = etcdserver: invalid auth token"
			.getBytes(StandardCharsets.UTF_8));
		Transport.Answer answer = Protobuf.watchResponse(response.toByteArray());
		assertThat(answer.canceled()).isTrue();
		assertThat(answer.compactRevision()).isEqualTo(42);
		assertThat(answer.cancelReason()).contains("invalid auth token");
		assertThat(answer.events()).isEmpty();
	}

	@Test
	void aRangeRequestAndItsAnswer() {
		byte[] request = Protobuf.rangeRequest("/p/".getBytes(StandardCharsets.UTF_8),
				"/p0".getBytes(StandardCharsets.UTF_8), 500L, 17);
		// key 1 (3 bytes), range_end 2 (3 bytes), limit 3 = 500 (two bytes), revision 4
		assertThat(request).containsExactly(0x0A, 3, '/', 'p', '/', 0x12, 3, '/', 'p', '0', 0x18, 0xF4 - 256, 0x03,
				0x20, 17);
		Protobuf.Writer header = new Protobuf.Writer(8);
		header.varint(3, 9);
		Protobuf.Writer kv = new Protobuf.Writer(8);
		kv.bytes(1, "/p/x".getBytes(StandardCharsets.UTF_8));
		kv.varint(3, 8);
		Protobuf.Writer response = new Protobuf.Writer(16);
		response.bytes(1, header.toByteArray());
		response.bytes(2, kv.toByteArray());
		response.varint(3, 1);
		response.varint(4, 1234);
		Transport.Range range = Protobuf.range(response.toByteArray());
		assertThat(range.revision()).isEqualTo(9);
		assertThat(range.more()).isTrue();
		assertThat(range.count()).isEqualTo(1234);
		assertThat(range.kvs()).singleElement().satisfies((value) -> {
			assertThat(new String(value.key(), StandardCharsets.UTF_8)).isEqualTo("/p/x");
			assertThat(value.modRevision()).isEqualTo(8);
			assertThat(value.value()).isEmpty();
		});
	}

	@Test
	void aMessageCutShortFails() {
		Protobuf.Writer kv = new Protobuf.Writer(8);
		kv.bytes(1, "/p/x".getBytes(StandardCharsets.UTF_8));
		kv.bytes(5, "{}".getBytes(StandardCharsets.UTF_8));
		Protobuf.Writer event = new Protobuf.Writer(8);
		event.bytes(2, kv.toByteArray());
		Protobuf.Writer response = new Protobuf.Writer(16);
		response.bytes(11, event.toByteArray());
		byte[] whole = response.toByteArray();
		for (int length = 1; length < whole.length; length++) {
			byte[] cut = Arrays.copyOf(whole, length);
			assertThatIllegalArgumentException().as("cut at %d of %d bytes", length, whole.length)
				.isThrownBy(() -> Protobuf.watchResponse(cut));
		}
	}

	@Test
	void theTokenOfAnAuthenticateResponse() {
		Protobuf.Writer response = new Protobuf.Writer(16);
		response.bytes(1, new byte[] { 0x18, 5 });
		response.bytes(2, "tok.en.1".getBytes(StandardCharsets.UTF_8));
		assertThat(Protobuf.token(response.toByteArray())).isEqualTo("tok.en.1");
		assertThat(Protobuf.token(new byte[0])).isEmpty();
	}

	@Test
	void aProgressRequestIsAnEmptyProgressRequestField() {
		// WatchRequest { progress_request (3): WatchProgressRequest {} }: tag 0x1a,
		// length 0, as etcd's Go client encodes it
		assertThat(Protobuf.watchProgressRequest()).containsExactly(0x1a, 0x00);
	}

	private static Protobuf.Writer event(int type, String key, String value, long modRevision, long version) {
		Protobuf.Writer kv = new Protobuf.Writer(32);
		kv.bytes(1, key.getBytes(StandardCharsets.UTF_8));
		kv.varint(2, modRevision);
		kv.varint(3, modRevision);
		kv.varint(4, version);
		kv.bytes(5, value.getBytes(StandardCharsets.UTF_8));
		kv.varint(6, 77); // lease
		Protobuf.Writer event = new Protobuf.Writer(32);
		event.varint(1, type);
		event.bytes(2, kv.toByteArray());
		event.bytes(3, kv.toByteArray()); // prev_kv: skipped
		return event;
	}

	/** The message with a fixed64 (field 97) and a fixed32 (field 98) field in front. */
	private static byte[] withFixedFields(byte[] message) {
		byte[] fixed = new byte[2 + 8 + 2 + 4];
		fixed[0] = (byte) ((97 << 3 | 1) & 0x7F | 0x80);
		fixed[1] = (byte) ((97 << 3 | 1) >>> 7);
		fixed[10] = (byte) ((98 << 3 | 5) & 0x7F | 0x80);
		fixed[11] = (byte) ((98 << 3 | 5) >>> 7);
		byte[] all = Arrays.copyOf(fixed, fixed.length + message.length);
		System.arraycopy(message, 0, all, fixed.length, message.length);
		return all;
	}

}
