package dev.listwatch.cluster;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An HTTP proxy on 127.0.0.1 that demands {@code Proxy-Authorization: Basic ...}, as
 * corporate proxies do: a CONNECT with the right credentials is tunnelled to the loopback
 * target it names; a plain request with them is answered by the proxy itself
 * ({@code 200 via proxy}); anything without them gets {@code 407} with a Basic challenge.
 * Every request head it receives is recorded.
 */
public final class AuthenticatingProxy implements AutoCloseable {

	private final ServerSocket server;

	private final String expected;

	private final List<String> requests = new CopyOnWriteArrayList<>();

	private final Set<Socket> open = ConcurrentHashMap.newKeySet();

	public AuthenticatingProxy(String username, String password) throws IOException {
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		this.expected = "Basic "
				+ Base64.getEncoder().encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
		Thread thread = new Thread(this::accept, "authenticating-proxy");
		thread.setDaemon(true);
		thread.start();
	}

	public int port() {
		return this.server.getLocalPort();
	}

	/** The request heads received, in order (request line and headers). */
	public List<String> requests() {
		return this.requests;
	}

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Socket client = this.server.accept();
				this.open.add(client);
				Thread thread = new Thread(() -> serve(client), "authenticating-proxy-client");
				thread.setDaemon(true);
				thread.start();
			}
			catch (IOException ex) {
				return;
			}
		}
	}

	private void serve(Socket client) {
		try {
			InputStream in = new BufferedInputStream(client.getInputStream());
			OutputStream out = client.getOutputStream();
			while (true) {
				String head = readHead(in);
				if (head == null) {
					client.close();
					return;
				}
				this.requests.add(head);
				String[] requestLine = head.substring(0, head.indexOf("\r\n")).split(" ");
				if (!this.expected.equals(header(head, "proxy-authorization"))) {
					out.write(("HTTP/1.1 407 Proxy Authentication Required\r\n"
							+ "Proxy-Authenticate: Basic realm=\"test\"\r\nContent-Length: 0\r\n\r\n")
						.getBytes(StandardCharsets.ISO_8859_1));
					out.flush();
					continue;
				}
				if (requestLine[0].equals("CONNECT")) {
					tunnel(client, in, out, requestLine[1]);
					return;
				}
				byte[] body = "via proxy".getBytes(StandardCharsets.UTF_8);
				out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + body.length + "\r\n\r\n")
					.getBytes(StandardCharsets.ISO_8859_1));
				out.write(body);
				out.flush();
			}
		}
		catch (IOException ex) {
			closeQuietly(client);
		}
	}

	private void tunnel(Socket client, InputStream in, OutputStream out, String authority) throws IOException {
		int colon = authority.lastIndexOf(':');
		Socket target = new Socket();
		this.open.add(target);
		target.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(),
				Integer.parseInt(authority.substring(colon + 1))));
		out.write("HTTP/1.1 200 Connection established\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
		out.flush();
		Thread back = new Thread(() -> copy(target, client), "authenticating-proxy-tunnel");
		back.setDaemon(true);
		back.start();
		copy(in, target);
	}

	private void copy(Socket from, Socket to) {
		try {
			copy(from.getInputStream(), to);
		}
		catch (IOException ex) {
			closeQuietly(from);
			closeQuietly(to);
		}
	}

	private void copy(InputStream from, Socket to) {
		try {
			from.transferTo(to.getOutputStream());
			to.shutdownOutput();
		}
		catch (IOException ex) {
			closeQuietly(to);
		}
	}

	private static String header(String head, String name) {
		for (String line : head.split("\r\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && line.substring(0, colon).toLowerCase(Locale.ROOT).equals(name)) {
				return line.substring(colon + 1).strip();
			}
		}
		return null;
	}

	private static String readHead(InputStream in) throws IOException {
		ByteArrayOutputStream head = new ByteArrayOutputStream();
		while (true) {
			int b = in.read();
			if (b == -1) {
				return null;
			}
			head.write(b);
			String text = head.toString(StandardCharsets.ISO_8859_1);
			if (text.endsWith("\r\n\r\n")) {
				return text;
			}
		}
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

	@Override
	public void close() throws IOException {
		this.server.close();
		this.open.forEach(AuthenticatingProxy::closeQuietly);
	}

}
