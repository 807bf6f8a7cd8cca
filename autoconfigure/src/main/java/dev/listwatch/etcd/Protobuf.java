package dev.listwatch.etcd;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The few protobuf messages of etcd's gRPC API that the lister-watcher sends and reads
 * (from etcd's {@code api/etcdserverpb/rpc.proto} and {@code api/mvccpb/kv.proto}),
 * encoded and decoded by hand: no generated code and no protobuf library. Answers are
 * decoded straight into the values of {@link Transport}; fields the lister-watcher does
 * not use are skipped, and unknown fields too, as protobuf requires. Uses nothing of
 * gRPC, so it loads without it.
 */
final class Protobuf {

	private static final int VARINT = 0;

	private static final int FIXED64 = 1;

	private static final int LENGTH = 2;

	private static final int FIXED32 = 5;

	private Protobuf() {
	}

	/**
	 * etcdserverpb.RangeRequest: key 1, range_end 2, limit 3, revision 4.
	 * @param key the first key
	 * @param rangeEnd the end of the range
	 * @param limit the most keys, or {@code null}
	 * @param revision the revision, or 0
	 * @return the encoded request
	 */
	static byte[] rangeRequest(byte[] key, byte[] rangeEnd, @Nullable Long limit, long revision) {
		Writer writer = new Writer(key.length + rangeEnd.length + 32);
		writer.bytes(1, key);
		writer.bytes(2, rangeEnd);
		writer.varint(3, (limit != null) ? limit : 0);
		writer.varint(4, revision);
		return writer.toByteArray();
	}

	/**
	 * etcdserverpb.WatchRequest with its create_request (1): key 1, range_end 2,
	 * start_revision 3, progress_notify 4.
	 * @param key the first key
	 * @param rangeEnd the end of the range
	 * @param startRevision the revision to start from, or 0
	 * @return the encoded request
	 */
	static byte[] watchCreateRequest(byte[] key, byte[] rangeEnd, long startRevision) {
		Writer create = new Writer(key.length + rangeEnd.length + 32);
		create.bytes(1, key);
		create.bytes(2, rangeEnd);
		create.varint(3, startRevision);
		create.varint(4, 1);
		Writer request = new Writer(create.size + 8);
		request.bytes(1, create.toByteArray());
		return request.toByteArray();
	}

	/**
	 * etcdserverpb.WatchRequest with its progress_request (3), an empty
	 * WatchProgressRequest: the field's tag and a length of 0.
	 * @return the encoded request
	 */
	static byte[] watchProgressRequest() {
		return new byte[] { (3 << 3) | LENGTH, 0 };
	}

	/**
	 * etcdserverpb.AuthenticateRequest: name 1, password 2.
	 * @param name the user
	 * @param password the password
	 * @return the encoded request
	 */
	static byte[] authenticateRequest(String name, String password) {
		byte[] user = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
		byte[] secret = password.getBytes(java.nio.charset.StandardCharsets.UTF_8);
		Writer writer = new Writer(user.length + secret.length + 16);
		writer.bytes(1, user);
		writer.bytes(2, secret);
		Arrays.fill(secret, (byte) 0);
		return writer.toByteArray();
	}

	/**
	 * Decodes an etcdserverpb.RangeResponse: header 1, kvs 2, more 3, count 4.
	 * @param bytes the message
	 * @return the range
	 * @throws IllegalArgumentException when the bytes are not such a message
	 */
	static Transport.Range range(byte[] bytes) {
		Reader reader = new Reader(bytes, 0, bytes.length);
		long revision = 0;
		List<Transport.KeyValue> kvs = new ArrayList<>();
		boolean more = false;
		long count = 0;
		while (reader.next()) {
			switch (reader.field) {
				case 1 -> revision = header(reader.message());
				case 2 -> kvs.add(keyValue(reader.message()));
				case 3 -> more = reader.varint() != 0;
				case 4 -> count = reader.varint();
				default -> reader.skip();
			}
		}
		return new Transport.Range(revision, kvs, more, count);
	}

	/**
	 * Decodes an etcdserverpb.WatchResponse: header 1, watch_id 2, created 3, canceled 4,
	 * compact_revision 5, cancel_reason 6, fragment 7, events 11.
	 * @param bytes the message
	 * @return the answer
	 * @throws IllegalArgumentException when the bytes are not such a message
	 */
	static Transport.Answer watchResponse(byte[] bytes) {
		Reader reader = new Reader(bytes, 0, bytes.length);
		long revision = 0;
		boolean created = false;
		boolean canceled = false;
		long compactRevision = 0;
		String cancelReason = null;
		List<Transport.Event> events = null;
		while (reader.next()) {
			switch (reader.field) {
				case 1 -> revision = header(reader.message());
				case 3 -> created = reader.varint() != 0;
				case 4 -> canceled = reader.varint() != 0;
				case 5 -> compactRevision = reader.varint();
				case 6 -> cancelReason = reader.string();
				case 11 -> {
					if (events == null) {
						events = new ArrayList<>();
					}
					events.add(event(reader.message()));
				}
				default -> reader.skip();
			}
		}
		return new Transport.Answer(revision, created, canceled, compactRevision, cancelReason,
				(events != null) ? events : List.of(), null);
	}

	/**
	 * Decodes the token of an etcdserverpb.AuthenticateResponse: header 1, token 2.
	 * @param bytes the message
	 * @return the token, {@code ""} when there is none
	 */
	static String token(byte[] bytes) {
		Reader reader = new Reader(bytes, 0, bytes.length);
		String token = "";
		while (reader.next()) {
			if (reader.field == 2) {
				token = reader.string();
			}
			else {
				reader.skip();
			}
		}
		return token;
	}

	/** etcdserverpb.ResponseHeader's revision (3). */
	private static long header(Reader reader) {
		long revision = 0;
		while (reader.next()) {
			if (reader.field == 3) {
				revision = reader.varint();
			}
			else {
				reader.skip();
			}
		}
		return revision;
	}

	/** mvccpb.Event: type 1 (PUT 0, DELETE 1), kv 2, prev_kv 3 (skipped). */
	private static Transport.Event event(Reader reader) {
		boolean delete = false;
		Transport.KeyValue kv = null;
		while (reader.next()) {
			switch (reader.field) {
				case 1 -> delete = reader.varint() == 1;
				case 2 -> kv = keyValue(reader.message());
				default -> reader.skip();
			}
		}
		if (kv == null) {
			throw new IllegalArgumentException("an etcd event without its key");
		}
		return new Transport.Event(delete, kv);
	}

	/**
	 * mvccpb.KeyValue: key 1, create_revision 2, mod_revision 3, version 4, value 5,
	 * lease 6.
	 */
	private static Transport.KeyValue keyValue(Reader reader) {
		byte[] key = Reader.EMPTY;
		byte[] value = Reader.EMPTY;
		long modRevision = 0;
		long version = 0;
		while (reader.next()) {
			switch (reader.field) {
				case 1 -> key = reader.bytes();
				case 3 -> modRevision = reader.varint();
				case 4 -> version = reader.varint();
				case 5 -> value = reader.bytes();
				default -> reader.skip();
			}
		}
		return new Transport.KeyValue(key, value, modRevision, version);
	}

	/** Writes fields; leaves out zeros and empty bytes, as proto3 does. */
	static final class Writer {

		private byte[] buffer;

		private int size;

		Writer(int capacity) {
			this.buffer = new byte[Math.max(16, capacity)];
		}

		void varint(int field, long value) {
			if (value != 0) {
				rawVarint(((long) field << 3) | VARINT);
				rawVarint(value);
			}
		}

		void bytes(int field, byte[] value) {
			if (value.length > 0) {
				rawVarint(((long) field << 3) | LENGTH);
				rawVarint(value.length);
				ensure(value.length);
				System.arraycopy(value, 0, this.buffer, this.size, value.length);
				this.size += value.length;
			}
		}

		private void rawVarint(long value) {
			ensure(10);
			long rest = value;
			while ((rest & ~0x7FL) != 0) {
				this.buffer[this.size++] = (byte) ((rest & 0x7F) | 0x80);
				rest >>>= 7;
			}
			this.buffer[this.size++] = (byte) rest;
		}

		private void ensure(int more) {
			if (this.size + more > this.buffer.length) {
				this.buffer = Arrays.copyOf(this.buffer, Math.max(this.buffer.length * 2, this.size + more));
			}
		}

		byte[] toByteArray() {
			return Arrays.copyOf(this.buffer, this.size);
		}

	}

	/** Reads the fields of one message, in order. */
	static final class Reader {

		static final byte[] EMPTY = {};

		private final byte[] bytes;

		private int position;

		private final int limit;

		int field;

		private int wireType;

		Reader(byte[] bytes, int offset, int limit) {
			this.bytes = bytes;
			this.position = offset;
			this.limit = limit;
		}

		/** Reads the next field's tag; {@code false} at the end of the message. */
		boolean next() {
			if (this.position >= this.limit) {
				return false;
			}
			long tag = rawVarint();
			this.field = (int) (tag >>> 3);
			this.wireType = (int) (tag & 7);
			if (this.field == 0) {
				throw new IllegalArgumentException("a protobuf field numbered 0");
			}
			return true;
		}

		long varint() {
			expect(VARINT);
			return rawVarint();
		}

		byte[] bytes() {
			int length = length();
			byte[] value = Arrays.copyOfRange(this.bytes, this.position, this.position + length);
			this.position += length;
			return value;
		}

		String string() {
			int length = length();
			String value = new String(this.bytes, this.position, length, java.nio.charset.StandardCharsets.UTF_8);
			this.position += length;
			return value;
		}

		/** The embedded message of this field, read by a reader of its own. */
		Reader message() {
			int length = length();
			Reader nested = new Reader(this.bytes, this.position, this.position + length);
			this.position += length;
			return nested;
		}

		void skip() {
			switch (this.wireType) {
				case VARINT -> rawVarint();
				case FIXED64 -> advance(8);
				case LENGTH -> advance(length());
				case FIXED32 -> advance(4);
				default -> throw new IllegalArgumentException("protobuf wire type " + this.wireType + " of field "
						+ this.field + " is not one proto3 writes");
			}
		}

		private int length() {
			expect(LENGTH);
			long length = rawVarint();
			if (length < 0 || length > this.limit - this.position) {
				throw new IllegalArgumentException("field " + this.field + " runs past the end of its message");
			}
			return (int) length;
		}

		private void advance(int count) {
			if (count > this.limit - this.position) {
				throw new IllegalArgumentException("field " + this.field + " runs past the end of its message");
			}
			this.position += count;
		}

		private void expect(int type) {
			if (this.wireType != type) {
				throw new IllegalArgumentException(
						"field " + this.field + " has wire type " + this.wireType + ", not " + type);
			}
		}

		private long rawVarint() {
			long value = 0;
			for (int shift = 0; shift < 64; shift += 7) {
				if (this.position >= this.limit) {
					throw new IllegalArgumentException("a varint runs past the end of its message");
				}
				byte b = this.bytes[this.position++];
				value |= (long) (b & 0x7F) << shift;
				if ((b & 0x80) == 0) {
					return value;
				}
			}
			throw new IllegalArgumentException("a varint longer than 10 bytes");
		}

	}

}
