package dev.listwatch.faults;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListerWatcher;
import dev.listwatch.WatchStatus;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.client.ApiServerClient;
import dev.listwatch.event.ResourceEvent;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import dev.listwatch.testsupport.scripted.ScriptedApiServer;
import dev.listwatch.testsupport.scripted.ScriptedApiServer.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ApplicationEvent;

import static dev.listwatch.testsupport.scripted.ScriptedApiServer.configMap;
import static dev.listwatch.testsupport.scripted.ScriptedApiServer.event;
import static dev.listwatch.testsupport.scripted.ScriptedApiServer.list;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Bad input from the server: each kind is reported (log, status), the watch recovers from
 * the last resourceVersion without a new list, and nothing is lost.
 */
class BadInputIT {

	private static final InformerOptions.BackoffPolicy QUICK = new InformerOptions.BackoffPolicy(Duration.ofMillis(20),
			Duration.ofMillis(200), 2.0, 0.0, Duration.ofMinutes(1));

	private InformerOptions.BackoffPolicy backoff = QUICK;

	private final ScriptedApiServer server = new ScriptedApiServer();

	private final List<ApplicationEvent> events = new CopyOnWriteArrayList<>();

	private InformerFactory runtime;

	private Informer<KubernetesObject> informer;

	@AfterEach
	void stop() {
		if (this.informer != null) {
			this.informer.stop();
		}
		if (this.runtime != null) {
			this.runtime.close();
		}
		this.server.close();
	}

	@Test
	void malformedJsonIsReportedAndTheWatchResumes() {
		resumesAfter("{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{broken}}}\n", KubernetesApiException.Kind.DECODE,
				RestartReason.BAD_DATA, 1 << 20);
	}

	@Test
	void anUnknownEventTypeIsReportedAndTheWatchResumes() {
		resumesAfter("{\"type\":\"EXPLODED\",\"object\":{}}\n", KubernetesApiException.Kind.DECODE,
				RestartReason.BAD_DATA, 1 << 20);
	}

	@Test
	void anOversizedEventIsHeldAsUnbindableAndTheWatchGoesOnPastIt() {
		// it used to fail the watch, which resumed from the same resourceVersion into the
		// same event
		this.server.onList(Reply.body("application/json", list(10, configMap("a", 10, "0"))))
			.onWatch(Reply.stream(true, event("MODIFIED", configMap("a", 11, "1")),
					event("MODIFIED", configMap("a", 12, "x".repeat(10_000))),
					event("ADDED", configMap("b", 13, "1"))));
		start(4096);
		awaitValue("b", "1");
		assertThat(this.informer.lister().get("ns", "a")).as("the last state that could be held")
			.hasValueSatisfying((cm) -> assertThat(cm.at("/data/v").asString()).isEqualTo("1"));
		assertThat(this.informer.status().unbindable()).singleElement().satisfies((object) -> {
			assertThat(object.key()).isEqualTo("ns/a");
			assertThat(object.meta().resourceVersion()).isEqualTo("12");
			assertThat(object.reason()).contains("max-event-size");
		});
		assertThat(this.server.lists()).isEqualTo(1);
		assertThat(this.server.watches()).isEqualTo(1);
		WatchStatus status = this.informer.status();
		assertThat(status.lastResourceVersion()).isEqualTo("13");
		assertThat(status.restarts()).doesNotContainKey(RestartReason.BAD_DATA);
		assertThat(resourceEvents()).extracting((e) -> e.type() + " " + e.meta().resourceVersion())
			.containsExactly("ADDED 10", "MODIFIED 11", "ADDED 13");
	}

	@Test
	void aTruncatedEventIsADroppedConnectionAndTheWatchResumes() {
		resumesAfter("{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Conf",
				KubernetesApiException.Kind.CONNECTION, RestartReason.DISCONNECTED, 1 << 20);
	}

