package dev.listwatch.client;

import java.nio.charset.StandardCharsets;

import dev.listwatch.Status;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StatusDecoderTests {

	@Test
	void readsCodeReasonAndMessageSkippingTheRest() {
		assertThat(decode("xx{\"kind\":\"Status\",\"details\":{\"causes\":[{\"reason\":\"inner\"}]},\"code\":410,"
				+ "\"reason\":\"Expired\",\"message\":\"too old\"}yy"))
			.isEqualTo(new Status(410, "Expired", "too old"));
	}

	@Test
	void isLenientAboutMembersOfTheWrongType() {
		assertThat(decode("xx{\"code\":\"410\",\"reason\":7,\"message\":null}yy")).isEqualTo(new Status(0, null, null));
		assertThat(decode("xx{}yy")).isEqualTo(new Status(0, null, null));
	}

	@Test
	void isNullForWhatIsNotAJsonObject() {
		assertThat(decode("xx[1]yy")).isNull();
		assertThat(decode("xxnot jsonyy")).isNull();
		assertThat(decode("xx{\"code\":410,yy")).isNull();
		assertThat(decode("xxyy")).isNull();
	}

	/** Decodes the bytes between a leading "xx" and a trailing "yy". */
	private static Status decode(String text) {
		byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
		return StatusDecoder.decode(bytes, 2, bytes.length - 4);
	}

}
