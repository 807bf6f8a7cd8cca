package dev.listwatch.etcd;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Locale;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

import org.jspecify.annotations.Nullable;

/**
 * One HTTP/1.1 POST whose request body stays open while the response streams in: a
 * streamed call of etcd's JSON gateway (a watch), whose later requests (progress
 * requests) go in the same body. The request goes out with a chunked body and
 * {@code Expect: 100-continue}, its first chunk at once, more with {@link #send(byte[])}.
 * The expectation matters: without it, etcd's HTTP server reads the rest of the body (it
 * never ends) before it writes the response; with it, it writes the response while the
 * gateway reads the body. The JDK HTTP client cannot make such a call: it reads no
 * response before the request body is complete.
 * <p>
 * TLS with the caller's {@link SSLContext} and the host name checked, as the JDK client
 * does. The connection is the call's own and closes with it. Interim (1xx) responses are
 * skipped; the response's body is read as its framing says (chunked, a length, or to the
 * end of the connection). Neither the token nor the body appears in a message. Reading
 * and sending may happen on two threads at once; {@link #close()} from any thread ends a
 * blocked read.
 */
final class StreamedCall implements AutoCloseable {

	/** The longest status line or header accepted. */
	private static final int MAX_LINE = 16 * 1024;

	/** The most header lines accepted. */
	private static final int MAX_HEADERS = 200;

	private static final byte[] CRLF = { '\r', '\n' };

	private final Socket raw;

	private final Socket socket;

	private final OutputStream out;

	private final URI uri;

	private final int status;

	private final InputStream body;

	private final Object writing = new Object();

	private volatile boolean closed;

	private StreamedCall(Socket raw, Socket socket, URI uri, int status, InputStream body) throws IOException {
		this.raw = raw;
		this.socket = socket;
		this.out = socket.getOutputStream();
		this.uri = uri;
		this.status = status;
		this.body = body;
	}

