package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.listwatch.ObjectList;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An object that does not bind to the watch's Java type is handed up as an
 * {@link UnbindableObject}: where binding failed and why, never the value (Jackson's
 * messages quote it, and a typed watch of Secrets would leak them).
 */
@ExtendWith(OutputCaptureExtension.class)
class ObjectDecoderBindTests {

	private static final String SECRET = "s3cr3t-value";

	@Test
	void aValueAnEnumCannotTakeIsReportedByPathWithoutTheValue(CapturedOutput output) {
		WatchEvent<Tuned> event = event(Tuned.class, thing("a", "7", "{\"mode\":\"" + SECRET + "\"}"));
		assertThat(event.type()).isEqualTo(WatchEvent.Type.MODIFIED);
		assertThat(event.object()).isNull();
		assertThat(event.meta().key()).isEqualTo("ns/a");
		UnbindableObject unbindable = event.unbindable();
		assertThat(unbindable.meta()).isEqualTo(event.meta());
		assertThat(unbindable.path()).isEqualTo("/spec/mode");
		assertThat(unbindable.targetType()).isEqualTo(Tuned.class.getName());
		assertThat(unbindable.reason()).isEqualTo("not a valid value of Mode");
		assertThat(unbindable).hasToString("ns/a (resourceVersion 7) does not bind to " + Tuned.class.getName()
				+ " at /spec/mode: not a valid value of Mode");
		assertNoSecret(event.toString(), unbindable.toString(), unbindable.reason(), unbindable.path(),
				output.getAll());
	}

	@Test
	void theListKeepsAnItemThatDoesNotBindAsUnbindableWithItsMetadata(CapturedOutput output) {
		byte[] list = list(thing("a", "5", "{\"mode\":\"FAST\"}"), thing("b", "6", "{\"mode\":\"" + SECRET + "\"}"),
				thing("c", "7", "{\"mode\":\"SLOW\"}"));
		ObjectList<Tuned> page = decoder(Tuned.class).decodeList(list, 0, list.length);
		assertThat(page.objects()).extracting((t) -> t.spec().mode()).containsExactly(Mode.FAST, Mode.SLOW);
		assertThat(page.items().stream().map(ObjectList.Item::meta).toList()).extracting(dev.listwatch.ObjectMeta::key)
			.containsExactly("ns/a", "ns/c");
		assertThat(page.unbindable()).singleElement().satisfies((u) -> {
			assertThat(u.key()).isEqualTo("ns/b");
			assertThat(u.meta().resourceVersion()).isEqualTo("6");
			assertThat(u.meta().uid()).isEqualTo("uid-b");
			assertThat(u.path()).isEqualTo("/spec/mode");
			assertThat(u.reason()).isEqualTo("not a valid value of Mode");
			assertThat(u.targetType()).isEqualTo(Tuned.class.getName());
		});
		assertThat(page.resourceVersion()).isEqualTo("9");
		assertNoSecret(page.toString(), page.unbindable().toString(), output.getAll());
	}

	@Test
	void pathsFollowArraysAndEscapeMapKeys(CapturedOutput output) {
		WatchEvent<Listed> listed = event(Listed.class,
				thing("a", "1", "{\"items\":[{\"name\":1},{\"name\":2},{\"name\":3},{\"name\":\"" + SECRET + "\"}]}"));
		assertThat(listed.unbindable().path()).isEqualTo("/spec/items/3/name");
		assertThat(listed.unbindable().reason()).isEqualTo("not a valid value of int");
		WatchEvent<Mapped> mapped = event(Mapped.class, thing("a", "1", "{\"a/b~c\":\"" + SECRET + "\"}"));
		assertThat(mapped.unbindable().path()).isEqualTo("/spec/a~1b~0c");
		assertThat(mapped.unbindable().reason()).isEqualTo("not a valid value of Integer");
		assertNoSecret(listed.unbindable().toString(), mapped.unbindable().toString(), output.getAll());
	}

	@Test
	void anUnknownPropertyIsNamedByPath(CapturedOutput output) {
		ObjectMapper strict = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
		ObjectDecoder<Tuned> decoder = new ObjectDecoder<>(Tuned.class, strict, false);
		WatchEvent<Tuned> event = event(decoder, thing("a", "1", "{\"mode\":\"FAST\",\"extra\":\"" + SECRET + "\"}"));
		assertThat(event.unbindable().path()).isEqualTo("/spec/extra");
		assertThat(event.unbindable().reason()).isEqualTo("unknown property");
		assertNoSecret(event.unbindable().toString(), output.getAll());
	}

	@Test
	void aValueOfTheWrongShapeNamesTheTypeItShouldHaveFitted(CapturedOutput output) {
		WatchEvent<Tuned> event = event(Tuned.class, thing("a", "1", "[\"" + SECRET + "\"]"));
		assertThat(event.unbindable().path()).isEqualTo("/spec");
		assertThat(event.unbindable().reason()).isEqualTo("a value of the wrong shape for Spec");
		assertNoSecret(event.unbindable().toString(), output.getAll());
	}

	@Test
	void anyOtherFailureIsNamedByItsTypeOnly(CapturedOutput output) {
		WatchEvent<Refusing> event = event(Refusing.class, thing("a", "1", "{\"mode\":\"" + SECRET + "\"}"));
		assertThat(event.unbindable().reason()).isEqualTo("ValueInstantiationException");
		// the constructor refused the object as a whole
		assertThat(event.unbindable().path()).isEmpty();
		assertNoSecret(event.unbindable().toString(), output.getAll());
	}

	private static void assertNoSecret(String... texts) {
		for (String text : texts) {
			assertThat(text).doesNotContain(SECRET);
		}
	}

	private static <T> ObjectDecoder<T> decoder(Class<T> type) {
		return new ObjectDecoder<>(type, JsonMapper.shared(), false);
	}

	private static <T> WatchEvent<T> event(Class<T> type, String object) {
		return event(decoder(type), object);
	}

	private static <T> WatchEvent<T> event(ObjectDecoder<T> decoder, String object) {
		byte[] bytes = ("{\"type\":\"MODIFIED\",\"object\":" + object + "}").getBytes(StandardCharsets.UTF_8);
		return decoder.decodeEvent(bytes, 0, bytes.length);
	}

	static String thing(String name, String resourceVersion, String spec) {
		return "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Thing\",\"metadata\":{\"name\":\"" + name
				+ "\",\"namespace\":\"ns\",\"uid\":\"uid-" + name + "\",\"resourceVersion\":\"" + resourceVersion
				+ "\"},\"spec\":" + spec + "}";
	}

	private static byte[] list(String... items) {
		return ("{\"kind\":\"ThingList\",\"apiVersion\":\"example.com/v1\",\"metadata\":{\"resourceVersion\":\"9\"},"
				+ "\"items\":[" + String.join(",", items) + "]}")
			.getBytes(StandardCharsets.UTF_8);
	}

	enum Mode {

		FAST, SLOW

	}

	record Spec(Mode mode) {
	}

	record Tuned(String apiVersion, String kind, Map<String, Object> metadata, Spec spec) {
	}

	record Item(int name) {
	}

	record ItemsSpec(List<Item> items) {
	}

	record Listed(ItemsSpec spec) {
	}

	record Mapped(Map<String, Integer> spec) {
	}

	record Refusing(Map<String, String> spec) {

		Refusing {
			throw new IllegalArgumentException("refused " + spec);
		}

	}

}
