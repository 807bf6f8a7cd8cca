package dev.listwatch.bench;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable byte buffer (no synchronisation, no copies on read). */
public final class Bytes {

	byte[] buf;

	int size;

	public Bytes(int capacity) {
		this.buf = new byte[capacity];
	}

	public void write(byte[] b) {
		write(b, 0, b.length);
	}

	public void write(byte[] b, int off, int len) {
		ensure(len);
		System.arraycopy(b, off, this.buf, this.size, len);
		this.size += len;
	}

	public void write(int b) {
		ensure(1);
		this.buf[this.size++] = (byte) b;
	}

	public void ascii(String s) {
		int n = s.length();
		ensure(n);
		for (int i = 0; i < n; i++) {
			this.buf[this.size++] = (byte) s.charAt(i);
		}
	}

	public void utf8(String s) {
		write(s.getBytes(StandardCharsets.UTF_8));
	}

	public void decimal(long value) {
		ascii(Long.toString(value));
	}

	public int size() {
		return this.size;
	}

	public byte[] array() {
		return this.buf;
	}

	public void reset() {
		this.size = 0;
	}

	public byte[] toByteArray() {
		return Arrays.copyOf(this.buf, this.size);
	}

	private void ensure(int more) {
		if (this.size + more > this.buf.length) {
			this.buf = Arrays.copyOf(this.buf, Math.max(this.buf.length * 2, this.size + more));
		}
	}

}
