package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import dev.listwatch.ObjectMeta;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class ObjectScanTests {

	private final Interner interner = new Interner();

	@Test
	void readsTheEnvelopeAndMetadataAndSkipsTheRest() {
		ObjectScan scan = scan("{\"spec\":{\"name\":\"not-this\"},\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
				+ "{\"name\":\"web-1\",\"namespace\":\"shop\",\"uid\":\"u-1\",\"resourceVersion\":\"42\",\"labels\":"
				+ "{\"app\":\"web\",\"bad\":1},\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}", false);
		assertThat(scan.apiVersion).isEqualTo("v1");
		assertThat(scan.kind).isEqualTo("Pod");
		assertThat(scan.meta()).isEqualTo(new ObjectMeta("shop", "web-1", "u-1", "42", Map.of("app", "web")));
		assertThat(scan.metadataKnown()).isTrue();
		// annotations are read only when asked (a bookmark's)
		assertThat(scan.initialEventsEnd).isFalse();
		assertThat(scan("{\"metadata\":{\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}",
				true).initialEventsEnd)
			.isTrue();
	}

	@Test
	void metadataCutInsideManagedFieldsIsKnownWithNameAndResourceVersionBeforeIt() {
		String head = "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\",\"managedFields\":[{\"manager\":";
		assertThat(scanCut(head).metadataKnown()).isTrue();
		assertThat(scanCut(head.replace("\"name\":\"a\",", "")).metadataKnown()).isFalse();
		assertThat(scanCut("{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\",\"labels\":{").metadataKnown())
			.isFalse();
	}

	@Test
	void copiesTheBytesWithoutManagedFieldsWhereverTheyStand() {
		assertThat(bytes("{\"metadata\":{\"name\":\"a\",\"managedFields\":[{}],\"uid\":\"u\"}}", false))
			.isEqualTo("{\"metadata\":{\"name\":\"a\",\"uid\":\"u\"}}");
		assertThat(bytes("{\"metadata\":{\"name\":\"a\" , \"managedFields\":[{}]}}", false))
			.isEqualTo("{\"metadata\":{\"name\":\"a\" }}");
		assertThat(bytes("{\"metadata\":{\"managedFields\":[{}] ,\"name\":\"a\"}}", false))
			.isEqualTo("{\"metadata\":{\"name\":\"a\"}}");
		assertThat(bytes("{\"metadata\":{\"managedFields\":[]}}", false)).isEqualTo("{\"metadata\":{}}");
		assertThat(bytes("{\"metadata\":{\"managedFields\":[]}}", true))
			.isEqualTo("{\"metadata\":{\"managedFields\":[]}}");
	}

	@Test
	void sharesNamespacesLabelsAndLabelSetsThroughTheInterner() {
		String json = "{\"metadata\":{\"namespace\":\"shop\",\"labels\":{\"app\":\"web\"}}}";
		ObjectMeta a = scan(json, false).meta();
		ObjectMeta b = scan(json, false).meta();
		assertThat(b.namespace()).isSameAs(a.namespace());
		assertThat(b.labels()).isSameAs(a.labels());
	}

	private ObjectScan scan(String json, boolean readAnnotations) {
		byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
		ObjectScan scan = new ObjectScan(this.interner);
		scan.readAnnotations = readAnnotations;
		JsonScanner scanner = new JsonScanner(bytes, 0, bytes.length);
		scan.readObject(scanner);
		scan.end = scanner.position();
		return scan;
	}

	private ObjectScan scanCut(String head) {
		byte[] bytes = head.getBytes(StandardCharsets.UTF_8);
		ObjectScan scan = new ObjectScan(this.interner);
		assertThatExceptionOfType(JsonScanner.Incomplete.class)
			.isThrownBy(() -> scan.readObject(new JsonScanner(bytes, 0, bytes.length)));
		return scan;
	}

	private String bytes(String json, boolean keepManagedFields) {
		byte[] bytes = ("xx" + json).getBytes(StandardCharsets.UTF_8);
		ObjectScan scan = new ObjectScan(this.interner);
		JsonScanner scanner = new JsonScanner(bytes, 2, bytes.length - 2);
		scan.readObject(scanner);
		scan.end = scanner.position() - 2;
		return new String(scan.bytes(bytes, 2, keepManagedFields), StandardCharsets.UTF_8);
	}

}
