package dev.listwatch.etcd;

import java.nio.charset.StandardCharsets;

import dev.listwatch.KubernetesObject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * managedFields are cut out of a value's bytes (no tree): wherever they stand among
 * metadata's members, with any whitespace, what is left is the value without them, and
 * the rest of the bytes as stored.
 */
class ValueDecoderTests {

	private final JsonMapper mapper = JsonMapper.shared();

	@ParameterizedTest
	@ValueSource(strings = {
			"{\"metadata\":{\"name\":\"a\",\"managedFields\":[{\"m\":{\"x\":[1,2]}}],\"uid\":\"u\"},\"spec\":{}}",
			"{\"metadata\":{\"managedFields\":[{\"m\":1}],\"name\":\"a\"},\"spec\":{}}",
			"{\"metadata\":{\"name\":\"a\",\"managedFields\":[]},\"spec\":{}}",
			"{\"metadata\":{\"managedFields\":[{\"m\":\"],\\\"\"}]},\"spec\":{}}",
			"{ \"metadata\" : { \"name\" : \"a\" ,\n  \"managedFields\" : [ { } ] \n , \"uid\":\"u\" } }",
			"{\"metadata\":{\"name\":\"a\" , \"managedFields\" : [ ] } }",
			"{\"metadata\":{\"name\":\"\u00e9t\u00e9\",\"labels\":{\"k\":\"\u00fc\"},\"managedFields\":[{}]},\"z\":\"\u2603\"}" })
	void managedFieldsAreCutOutOfTheBytes(String json) {
		JsonNode original = this.mapper.readTree(json);
		String name = original.path("metadata").path("name").asString("a");
		ValueDecoder<KubernetesObject> decoder = new ValueDecoder<>("/p/", KubernetesObject.class, this.mapper, false,
				1 << 20);
		ValueDecoder.Decoded<KubernetesObject> decoded = decoder.decode("/p/" + name,
				json.getBytes(StandardCharsets.UTF_8), 7);
		assertThat(decoded.unbindable()).isNull();
		String kept = decoded.item().object().json();
		ObjectNode expected = (ObjectNode) original.deepCopy();
		((ObjectNode) expected.get("metadata")).remove("managedFields");
		assertThat(this.mapper.readTree(kept)).isEqualTo(expected);
		assertThat(kept).doesNotContain("managedFields");
		// the bytes around it as stored
		assertThat(kept).startsWith(json.substring(0, json.indexOf("metadata")));
	}

	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void theyAreKeptWhenAskedFor(boolean keep) {
		String json = "{\"metadata\":{\"name\":\"a\",\"managedFields\":[{}]}}";
		ValueDecoder<KubernetesObject> decoder = new ValueDecoder<>("/p/", KubernetesObject.class, this.mapper, keep,
				1 << 20);
		String kept = decoder.decode("/p/a", json.getBytes(StandardCharsets.UTF_8), 7).item().object().json();
		assertThat(kept.contains("managedFields")).isEqualTo(keep);
	}

}