	@Test
	void anHtmlPageFromAProxyIsReportedAndTheWatchResumes() {
		this.server.onList(Reply.body("application/json", list(10, configMap("a", 10, "0"))))
			.onWatch(Reply.body("text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>"))
			.onWatch(Reply.stream(true, event("MODIFIED", configMap("a", 12, "2"))));
		start(1 << 20);
		awaitValue("a", "2");
		assertThat(this.server.lists()).isEqualTo(1);
		assertThat(this.server.requests().get(2).parameter("resourceVersion")).isEqualTo("10");
		WatchStatus status = this.informer.status();
		assertThat(status.lastError().reason()).isEqualTo("DECODE");
		assertThat(status.lastError().message()).contains("HTML page");
	}

	@Test
	void aListThatIsNotAListIsReportedAndRetried() {
		this.server.onList(Reply.body("application/json", configMap("x", 3, "?")))
			.onList(Reply.body("application/json", list(10, configMap("a", 10, "0"))))
			.onWatch(Reply.stream(true, event("MODIFIED", configMap("a", 11, "1"))));
		start(1 << 20);
		awaitValue("a", "1");
		assertThat(this.server.lists()).isEqualTo(2);
		assertThat(this.informer.status().restarts()).containsKey(RestartReason.BAD_DATA);
	}

	@Test
	void forbiddenIsReportedAsSuchAndRetried() {
		this.server.onList(Reply.error(403, "Forbidden", null))
			.onList(Reply.error(403, "Forbidden", null))
			.onList(Reply.body("application/json", list(10, configMap("a", 10, "0"))));
		start(1 << 20);
		awaitValue("a", "0");
		WatchStatus status = this.informer.status();
		assertThat(status.restarts()).containsEntry(RestartReason.FORBIDDEN, 2L);
		assertThat(status.lastError().reason()).isEqualTo("Forbidden");
		assertThat(status.lastError().code()).isEqualTo(403);
		assertThat(status.consecutiveFailures()).isZero();
		assertThat(this.server.lists()).isEqualTo(3);
	}

	@Test
	void aRequestThatIsNeverAnsweredIsAbandonedAfterTheIdleTimeout() {
		this.server.onList(Reply.body("application/json", list(10, configMap("a", 10, "0"))))
			.onWatch(Reply.silent())
			.onWatch(Reply.stream(true, event("MODIFIED", configMap("a", 11, "1"))));
		start(1 << 20, Duration.ofSeconds(1));
		awaitValue("a", "1");
		assertThat(this.server.lists()).isEqualTo(1);
		assertThat(this.server.watches()).isEqualTo(2);
		assertThat(this.server.requests().get(2).parameter("resourceVersion")).isEqualTo("10");
		WatchStatus status = this.informer.status();
		assertThat(status.restarts()).containsKey(RestartReason.IDLE);
		assertThat(status.relists()).isZero();
	}

	@Test
	void aListWhoseBodyKeepsArrivingIsNotAbandonedThoughItTakesLongerThanTheIdleTimeout() {
		// an unpaged list of a big resource on a slow link: a piece every 150 ms, 3 s in
		// all, with an idle timeout of 1 s; bytes arriving are progress
		this.server
			.onList(Reply.trickle(Duration.ofMillis(150), 20,
					list(10, configMap("a", 10, "0"), configMap("b", 10, "0"), configMap("c", 10, "0"))))
			.onWatch(Reply.stream(true, event("MODIFIED", configMap("a", 11, "1"))));
		start(1 << 20, Duration.ofSeconds(1));
		awaitValue("a", "1");
		assertThat(this.server.lists()).as("one list, never abandoned").isEqualTo(1);
		WatchStatus status = this.informer.status();
		assertThat(status.objects()).isEqualTo(3);
		assertThat(status.restarts()).doesNotContainKey(RestartReason.IDLE);
		assertThat(status.lists().total()).isGreaterThan(Duration.ofSeconds(2));
	}

	@Test
	void throttlingHonoursRetryAfter() {
		this.server.onList(Reply.error(429, "TooManyRequests", 1))
			.onList(Reply.body("application/json", list(10, configMap("a", 10, "0"))));
		// honoured up to max-backoff
		this.backoff = new InformerOptions.BackoffPolicy(Duration.ofMillis(20), Duration.ofSeconds(5), 2.0, 0.0,
				Duration.ofMinutes(1));
		start(1 << 20);
		awaitValue("a", "0");
		List<ScriptedApiServer.Request> requests = this.server.requests();
		Duration gap = Duration.ofNanos(requests.get(1).nanoTime() - requests.get(0).nanoTime());
		assertThat(gap).isGreaterThanOrEqualTo(Duration.ofMillis(1000));
		assertThat(this.informer.status().restarts()).containsKey(RestartReason.THROTTLED);
	}