	/**
	 * Opens the call: connects, sends the request with its first chunk, and reads the
	 * response's status and headers.
	 * @param uri the URL to POST to
	 * @param first the first chunk of the body
	 * @param authorization the {@code Authorization} header, or {@code null}
	 * @param tls the TLS context of {@code https} URLs, or {@code null} for the JVM's
	 * default
	 * @param connectTimeout how long connecting may take
	 * @param answerTimeout how long the response's status and headers may take to come
	 * @return the call, its response begun
	 * @throws IOException when the endpoint cannot be reached, or the exchange breaks
	 */
	static StreamedCall open(URI uri, byte[] first, @Nullable String authorization, @Nullable SSLContext tls,
			Duration connectTimeout, Duration answerTimeout) throws IOException {
		if (authorization != null && (authorization.indexOf('\r') >= 0 || authorization.indexOf('\n') >= 0)) {
			throw new IOException("the etcd token holds a line break");
		}
		String host = uri.getHost();
		if (host == null) {
			throw new IOException("no host in the etcd endpoint");
		}
		String bare = (host.startsWith("[") && host.endsWith("]")) ? host.substring(1, host.length() - 1) : host;
		boolean https = "https".equalsIgnoreCase(uri.getScheme());
		int port = (uri.getPort() > 0) ? uri.getPort() : (https ? 443 : 80);
		Socket raw = new Socket();
		Socket socket = raw;
		try {
			raw.connect(new InetSocketAddress(bare, port),
					(int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
			raw.setTcpNoDelay(true);
			raw.setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, answerTimeout.toMillis())));
			if (https) {
				SSLSocket ssl = (SSLSocket) context(tls).getSocketFactory().createSocket(raw, bare, port, true);
				SSLParameters parameters = ssl.getSSLParameters();
				parameters.setEndpointIdentificationAlgorithm("HTTPS");
				ssl.setSSLParameters(parameters);
				ssl.startHandshake();
				socket = ssl;
			}
			ByteArrayOutputStream head = new ByteArrayOutputStream(512 + first.length);
			String path = (uri.getRawPath() != null && !uri.getRawPath().isEmpty()) ? uri.getRawPath() : "/";
			StringBuilder request = new StringBuilder(256).append("POST ")
				.append(path)
				.append(" HTTP/1.1\r\nHost: ")
				.append(host)
				.append(':')
				.append(port)
				.append("\r\nUser-Agent: listwatch\r\nContent-Type: application/json\r\nAccept: application/json\r\n")
				.append("Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n");
			if (authorization != null) {
				request.append("Authorization: ").append(authorization).append("\r\n");
			}
			request.append("\r\n");
			head.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
			head.write(chunk(first));
			OutputStream out = socket.getOutputStream();
			out.write(head.toByteArray());
			out.flush();
			InputStream in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
			int status;
			String transferEncoding;
			long contentLength;
			do {
				String statusLine = line(in);
				String[] parts = statusLine.split(" ", 3);
				if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
					throw new IOException("not an HTTP/1.1 response");
				}
				status = parse(parts[1], 10, "status");
				transferEncoding = null;
				contentLength = -1;
				for (int i = 0;; i++) {
					String header = line(in);
					if (header.isEmpty()) {
						break;
					}
					if (i == MAX_HEADERS) {
						throw new IOException("more than " + MAX_HEADERS + " response headers");
					}
					int colon = header.indexOf(':');
					if (colon <= 0) {
						continue;
					}
					String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
					String value = header.substring(colon + 1).trim();
					if (name.equals("transfer-encoding")) {
						transferEncoding = value.toLowerCase(Locale.ROOT);
					}
					else if (name.equals("content-length")) {
						contentLength = parse(value, 10, "content length");
					}
				}
			}
			while (status >= 100 && status < 200);
			InputStream body;
			if (transferEncoding != null && transferEncoding.endsWith("chunked")) {
				body = new Chunked(in);
			}
			else if (contentLength >= 0) {
				body = new Bounded(in, contentLength);
			}
			else {
				body = in;
			}
			if (status == 200) {
				// the answers stream in for as long as the call is open: whoever reads
				// them watches for silence
				raw.setSoTimeout(0);
			}
			return new StreamedCall(raw, socket, uri, status, body);
		}
		catch (IOException | RuntimeException ex) {
			closeQuietly(socket);
			closeQuietly(raw);
			throw ex;
		}
	}

	private static SSLContext context(@Nullable SSLContext tls) throws IOException {
		if (tls != null) {
			return tls;
		}
		try {
			return SSLContext.getDefault();
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IOException("no default TLS context", ex);
		}
	}

	/** The response's status code. */
	int status() {
		return this.status;
	}

	/** The response's body, its framing undone. */
	InputStream body() {
		return this.body;
	}

	/** The URL of the call. */
	URI uri() {
		return this.uri;
	}

	/**
	 * Sends another chunk of the request body.
	 * @param chunk the chunk, not empty (an empty one would end the body)
	 * @throws IOException when the connection is closed or broken
	 */
	void send(byte[] chunk) throws IOException {
		if (chunk.length == 0) {
			throw new IllegalArgumentException("an empty chunk ends the body");
		}
		byte[] framed = chunk(chunk);
		synchronized (this.writing) {
			if (this.closed) {
				throw new IOException("the call is closed");
			}
			this.out.write(framed);
			this.out.flush();
		}
	}

	/** Closes the connection; a blocked read of the body ends. Idempotent. */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		// the plain socket first: closing TLS would write its close notification,
		// which a half-open connection may never take
		closeQuietly(this.raw);
		closeQuietly(this.socket);
	}

	@Override
	public String toString() {
		return "POST " + this.uri;
	}

	private static byte[] chunk(byte[] data) {
		byte[] size = Integer.toHexString(data.length).getBytes(StandardCharsets.ISO_8859_1);
		byte[] framed = new byte[size.length + 2 + data.length + 2];
		System.arraycopy(size, 0, framed, 0, size.length);
		System.arraycopy(CRLF, 0, framed, size.length, 2);
		System.arraycopy(data, 0, framed, size.length + 2, data.length);
		System.arraycopy(CRLF, 0, framed, size.length + 2 + data.length, 2);
		return framed;
	}

	/** One line of the head, without its CRLF (or LF). */
	private static String line(InputStream in) throws IOException {
		StringBuilder line = new StringBuilder(64);
		while (true) {
			int b = in.read();
			if (b < 0) {
				throw new EOFException("the connection ended inside the response's head");
			}
			if (b == '\n') {
				int length = line.length();
				if (length > 0 && line.charAt(length - 1) == '\r') {
					line.setLength(length - 1);
				}
				return line.toString();
			}
			if (line.length() == MAX_LINE) {
				throw new IOException("a response line longer than " + MAX_LINE + " bytes");
			}
			line.append((char) b);
		}
	}

	private static int parse(String text, int radix, String what) throws IOException {
		try {
			return Integer.parseInt(text.trim(), radix);
		}
		catch (NumberFormatException ex) {
			throw new IOException("the response's " + what + " is not a number");
		}
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// best effort: the connection is gone either way
		}
	}

	/** A chunked body, its chunks joined. */
	private static final class Chunked extends InputStream {

		private final InputStream in;

		/** Bytes left of the current chunk. */
		private long remaining;

		/** Whether the CRLF after a chunk's data is still to read. */
		private boolean afterChunk;

		private boolean ended;

		Chunked(InputStream in) {
			this.in = in;
		}

		@Override
		public int read() throws IOException {
			byte[] one = new byte[1];
			int n = read(one, 0, 1);
			return (n < 0) ? -1 : (one[0] & 0xff);
		}

		@Override
		public int read(byte[] buffer, int offset, int length) throws IOException {
			if (length == 0) {
				return 0;
			}
			if (this.ended) {
				return -1;
			}
			if (this.remaining == 0) {
				if (this.afterChunk) {
					// read lazily, so that a chunk is handed out as soon as its data came
					if (!line(this.in).isEmpty()) {
						throw new IOException("a chunk of the response is longer than its size says");
					}
					this.afterChunk = false;
				}
				String size = line(this.in);
				int extension = size.indexOf(';');
				long next = parse((extension >= 0) ? size.substring(0, extension) : size, 16, "chunk size");
				if (next == 0) {
					while (!line(this.in).isEmpty()) {
						// trailers: none used
					}
					this.ended = true;
					return -1;
				}
				this.remaining = next;
			}
			int n = this.in.read(buffer, offset, (int) Math.min(length, this.remaining));
			if (n < 0) {
				throw new EOFException("the connection ended inside a chunk of the response");
			}
			this.remaining -= n;
			if (this.remaining == 0) {
				this.afterChunk = true;
			}
			return n;
		}

		@Override
		public void close() throws IOException {
			this.in.close();
		}

	}

	/** A body of a known length. */
	private static final class Bounded extends InputStream {

		private final InputStream in;

		private long remaining;

		Bounded(InputStream in, long length) {
			this.in = in;
			this.remaining = length;
		}

		@Override
		public int read() throws IOException {
			if (this.remaining == 0) {
				return -1;
			}
			int b = this.in.read();
			if (b >= 0) {
				this.remaining--;
			}
			return b;
		}

		@Override
		public int read(byte[] buffer, int offset, int length) throws IOException {
			if (this.remaining == 0) {
				return -1;
			}
			int n = this.in.read(buffer, offset, (int) Math.min(length, this.remaining));
			if (n > 0) {
				this.remaining -= n;
			}
			return n;
		}

		@Override
		public void close() throws IOException {
			this.in.close();
		}

	}

}
