package dev.listwatch.etcd;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * gRPC's Netty transport logs every HTTP/2 frame at DEBUG, the etcd token and the
 * Authenticate request's password with them: listwatch says so when that logger is at
 * DEBUG and credentials are configured, and never quotes them.
 */
@ExtendWith(OutputCaptureExtension.class)
class GrpcFrameLoggingTests {

	private final Logger frames = (Logger) LoggerFactory.getLogger(GrpcTransport.FRAMES_LOGGER);

	@AfterEach
	void reset() {
		this.frames.setLevel(null);
	}

	private static EtcdConnection connection(String username, String password) {
		return new EtcdConnection(List.of(URI.create("http://127.0.0.1:2379")), null, username, password,
				Duration.ofSeconds(1));
	}

	@Test
	void warnsWhenTheFrameLoggerIsAtDebugAndCredentialsAreSet(CapturedOutput output) throws Exception {
		this.frames.setLevel(Level.DEBUG);
		try (Transport transport = GrpcTransport.create(connection("reader", "frame-secret"))) {
			assertThat(output).contains(GrpcTransport.FRAMES_LOGGER + " is at DEBUG").doesNotContain("frame-secret");
		}
	}

	@Test
	void saysNothingAtInfo(CapturedOutput output) throws Exception {
		this.frames.setLevel(Level.INFO);
		try (Transport transport = GrpcTransport.create(connection("reader", "frame-secret"))) {
			assertThat(output).doesNotContain(GrpcTransport.FRAMES_LOGGER);
		}
	}

}