	@Test
	void aGoneWatchRelistsAndReportsTheDifference() {
		this.server.onList(Reply.body("application/json", list(10, configMap("a", 5, "0"), configMap("b", 6, "0"))))
			.onWatch(Reply.stream(false,
					event("ERROR", ScriptedApiServer.status(410, "Expired", "too old resource version"))))
			.onList(Reply.body("application/json", list(20, configMap("b", 15, "1"), configMap("c", 16, "0"))));
		start(1 << 20);
		await().atMost(Duration.ofSeconds(10)).until(() -> resourceEvents().size() >= 5);
		List<ResourceEvent<?>> changes = resourceEvents().subList(2, 5);
		assertThat(changes).extracting((e) -> e.type() + " " + e.meta().name() + " " + e.finalStateUnknown())
			.containsExactlyInAnyOrder("ADDED c false", "MODIFIED b false", "DELETED a true");
		assertThat(this.server.lists()).isEqualTo(2);
		assertThat(this.server.requests().get(0).parameter("resourceVersion")).isEqualTo("0");
		assertThat(this.server.requests().get(2).parameter("resourceVersion")).isNull();
		assertThat(this.informer.status().relists()).isEqualTo(1);
	}

	/**
	 * A watch breaks on {@code bad} after one good event; the next watch starts from that
	 * event's resourceVersion, with no new list, and delivers the next change.
	 */
	private void resumesAfter(String bad, KubernetesApiException.Kind kind, RestartReason restartReason,
			int maxEventBytes) {
		this.server.onList(Reply.body("application/json", list(10, configMap("a", 10, "0"))))
			.onWatch(Reply.stream(false, event("MODIFIED", configMap("a", 11, "1")), bad))
			.onWatch(Reply.stream(true, event("MODIFIED", configMap("a", 12, "2"))));
		start(maxEventBytes);
		awaitValue("a", "2");
		assertThat(this.server.lists()).isEqualTo(1);
		assertThat(this.server.watches()).isEqualTo(2);
		assertThat(this.server.requests().get(2).parameter("resourceVersion")).isEqualTo("11");
		WatchStatus status = this.informer.status();
		assertThat(status.lastError().reason()).isEqualTo(kind.name());
		assertThat(status.restarts()).containsKey(restartReason);
		assertThat(status.relists()).isZero();
		assertThat(resourceEvents()).extracting((e) -> e.type() + " " + e.meta().resourceVersion())
			.containsExactly("ADDED 10", "MODIFIED 11", "MODIFIED 12");
	}

	private void start(int maxEventBytes) {
		start(maxEventBytes, Duration.ofMinutes(3));
	}

	private void start(int maxEventBytes, Duration idleTimeout) {
		ApiServerClient client = ScriptedClients.connect(this.server.url());
		ListerWatcher<KubernetesObject> configMaps = client.listerWatcher(
				new ApiServerClient.Target("v1", "ConfigMap", null, "ns"), KubernetesObject.class,
				ApiServerClient.Decoding.DEFAULTS.withMaxEventBytes(maxEventBytes));
		InformerOptions options = new InformerOptions(null, null, 500L, false, Duration.ofMinutes(5),
				Duration.ofMinutes(10), idleTimeout, this.backoff, null, true);
		this.runtime = new InformerFactory(Clock.systemUTC(), this.events::add, 1, Duration.ofMillis(200));
		this.informer = this.runtime.informer("configmaps", KubernetesObject.class, configMaps, options, List.of());
		this.informer.start();
	}

	private void awaitValue(String name, String value) {
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.informer.lister().get("ns", name))
				.hasValueSatisfying((cm) -> assertThat(cm.at("/data/v").asString()).isEqualTo(value)));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.informer.status().backlog() == 0);
	}

	private List<ResourceEvent<?>> resourceEvents() {
		return this.events.stream()
			.filter(ResourceEvent.class::isInstance)
			.<ResourceEvent<?>>map(ResourceEvent.class::cast)
			.toList();
	}

}
