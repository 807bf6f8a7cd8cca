package dev.listwatch.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Random;

import dev.listwatch.testsupport.fault.FaultProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The {@link FaultProxy} in front of a local echo server: forwards, cuts, cuts after some
 * bytes, stalls, refuses and resumes on the same port.
 */
class FaultProxyTests {

	private ServerSocket echo;

	private FaultProxy proxy;

	@BeforeEach
	void start() throws IOException {
		this.echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(() -> {
			while (!this.echo.isClosed()) {
				try {
					Socket socket = this.echo.accept();
					Thread pump = new Thread(() -> {
						try (socket) {
							socket.getInputStream().transferTo(socket.getOutputStream());
						}
						catch (IOException ex) {
							// the test cut it
						}
					});
					pump.setDaemon(true);
					pump.start();
				}
				catch (IOException ex) {
					return;
				}
			}
		});
		acceptor.setDaemon(true);
		acceptor.start();
		this.proxy = FaultProxy.start(this.echo.getLocalPort());
	}

	@AfterEach
	void stop() throws IOException {
		this.proxy.close();
		this.echo.close();
	}

	@Test
	void forwardsBothWaysAndCountsConnections() throws IOException {
		try (Socket socket = connect()) {
			assertThat(roundTrip(socket, "hello")).isEqualTo("hello");
		}
		assertThat(this.proxy.connectionsAccepted()).isEqualTo(1);
		assertThat(this.proxy.bytesFromServer()).isEqualTo(5);
	}

	@Test
	void cutAllResetsOpenConnections() throws IOException {
		try (Socket socket = connect()) {
			roundTrip(socket, "x");
			assertThat(this.proxy.cutAll()).isEqualTo(1);
			assertThat(readOrFail(socket)).isTrue();
		}
		assertThat(this.proxy.cuts()).isEqualTo(1);
		assertThat(this.proxy.openConnections()).isZero();
	}

	@Test
	void cutAfterBytesForwardsSomeBytesThenCuts() throws IOException {
		try (Socket socket = connect()) {
			roundTrip(socket, "x");
			this.proxy.cutAfterBytes(new Random(1), 4);
			socket.getOutputStream().write("abcdefghij".getBytes());
			socket.setSoTimeout(5000);
			InputStream in = socket.getInputStream();
			int got = 0;
			try {
				while (in.read() >= 0) {
					got++;
				}
			}
			catch (IOException ex) {
				// reset
			}
			assertThat(got).isLessThan(4);
		}
		// the proxy counts a cut once its sockets are closed, which the client may see
		// first
		org.awaitility.Awaitility.await()
			.atMost(java.time.Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.proxy.cuts()).isEqualTo(1));
	}

	@Test
	void aStalledConnectionStaysOpenAndSilent() throws IOException {
		try (Socket socket = connect()) {
			roundTrip(socket, "x");
			assertThat(this.proxy.stallAll()).isEqualTo(1);
			socket.getOutputStream().write("y".getBytes());
			socket.setSoTimeout(500);
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(() -> socket.getInputStream().read());
			assertThat(this.proxy.openConnections()).isEqualTo(1);
		}
	}

	@Test
	void closeIdleAfterClosesOnlyConnectionsIdleThatLong() throws IOException {
		this.proxy.closeIdleAfter(Duration.ofMillis(300));
		try (Socket idle = connect(); Socket busy = connect()) {
			roundTrip(idle, "x");
			long start = System.nanoTime();
			// the busy one keeps talking, well within the idle timeout, until the idle
			// one is closed
			while (this.proxy.idleCloses() == 0) {
				assertThat(roundTrip(busy, "y")).isEqualTo("y");
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
			}
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
			assertThat(readOrFail(idle)).as("closed: the client reads the end").isTrue();
			assertThat(roundTrip(busy, "z")).isEqualTo("z");
			assertThat(this.proxy.idleCloses()).isEqualTo(1);
			assertThat(this.proxy.cuts()).isZero();
		}
	}

	@Test
	void refuseClosesThePortAndResumeListensOnTheSameOne() throws IOException {
		int port = this.proxy.port();
		this.proxy.refuse();
		int accepted = this.proxy.connectionsAccepted();
		try (Socket socket = connect()) {
			// the proxy no longer listens, yet the connect may succeed: Linux may connect
			// a socket to itself when it picks the freed (ephemeral) port as the socket's
			// own, and another process may bind the freed port meanwhile (seen in full
			// runs). What counts is below
		}
		catch (ConnectException ex) {
			// refused: the usual outcome
		}
		assertThat(this.proxy.connectionsAccepted()).as("the proxy accepted nothing").isEqualTo(accepted);
		this.proxy.resume();
		assertThat(this.proxy.port()).isEqualTo(port);
		await().atMost(Duration.ofSeconds(5)).ignoreExceptions().untilAsserted(() -> {
			try (Socket socket = connect()) {
				assertThat(roundTrip(socket, "again")).isEqualTo("again");
			}
		});
	}

	private Socket connect() throws IOException {
		return new Socket(InetAddress.getLoopbackAddress(), this.proxy.port());
	}

	private static String roundTrip(Socket socket, String text) throws IOException {
		OutputStream out = socket.getOutputStream();
		out.write(text.getBytes());
		out.flush();
		socket.setSoTimeout(5000);
		byte[] buffer = socket.getInputStream().readNBytes(text.length());
		return new String(buffer);
	}

	/**
	 * @return whether reading ends (EOF or reset) rather than timing out
	 */
	private static boolean readOrFail(Socket socket) throws IOException {
		socket.setSoTimeout(5000);
		try {
			return socket.getInputStream().read() < 0;
		}
		catch (SocketTimeoutException ex) {
			return false;
		}
		catch (IOException ex) {
			return true;
		}
	}

}
