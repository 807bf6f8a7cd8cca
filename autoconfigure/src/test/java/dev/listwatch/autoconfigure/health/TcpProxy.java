package dev.listwatch.autoconfigure.health;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A plain TCP relay on 127.0.0.1 to a target, that can be stopped (listener and every
 * connection closed: the target looks unreachable) and started again on the same port.
 * TLS passes through untouched. Small and private to these tests.
 */
final class TcpProxy implements AutoCloseable {

	private final String targetHost;

	private final int targetPort;

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private volatile ServerSocket listener;

	private volatile int port;

	TcpProxy(String targetHost, int targetPort) {
		this.targetHost = targetHost;
		this.targetPort = targetPort;
	}

	/** Starts listening: on a free port the first time, on the same port after. */
	synchronized TcpProxy start() throws IOException {
		if (this.listener != null) {
			return this;
		}
		ServerSocket listener = new ServerSocket();
		listener.setReuseAddress(true);
		listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port));
		this.port = listener.getLocalPort();
		this.listener = listener;
		Thread acceptor = new Thread(() -> accept(listener), "tcp-proxy-accept-" + this.port);
		acceptor.setDaemon(true);
		acceptor.start();
		return this;
	}

	/** Stops listening and closes every connection. */
	synchronized void stop() {
		ServerSocket listener = this.listener;
		this.listener = null;
		closeQuietly(listener);
		for (Socket socket : this.sockets) {
			closeQuietly(socket);
		}
		this.sockets.clear();
	}

	int port() {
		return this.port;
	}

	@Override
	public void close() {
		stop();
	}

	private void accept(ServerSocket listener) {
		while (!listener.isClosed()) {
			try {
				Socket client = listener.accept();
				Socket server;
				try {
					server = new Socket(this.targetHost, this.targetPort);
				}
				catch (IOException ex) {
					closeQuietly(client);
					continue;
				}
				this.sockets.add(client);
				this.sockets.add(server);
				pump(client, server);
				pump(server, client);
			}
			catch (IOException ex) {
				// closed
			}
		}
	}

	private void pump(Socket from, Socket to) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException ex) {
				// one side went away
			}
			finally {
				closeQuietly(from);
				closeQuietly(to);
				this.sockets.remove(from);
				this.sockets.remove(to);
			}
		}, "tcp-proxy-pump");
		thread.setDaemon(true);
		thread.start();
	}

	private static void closeQuietly(AutoCloseable closeable) {
		if (closeable != null) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				// ignore
			}
		}
	}

}
