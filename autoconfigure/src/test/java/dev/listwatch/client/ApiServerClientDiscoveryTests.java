package dev.listwatch.client;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.Resource;
import dev.listwatch.testsupport.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * API discovery: cached per group/version, discovered again on a miss (a CRD installed
 * after start) at most once per 10 seconds, and never fetched while holding a lock.
 */
class ApiServerClientDiscoveryTests {

	private static final String WIDGETS = "{\"name\":\"widgets\",\"namespaced\":true,\"kind\":\"Widget\"}";

	private static final String GADGETS = "{\"name\":\"gadgets\",\"namespaced\":false,\"kind\":\"Gadget\"}";

	private final TestApiServer server = new TestApiServer();

	private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

	@AfterEach
	void close() {
		this.server.close();
	}

	@Test
	void aKindInstalledAfterStartIsFoundOnceTheGroupVersionIsDiscoveredAgain() {
		this.server.on("/apis/example.com/v1", discovery("example.com/v1", GADGETS));
		ApiServerClient client = this.server.client(this.clock);
		assertThat(client.resolve("example.com/v1", "Gadget", null, "ns").namespace()).isNull();
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> client.resolve("example.com/v1", "Widget", null, "ns"))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.NOT_FOUND))
			.withMessageContaining("kind 'Widget'")
			.withMessageContaining("Gadget (gadgets)");
		// the list was fetched a moment ago: a miss does not fetch it again at once
		assertThat(this.server.requests("/apis/example.com/v1")).isEqualTo(1);
		this.server.on("/apis/example.com/v1", discovery("example.com/v1", GADGETS, WIDGETS));
		this.clock.advance(Duration.ofSeconds(9));
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> client.resolve("example.com/v1", "Widget", null, "ns"));
		assertThat(this.server.requests("/apis/example.com/v1")).isEqualTo(1);
		this.clock.advance(Duration.ofSeconds(1));
		Resource widgets = client.resolve("example.com/v1", "Widget", null, "ns");
		assertThat(widgets).isEqualTo(new Resource("example.com", "v1", "widgets", "Widget", true, "ns"));
		assertThat(this.server.requests("/apis/example.com/v1")).isEqualTo(2);
		// a hit needs no request
		assertThat(client.resolve("example.com/v1", null, "widgets", null).kind()).isEqualTo("Widget");
		assertThat(this.server.requests("/apis/example.com/v1")).isEqualTo(2);
	}

	@Test
	void aTypoIsLookedUpAgainAtMostOnceEveryTenSeconds() {
		this.server.on("/api/v1",
				discovery("v1", "{\"name\":\"configmaps\",\"namespaced\":true,\"kind\":\"ConfigMap\"}"));
		ApiServerClient client = this.server.client(this.clock);
		for (int second = 0; second < 30; second++) {
			for (int i = 0; i < 5; i++) {
				assertThatExceptionOfType(KubernetesApiException.class)
					.isThrownBy(() -> client.resolve("v1", "ConfigMapz", null, null))
					.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.NOT_FOUND));
			}
			this.clock.advance(Duration.ofSeconds(1));
		}
		// the first fetch, then one every ten seconds
		assertThat(this.server.requests("/api/v1")).isEqualTo(3);
	}

	@Test
	void aGroupVersionBeingDiscoveredHoldsUpNoOther() throws Exception {
		// two group/versions whose keys fall into the same bin of a hash map: a discovery
		// inside the map's lock would hold up the other one
		String slow = "slow.example.com/v1";
		String other = collidingWith(slow);
		CountDownLatch arrived = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		this.server.on("/apis/" + slow, (exchange) -> {
			arrived.countDown();
			try {
				release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			TestApiServer.respond(exchange, 200, discovery(slow, WIDGETS).getBytes());
		});
		this.server.on("/apis/" + other, discovery(other, GADGETS));
		ApiServerClient client = this.server.client(this.clock);
		CompletableFuture<Resource> slowWidgets = CompletableFuture
			.supplyAsync(() -> client.resolve(slow, "Widget", null, null));
		try {
			assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<Resource> gadgets = CompletableFuture
				.supplyAsync(() -> client.resolve(other, "Gadget", null, null));
			assertThat(gadgets.get(10, TimeUnit.SECONDS).plural()).isEqualTo("gadgets");
			assertThat(slowWidgets).isNotDone();
		}
		finally {
			release.countDown();
		}
		assertThat(slowWidgets.get(10, TimeUnit.SECONDS).plural()).isEqualTo("widgets");
	}

	@Test
	void aDiscoverySentAheadIsSentAtOnceAndIsTheOneTheNextResolveTakes() throws Exception {
		CountDownLatch arrived = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		this.server.on("/apis/example.com/v1", (exchange) -> {
			arrived.countDown();
			try {
				release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			TestApiServer.respond(exchange, 200, discovery("example.com/v1", WIDGETS, GADGETS).getBytes());
		});
		ApiServerClient client = this.server.client(this.clock);
		client.discoverAhead(List.of("example.com/v1"));
		// sent without a resolve, and discoverAhead did not wait for it
		assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Resource> widgets = CompletableFuture
			.supplyAsync(() -> client.resolve("example.com/v1", "Widget", null, "ns"));
		CompletableFuture<Resource> gadgets = CompletableFuture
			.supplyAsync(() -> client.resolve("example.com/v1", null, "gadgets", null));
		release.countDown();
		assertThat(widgets.get(10, TimeUnit.SECONDS))
			.isEqualTo(new Resource("example.com", "v1", "widgets", "Widget", true, "ns"));
		assertThat(gadgets.get(10, TimeUnit.SECONDS).kind()).isEqualTo("Gadget");
		assertThat(this.server.requests("/apis/example.com/v1")).as("one request, the one sent ahead").isEqualTo(1);
		client.discoverAhead(List.of("example.com/v1"));
		assertThat(client.resolve("example.com/v1", "Widget", null, null).plural()).isEqualTo("widgets");
		assertThat(this.server.requests("/apis/example.com/v1")).as("discovered already: not sent again").isEqualTo(1);
	}

	@Test
	void theFailureOfADiscoverySentAheadIsThrownToTheResolveThatTakesItAndTheNextOneSendsItsOwn() {
		this.server.on("/apis/example.com/v1",
				(exchange) -> TestApiServer.respond(exchange, 403,
						("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Forbidden\","
								+ "\"code\":403,\"message\":\"no discovery for you\"}")
							.getBytes()));
		ApiServerClient client = this.server.client(this.clock);
		client.discoverAhead(List.of("example.com/v1"));
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> client.resolve("example.com/v1", "Widget", null, null))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.FORBIDDEN))
			.withMessageContaining("no discovery for you");
		assertThat(this.server.requests("/apis/example.com/v1")).isEqualTo(1);
		this.server.on("/apis/example.com/v1", discovery("example.com/v1", WIDGETS));
		assertThat(client.resolve("example.com/v1", "Widget", null, null).plural()).isEqualTo("widgets");
		assertThat(this.server.requests("/apis/example.com/v1")).isEqualTo(2);
	}

	@Test
	void discoveringAheadLeavesOutWhatIsDiscoveredAlreadyAndSendsTheRestInTheOrderGiven() {
		this.server.on("/apis/example.com/v1", discovery("example.com/v1", WIDGETS));
		this.server.on("/apis/other.example.com/v1", discovery("other.example.com/v1", GADGETS));
		ApiServerClient client = this.server.client(this.clock);
		assertThat(client.resolve("example.com/v1", "Widget", null, null).plural()).isEqualTo("widgets");
		client.discoverAhead(List.of("example.com/v1", "other.example.com/v1"));
		assertThat(client.resolve("other.example.com/v1", "Gadget", null, null).plural()).isEqualTo("gadgets");
		// one thread sends them in the order given: had example.com/v1 been sent again,
		// it would have been before other.example.com/v1's
		assertThat(this.server.requests()).containsExactly("/apis/example.com/v1", "/apis/other.example.com/v1");
	}

	/**
	 * A group/version whose key's hash falls into the same bin as {@code key}'s in tables
	 * of up to 256 bins.
	 */
	private static String collidingWith(String key) {
		for (int i = 0;; i++) {
			String candidate = "g" + i + ".example.com/v1";
			if ((spread(candidate.hashCode()) & 0xff) == (spread(key.hashCode()) & 0xff)) {
				return candidate;
			}
		}
	}

	/** As {@code ConcurrentHashMap} spreads a hash. */
	private static int spread(int h) {
		return (h ^ (h >>> 16)) & 0x7fffffff;
	}

	private static String discovery(String groupVersion, String... resources) {
		return "{\"kind\":\"APIResourceList\",\"groupVersion\":\"" + groupVersion + "\",\"resources\":["
				+ String.join(",", resources) + "]}";
	}

}
