package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectCompressor;
import dev.listwatch.ObjectList;
import dev.listwatch.WatchEvent;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A decoder with an {@link ObjectCompressor} (a watch with {@code compress-objects})
 * decodes the same objects as one without: equal objects, equal metadata, managedFields
 * dropped alike; objects bound to another type are not affected; repeated label sets are
 * one map.
 */
class ObjectDecoderCompressionTests {

	private final ObjectDecoder<KubernetesObject> plain = new ObjectDecoder<>(KubernetesObject.class,
			JsonMapper.shared(), false);

	private final ObjectDecoder<KubernetesObject> compressing = new ObjectDecoder<>(KubernetesObject.class,
			JsonMapper.shared(), false, false, ObjectCompressor.learning());

	static String pod(int i) {
		return "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"web-" + i + "\",\"namespace\":\"ns-"
				+ (i % 3) + "\",\"uid\":\"u-" + i + "\",\"resourceVersion\":\"" + (100 + i) + "\",\"labels\":{\"app\":"
				+ "\"web\",\"shard\":\"s" + (i % 2) + "\"},\"managedFields\":[{\"manager\":\"kubectl\",\"fieldsV1\":"
				+ "{\"f:metadata\":{\"f:labels\":{}}}}]},\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":"
				+ "\"registry.example.com/web/app:1.42.7\",\"resources\":{\"requests\":{\"cpu\":\"250m\",\"memory\":"
				+ "\"256Mi\"}}}],\"nodeName\":\"worker-" + (i % 5) + "\"},\"status\":{\"phase\":\"Running\",\"podIP\":"
				+ "\"10.0.0." + i + "\"}}";
	}

	static byte[] list(int from, int count) {
		List<String> items = new ArrayList<>();
		for (int i = from; i < from + count; i++) {
			items.add(pod(i));
		}
		return ("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"999\"},\"items\":["
				+ String.join(",", items) + "]}")
			.getBytes(StandardCharsets.UTF_8);
	}

	@Test
	void listsAndEventsDecodeToEqualObjectsCompressedOrNot() {
		byte[] page = list(0, 40);
		ObjectList<KubernetesObject> expected = this.plain.decodeList(page, 0, page.length);
		ObjectList<KubernetesObject> actual = this.compressing.decodeList(page, 0, page.length);
		assertThat(actual).isEqualTo(expected);
		assertThat(this.compressing.compressesObjects()).isTrue();
		assertThat(this.plain.compressesObjects()).isFalse();
		for (int i = 0; i < 40; i++) {
			KubernetesObject object = actual.items().get(i).object();
			assertThat(object.json()).isEqualTo(expected.items().get(i).object().json())
				.doesNotContain("managedFields");
			assertThat(object.metadata()).isEqualTo(expected.items().get(i).meta());
		}
		KubernetesObject last = actual.items().get(39).object();
		assertThat(last.toString()).isEqualTo("Pod ns-0/web-39 (resourceVersion 139)");
		byte[] event = ("{\"type\":\"MODIFIED\",\"object\":" + pod(77) + "}").getBytes(StandardCharsets.UTF_8);
		WatchEvent<KubernetesObject> modified = this.compressing.decodeEvent(event, 0, event.length);
		assertThat(modified.object()).isEqualTo(this.plain.decodeEvent(event, 0, event.length).object());
		assertThat(modified.object().at("/status/podIP").asString()).isEqualTo("10.0.0.77");
	}

	@Test
	void objectsBoundToAnotherTypeAreNotAffected() {
		ObjectDecoder<Map> typed = new ObjectDecoder<>(Map.class, JsonMapper.shared(), false, false,
				ObjectCompressor.learning());
		assertThat(typed.compressesObjects()).isFalse();
		byte[] page = list(0, 20);
		assertThat(typed.decodeList(page, 0, page.length).items().get(19).object())
			.isEqualTo(new ObjectDecoder<>(Map.class, JsonMapper.shared(), false).decodeList(page, 0, page.length)
				.items()
				.get(19)
				.object());
	}

	@Test
	void repeatedLabelSetsAreOneMap() {
		byte[] page = list(0, 10);
		ObjectList<KubernetesObject> decoded = this.compressing.decodeList(page, 0, page.length);
		assertThat(decoded.items().get(0).meta().labels()).isEqualTo(Map.of("app", "web", "shard", "s0"))
			.isSameAs(decoded.items().get(2).meta().labels())
			.isNotSameAs(decoded.items().get(1).meta().labels());
	}

}
