package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.Resource;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static dev.listwatch.client.HttpWatchStreamTests.configMap;
import static dev.listwatch.client.HttpWatchStreamTests.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A metadata-only lister-watcher asks for {@code PartialObjectMetadataList} (lists) and
 * {@code PartialObjectMetadata} (watches, streaming lists included) and nothing else,
 * holds what the server answers as it is, and fails as DECODE when the server sends whole
 * objects anyway.
 */
class MetadataOnlyRequestTests {

	private static final String PATH = "/api/v1/namespaces/ns/secrets";

	private static final Resource SECRETS = new Resource("", "v1", "secrets", "Secret", true, "ns");

	private static final ApiServerClient.Decoding METADATA_ONLY = ApiServerClient.Decoding.DEFAULTS
		.withMetadataOnly(true);

	private final TestApiServer server = new TestApiServer();

	@AfterEach
	void close() {
		this.server.close();
	}

	@Test
	void aListAsksForPartialObjectMetadataListOnlyAndHoldsTheMetadata() {
		this.server.on(PATH,
				"{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\","
						+ "\"metadata\":{\"resourceVersion\":\"20\"},\"items\":["
						+ partial("a", 10, "{\"app\":\"web\"}") + "," + partial("b", 11, "{}") + "]}");
		ObjectList<KubernetesObject> page = lw(METADATA_ONLY).list(ListOptions.none().withLimit(500L));
		assertThat(this.server.accepts())
			.containsExactly("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
		assertThat(page.resourceVersion()).isEqualTo("20");
		assertThat(page.objects()).extracting(KubernetesObject::name).containsExactly("a", "b");
		KubernetesObject a = page.objects().get(0);
		assertThat(a.kind()).isEqualTo("PartialObjectMetadata");
		assertThat(a.apiVersion()).isEqualTo("meta.k8s.io/v1");
		assertThat(a.labels()).containsEntry("app", "web");
		assertThat(a.key()).isEqualTo("ns/a");
		assertThat(a.toTree().propertyNames()).containsExactlyInAnyOrder("kind", "apiVersion", "metadata");
		// managedFields dropped as for whole objects
		assertThat(a.toTree().path("metadata").has("managedFields")).isFalse();
		assertThat(a.toTree().path("metadata").path("ownerReferences").get(0).path("name").asString())
			.isEqualTo("owner");
	}

	@Test
	void watchesAndStreamingListsAskForPartialObjectMetadataOnly() throws Exception {
		this.server.on(PATH,
				event("ADDED", partial("a", 10, "{}")) + event("MODIFIED", partial("a", 12, "{\"v\":\"2\"}"))
						+ event("BOOKMARK",
								"{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
										+ "\"metadata\":{\"resourceVersion\":\"13\",\"annotations\":"
										+ "{\"k8s.io/initial-events-end\":\"true\"}}}")
						+ event("DELETED", partial("a", 14, "{\"v\":\"2\"}")));
		List<WatchEvent<KubernetesObject>> events = new ArrayList<>();
		try (WatchStream<KubernetesObject> watch = lw(METADATA_ONLY).watch(ListOptions.none()
			.withSendInitialEvents(true)
			.withResourceVersionMatch(ListOptions.NOT_OLDER_THAN)
			.withAllowWatchBookmarks(true))) {
			watch.forEachRemaining(events::add);
		}
		assertThat(this.server.accepts())
			.containsExactly("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
		assertThat(this.server.requests()).singleElement().asString().contains("sendInitialEvents=true");
		assertThat(events).extracting(WatchEvent::type)
			.containsExactly(WatchEvent.Type.ADDED, WatchEvent.Type.MODIFIED, WatchEvent.Type.BOOKMARK,
					WatchEvent.Type.DELETED);
		assertThat(events.get(1).object().labels()).containsEntry("v", "2");
		assertThat(events.get(2).initialEventsEnd()).isTrue();
		assertThat(events.get(2).resourceVersion()).isEqualTo("13");
		assertThat(events.get(3).object().resourceVersion()).isEqualTo("14");
	}

	@Test
	void aListerWatcherFoundThroughDiscoveryAsksForMetadataOnlyToo() {
		this.server.on("/api/v1", "{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\",\"resources\":["
				+ "{\"name\":\"secrets\",\"namespaced\":true,\"kind\":\"Secret\"}]}");
		this.server.on(PATH, "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\","
				+ "\"metadata\":{\"resourceVersion\":\"20\"},\"items\":[" + partial("a", 10, "{}") + "]}");
		ListerWatcher<KubernetesObject> secrets = this.server.client(Clock.systemUTC())
			.listerWatcher(new ApiServerClient.Target("v1", "Secret", null, "ns"), KubernetesObject.class,
					METADATA_ONLY);
		assertThat(secrets).hasToString("ListerWatcher[Secret.v1 in ns, metadata only]");
		assertThat(secrets.list(ListOptions.none()).objects()).singleElement()
			.extracting(KubernetesObject::kind)
			.isEqualTo("PartialObjectMetadata");
		// discovery asks for plain JSON, the list for metadata only
		assertThat(this.server.accepts()).containsExactly("application/json",
				"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
	}

	@Test
	void withoutMetadataOnlyListsAndWatchesAskForPlainJson() throws Exception {
		this.server.on(PATH, "{\"kind\":\"SecretList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"20\"},"
				+ "\"items\":[]}");
		ListerWatcher<KubernetesObject> secrets = lw(ApiServerClient.Decoding.DEFAULTS);
		assertThat(secrets).hasToString("ListerWatcher[secrets.v1 in ns]");
		secrets.list(ListOptions.none());
		this.server.on(PATH, event("ADDED", configMap("a", 10, "1")));
		try (WatchStream<KubernetesObject> watch = secrets.watch(ListOptions.none())) {
			assertThat(watch.next().object().kind()).isEqualTo("ConfigMap");
		}
		assertThat(this.server.accepts()).containsExactly("application/json", "application/json");
	}

	@Test
	void wholeObjectsWhereMetadataWasAskedForFailAsDecodeWithoutTheirValues() {
		// a server (or a proxy) that ignores the Accept header: the bodies must not be
		// cached
		this.server.on(PATH, "{\"kind\":\"SecretList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"20\"},"
				+ "\"items\":[" + secret("a", "aHVudGVyMg==") + "]}");
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> lw(METADATA_ONLY).list(ListOptions.none()))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.DECODE))
			.withMessageContaining("the list is a SecretList, not a PartialObjectMetadataList as a metadata-only "
					+ "list-watch asks: the server does not serve this resource's metadata alone")
			.withMessageNotContaining("aHVudGVyMg==");
		this.server.on(PATH, event("ADDED", partial("a", 10, "{}")) + event("MODIFIED", secret("a", "aHVudGVyMg==")));
		try (WatchStream<KubernetesObject> watch = lw(METADATA_ONLY).watch(ListOptions.none())) {
			assertThat(watch.next().type()).isEqualTo(WatchEvent.Type.ADDED);
			assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(watch::hasNext)
				.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.DECODE))
				.withMessageContaining("a MODIFIED watch event's object is a Secret, not a PartialObjectMetadata")
				.withMessageNotContaining("aHVudGVyMg==");
		}
	}

	@Test
	void aServerThatCannotServeMetadataAloneAnswersNotAcceptable() {
		this.server.on(PATH, (exchange) -> TestApiServer.respond(exchange, 406,
				("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"NotAcceptable\","
						+ "\"code\":406,\"message\":\"only the following media types are accepted: application/json\"}")
					.getBytes(StandardCharsets.UTF_8)));
		assertThatExceptionOfType(KubernetesApiException.class)
			.isThrownBy(() -> lw(METADATA_ONLY).list(ListOptions.none()))
			.satisfies((ex) -> {
				assertThat(ex.kind()).isEqualTo(Kind.OTHER);
				assertThat(ex.status().code()).isEqualTo(406);
				assertThat(ex.status().reason()).isEqualTo("NotAcceptable");
			});
	}

	@Test
	void decodingRefusesANonPositiveSizeLimit() {
		assertThatIllegalArgumentException().isThrownBy(() -> ApiServerClient.Decoding.DEFAULTS.withMaxEventBytes(0))
			.withMessage("maxEventBytes must be at least 1, not 0");
		assertThat(ApiServerClient.Decoding.DEFAULTS)
			.isEqualTo(new ApiServerClient.Decoding(false, false, ApiServerClient.DEFAULT_MAX_EVENT_BYTES));
	}

	private ListerWatcher<KubernetesObject> lw(ApiServerClient.Decoding decoding) {
		return this.server.client(Clock.systemUTC()).listerWatcher(SECRETS, KubernetesObject.class, decoding);
	}

	/** A PartialObjectMetadata as the API server writes it, managedFields included. */
	static String partial(String name, long resourceVersion, String labels) {
		return "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{\"name\":\"" + name
				+ "\",\"namespace\":\"ns\",\"uid\":\"uid-" + name + "\",\"resourceVersion\":\"" + resourceVersion
				+ "\",\"labels\":" + labels + ",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
				+ "\"name\":\"owner\",\"uid\":\"uid-owner\"}],\"managedFields\":[{\"manager\":\"kubectl-create\","
				+ "\"operation\":\"Update\",\"fieldsV1\":{\"f:data\":{\"f:pw\":{}}}}]}}";
	}

	private static String secret(String name, String value) {
		return "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"" + name
				+ "\",\"namespace\":\"ns\",\"resourceVersion\":\"11\"},\"data\":{\"pw\":\"" + value + "\"}}";
	}

}
