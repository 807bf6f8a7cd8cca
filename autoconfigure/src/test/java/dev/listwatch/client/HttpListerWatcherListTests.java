package dev.listwatch.client;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Resource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static dev.listwatch.client.HttpWatchStreamTests.configMap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A LIST is decoded as it streams in, item by item, never held whole; the size limit
 * holds for each item, and an item over it is handed up as an object that cannot be held.
 */
class HttpListerWatcherListTests {

	private static final String PATH = "/api/v1/namespaces/ns/configmaps";

	private static final Resource CONFIG_MAPS = new Resource("", "v1", "configmaps", "ConfigMap", true, "ns");

	/** Counted down when a {@link Probe} is bound. */
	private static volatile CountDownLatch bound = new CountDownLatch(1);

	private final TestApiServer server = new TestApiServer();

	@AfterEach
	void close() {
		this.server.close();
	}

	@Test
	void itemsAreDecodedAsTheyArriveWithTheListsMetadataAfterThem() {
		bound = new CountDownLatch(1);
		List<String> first = new ArrayList<>();
		List<String> rest = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			(i < 3 ? first : rest).add(configMap("cm-" + i, 100 + i, "v".repeat(i)));
		}
		CountDownLatch waited = new CountDownLatch(1);
		this.server.on(PATH, (exchange) -> {
			exchange.getResponseHeaders().set("Content-Type", "application/json");
			exchange.sendResponseHeaders(200, 0);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(("{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"items\":[" + String.join(",", first)
						+ ",")
					.getBytes(StandardCharsets.UTF_8));
				out.flush();
				// the rest only once the client has bound an item: a client that reads
				// the whole body first waits in vain (and then gets a truncated list)
				if (await(bound)) {
					waited.countDown();
					out.write((String.join(",", rest) + "],\"metadata\":{\"resourceVersion\":\"300\",\"continue\":"
							+ "\"next\",\"remainingItemCount\":7}}")
						.getBytes(StandardCharsets.UTF_8));
				}
			}
		});
		ListerWatcher<Probe> configMaps = this.server.client(Clock.systemUTC())
			.listerWatcher(CONFIG_MAPS, Probe.class, ApiServerClient.Decoding.DEFAULTS.withMaxEventBytes(1 << 20));
		ObjectList<Probe> page = configMaps.list(ListOptions.none().withLimit(500L));
		assertThat(waited.getCount()).isZero();
		assertThat(page.objects()).hasSize(200);
		assertThat(page.items().stream().map(ObjectList.Item::meta).toList()).extracting(ObjectMeta::name)
			.startsWith("cm-0", "cm-1")
			.endsWith("cm-199");
		assertThat(page.resourceVersion()).isEqualTo("300");
		assertThat(page.continueToken()).isEqualTo("next");
		assertThat(page.remainingItemCount()).isEqualTo(7);
		assertThat(page.unbindable()).isEmpty();
	}

	@Test
	void anItemOverTheLimitIsHandedUpByItsMetadataAndTheOthersAreKept() {
		String big = configMap("big", 11, "x{\\\"}[".repeat(20_000));
		this.server.on(PATH, list(configMap("a", 10, "1"), big, configMap("c", 12, "3")));
		ObjectList<KubernetesObject> page = list(4096);
		assertThat(page.objects()).extracting(KubernetesObject::name).containsExactly("a", "c");
		assertThat(page.items().stream().map(ObjectList.Item::meta).toList()).extracting(ObjectMeta::key)
			.containsExactly("ns/a", "ns/c");
		assertThat(page.unbindable()).singleElement().satisfies((u) -> {
			assertThat(u.key()).isEqualTo("ns/big");
			assertThat(u.meta().resourceVersion()).isEqualTo("11");
			assertThat(u.path()).isEmpty();
			assertThat(u.reason()).isEqualTo("larger than max-event-size (4096 bytes)");
			assertThat(u.targetType()).isEqualTo(KubernetesObject.class.getName());
		});
		assertThat(page.resourceVersion()).isEqualTo("20");
	}

	@Test
	void anItemOverTheLimitWithoutItsMetadataFailsTheList() {
		String late = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"v\":\"" + "x".repeat(10_000)
				+ "\"},\"metadata\":{\"name\":\"late\",\"namespace\":\"ns\",\"resourceVersion\":\"11\"}}";
		this.server.on(PATH, list(configMap("a", 10, "1"), late));
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> list(4096))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.DECODE))
			.withMessageStartingWith("GET " + PATH)
			.withMessageContaining("A list item is larger than the limit of 4096 bytes");
	}

	@Test
	void aListThatEndsEarlyIsADroppedConnectionAndNotAListIsDecode() {
		this.server.on(PATH, list(configMap("a", 10, "1")).substring(0, 120));
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> list(1 << 20))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.CONNECTION))
			.withMessageContaining("the stream ended inside a list")
			.withMessageContaining("truncated");
		this.server.on(PATH, configMap("a", 10, "1"));
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> list(1 << 20))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.DECODE))
			.withMessageContaining("expected a list with \"items\" but got a ConfigMap");
		this.server.on(PATH, list(configMap("a", 10, "1")) + " {}");
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> list(1 << 20))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.DECODE))
			.withMessageContaining("expected the end after the list");
	}

	@Test
	void anErrorStatusIsTyped() {
		this.server.on(PATH,
				(exchange) -> TestApiServer.respond(exchange, 410,
						"{\"kind\":\"Status\",\"reason\":\"Expired\",\"message\":\"too old\",\"code\":410}"
							.getBytes(StandardCharsets.UTF_8)));
		assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> list(1 << 20))
			.satisfies((ex) -> assertThat(ex.isGone()).isTrue());
	}

	private ObjectList<KubernetesObject> list(int maxEventBytes) {
		return this.server.client(Clock.systemUTC())
			.listerWatcher(CONFIG_MAPS, KubernetesObject.class,
					ApiServerClient.Decoding.DEFAULTS.withMaxEventBytes(maxEventBytes))
			.list(ListOptions.none());
	}

	private static String list(String... items) {
		return "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"20\"},\"items\":["
				+ String.join(",", items) + "]}";
	}

	private static boolean await(CountDownLatch latch) throws IOException {
		try {
			return latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException(ex);
		}
	}

	/** A ConfigMap as a Java type that says when one was bound. */
	record Probe(String kind, Map<String, Object> metadata, Map<String, String> data) {

		Probe {
			bound.countDown();
		}

	}

}
