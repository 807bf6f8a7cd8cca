package dev.listwatch.informer;

import java.time.Duration;
import java.util.List;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.Status;
import dev.listwatch.WatchStatus.RestartReason;
import dev.listwatch.informer.Restarts.Next;
import dev.listwatch.informer.Restarts.Restart;
import dev.listwatch.informer.Restarts.Turn;
import dev.listwatch.informer.Restarts.What;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reflector's restart decision, driven alone: after each turn of the loop, where it
 * goes on, whether it waits, and what the turn tells the status.
 */
class RestartsTests {

	private static final Duration LONG = Duration.ofMinutes(5);

	private static final Duration AT_ONCE = Duration.ofMillis(20);

	private final Restarts restarts = new Restarts();

	@Test
	void aWatchThatEndedAfterItWasHeldGoesOnAtOnceAndCountsAsProgress() {
		Restart restart = this.restarts.ended(held("7"), LONG, "pods");
		assertThat(restart.what()).isEqualTo(What.ENDED);
		assertThat(restart.reason()).isEqualTo(RestartReason.ENDED);
		assertThat(restart.next()).isEqualTo(Next.GO_ON);
		assertThat(restart.backsOff()).isFalse();
		assertThat(restart.held()).isTrue();
		assertThat(restart.failing()).isFalse();
	}

	@Test
	void aWatchThatEndedAtOnceWithNothingBacksOffAndFails() {
		Restart restart = this.restarts.ended(watching("7"), AT_ONCE, "pods");
		assertThat(restart.next()).isEqualTo(Next.GO_ON);
		assertThat(restart.backsOff()).isTrue();
		assertThat(restart.failing()).isTrue();
		assertThat(restart.error().kind()).isEqualTo(Kind.CONNECTION);
		assertThat(restart.error().getMessage()).contains("pods").contains("ended at once without an event");
		assertThat(restart.afterConnect()).isTrue();
	}

	@Test
	void aWatchThatEndedAtOnceAfterAnEventBacksOffWithoutFailing() {
		Restart restart = this.restarts.ended(delivered("7"), AT_ONCE, "pods");
		assertThat(restart.backsOff()).isTrue();
		assertThat(restart.failing()).isFalse();
		assertThat(restart.error()).isNull();
	}

	@Test
	void aSilentWatchIsReplacedAtOnceAndIsNotAFailure() {
		Restart restart = this.restarts.ended(idle("7"), AT_ONCE, "pods");
		assertThat(restart.what()).isEqualTo(What.IDLE);
		assertThat(restart.reason()).isEqualTo(RestartReason.IDLE);
		assertThat(restart.next()).isEqualTo(Next.GO_ON);
		assertThat(restart.backsOff()).isFalse();
		assertThat(restart.held()).isTrue();
		assertThat(restart.failing()).isFalse();
	}

	@Test
	void aCutOfAStreamHeldOpenGoesOnAtOnceAndStartsTheBackoffOver() {
		Restart restart = this.restarts.failed(cut(), held("7"));
		assertThat(restart.what()).isEqualTo(What.CUT);
		assertThat(restart.reason()).isEqualTo(RestartReason.DISCONNECTED);
		assertThat(restart.next()).isEqualTo(Next.GO_ON);
		assertThat(restart.backsOff()).isFalse();
		assertThat(restart.resetsBackoff()).isTrue();
		assertThat(restart.held()).isTrue();
		assertThat(restart.failing()).isFalse();
	}

	@Test
	void aCutSoonerThanHeldIsAFailureThatBacksOff() {
		Restart restart = this.restarts.failed(cut(), watching("7"));
		assertThat(restart.what()).isEqualTo(What.FAILED);
		assertThat(restart.reason()).isEqualTo(RestartReason.DISCONNECTED);
		assertThat(restart.backsOff()).isTrue();
		assertThat(restart.resetsBackoff()).isFalse();
		assertThat(restart.failing()).isTrue();
		assertThat(restart.afterConnect()).isTrue();
	}

	@Test
	void aCutDuringASyncIsAFailureEvenAfterAStreamWasHeld() {
		Restart restart = this.restarts.failed(cut(), new Turn(true, true, true, false, false, null));
		assertThat(restart.what()).isEqualTo(What.FAILED);
		assertThat(restart.failing()).isTrue();
	}

	@Test
	void aCutAfterTheWatchDeliveredStartsTheBackoffOverYetFails() {
		Restart restart = this.restarts.failed(cut(), delivered("7"));
		assertThat(restart.backsOff()).isTrue();
		assertThat(restart.resetsBackoff()).isTrue();
		assertThat(restart.failing()).isTrue();
	}

	@Test
	void aRequestAbandonedBySilenceIsAnIdleFailure() {
		Restart restart = this.restarts.failed(cut(), new Turn(false, false, false, false, true, "7"));
		assertThat(restart.reason()).isEqualTo(RestartReason.IDLE);
		assertThat(restart.failing()).isTrue();
		assertThat(restart.afterConnect()).isFalse();
	}

	@Test
	void goneRelistsAtOnceThenBacksOffWhileItRepeatsWithoutAWatchBetween() {
		Restart first = this.restarts.failed(gone(), watching("7"));
		assertThat(first.what()).isEqualTo(What.GONE);
		assertThat(first.reason()).isEqualTo(RestartReason.EXPIRED);
		assertThat(first.next()).isEqualTo(Next.RELIST);
		assertThat(first.backsOff()).isFalse();
		assertThat(first.failing()).isFalse();
		assertThat(this.restarts.failed(gone(), syncing()).backsOff()).isTrue();
		this.restarts.ended(held("9"), LONG, "pods");
		assertThat(this.restarts.failed(gone(), watching("9")).backsOff()).isFalse();
	}

	@Test
	void aResourceVersionTheServerHasNotReachedRelistsFromScratch() {
		KubernetesApiException tooLarge = KubernetesApiException.of("GET /api/v1/pods?watch=1",
				new Status(504, "Timeout", "Too large resource version: 900, current: 12"), null);
		Restart restart = this.restarts.failed(tooLarge, syncing());
		assertThat(restart.next()).isEqualTo(Next.RELIST);
		assertThat(restart.reason()).isEqualTo(RestartReason.EXPIRED);
	}

	@Test
	void anUndecodableEventGoesOnOnceAndRelistsWhenItFailsAgainAtTheSameResourceVersion() {
		Restart first = this.restarts.failed(undecodable(), watching("7"));
		assertThat(first.what()).isEqualTo(What.FAILED);
		assertThat(first.reason()).isEqualTo(RestartReason.BAD_DATA);
		assertThat(first.next()).isEqualTo(Next.GO_ON);
		assertThat(first.backsOff()).isTrue();
		Restart again = this.restarts.failed(undecodable(), watching("7"));
		assertThat(again.what()).isEqualTo(What.FAILED_AGAIN);
		assertThat(again.next()).isEqualTo(Next.RELIST);
		assertThat(again.failing()).isTrue();
		// the relist starts the count over
		assertThat(this.restarts.failed(undecodable(), watching("7")).next()).isEqualTo(Next.GO_ON);
	}

	@Test
	void anUndecodableEventAtAnotherResourceVersionOrAfterASyncGoesOnAgain() {
		this.restarts.failed(undecodable(), watching("7"));
		assertThat(this.restarts.failed(undecodable(), watching("8")).next()).isEqualTo(Next.GO_ON);
		this.restarts.synced();
		assertThat(this.restarts.failed(undecodable(), watching("8")).next()).isEqualTo(Next.GO_ON);
	}

	@Test
	void anErrorEventOnAnOpenStreamCountsLikeAnUndecodableOne() {
		KubernetesApiException error = KubernetesApiException.of("watch pods",
				new Status(500, "InternalError", "etcd trouble"), null);
		this.restarts.failed(error, watching("7"));
		Restart again = this.restarts.failed(error, watching("7"));
		assertThat(again.next()).isEqualTo(Next.RELIST);
		assertThat(again.reason()).isEqualTo(RestartReason.SERVER_ERROR);
	}

	@Test
	void aRefusedRequestBacksOffAndGoesOnHonouringRetryAfter() {
		KubernetesApiException throttled = KubernetesApiException.of("GET /api/v1/pods",
				new Status(429, "TooManyRequests", null), Duration.ofSeconds(3));
		Restart restart = this.restarts.failed(throttled, syncing());
		assertThat(restart.reason()).isEqualTo(RestartReason.THROTTLED);
		assertThat(restart.next()).isEqualTo(Next.GO_ON);
		assertThat(restart.backsOff()).isTrue();
		assertThat(restart.failing()).isTrue();
		assertThat(restart.error().retryAfter()).isEqualTo(Duration.ofSeconds(3));
		assertThat(restart.afterConnect()).isFalse();
	}

	@Test
	void aFailureOfTheHandlerOrAnErrorResyncsAfterTheBackoff() {
		Restart handler = this.restarts.handlerFailed(new KubernetesApiException(Kind.OTHER, "boom", null));
		assertThat(handler.reason()).isEqualTo(RestartReason.HANDLER);
		assertThat(handler.next()).isEqualTo(Next.RESYNC);
		assertThat(handler.backsOff()).isTrue();
		assertThat(handler.failing()).isTrue();
		Restart fatal = this.restarts.fatal();
		assertThat(fatal.reason()).isEqualTo(RestartReason.FATAL);
		assertThat(fatal.next()).isEqualTo(Next.RESYNC);
		assertThat(fatal.backsOff()).isTrue();
		// the reflector reports the Error itself, with its class
		assertThat(fatal.failing()).isFalse();
	}

	@Test
	void aRefusalThatRetryingWillNotMendBacksOffAndGoesOnByDefault() {
		for (int code : new int[] { 401, 403, 404 }) {
			Restart restart = this.restarts.failed(refusal(code), syncing());
			assertThat(restart.next()).as("%d", code).isEqualTo(Next.GO_ON);
			assertThat(restart.backsOff()).isTrue();
			assertThat(restart.failing()).isTrue();
		}
		assertThat(this.restarts.failed(refusal(403), syncing()).reason()).isEqualTo(RestartReason.FORBIDDEN);
	}

	@Test
	void aRefusalThatRetryingWillNotMendEndsTheLoopWhenThePolicyFails() {
		Restarts failing = new Restarts(InformerOptions.OnRefusal.FAIL);
		for (int code : new int[] { 401, 403, 404 }) {
			// the list refused, and the watch refused after a sync
			for (Turn turn : new Turn[] { syncing(), new Turn(false, false, true, false, false, "7") }) {
				Restart restart = failing.failed(refusal(code), turn);
				assertThat(restart.next()).as("%d", code).isEqualTo(Next.FAIL);
				assertThat(restart.what()).isEqualTo(What.REFUSED);
				assertThat(restart.backsOff()).isFalse();
				assertThat(restart.failing()).isTrue();
				assertThat(restart.error().code()).isEqualTo(code);
			}
		}
		assertThat(failing.failed(refusal(401), syncing()).reason()).isEqualTo(RestartReason.UNAUTHORIZED);
		assertThat(failing.failed(refusal(403), syncing()).reason()).isEqualTo(RestartReason.FORBIDDEN);
	}

	@Test
	void underAPolicyThatFailsEveryOtherFailureIsRetried() {
		Restarts failing = new Restarts(InformerOptions.OnRefusal.FAIL);
		KubernetesApiException throttled = KubernetesApiException.of("GET /api/v1/pods",
				new Status(429, "TooManyRequests", null), null);
		KubernetesApiException unavailable = KubernetesApiException.of("GET /api/v1/pods",
				new Status(503, "ServiceUnavailable", null), null);
		KubernetesApiException noCredentials = new KubernetesApiException(Kind.CREDENTIALS,
				"GET /api/v1/pods: the exec plugin failed", null);
		for (KubernetesApiException failure : List.of(throttled, unavailable, noCredentials, cut(), undecodable())) {
			assertThat(failing.failed(failure, syncing()).next()).as(failure.getMessage()).isNotEqualTo(Next.FAIL);
		}
		// an ERROR event that says 403 on an open stream: the server served the watch
		KubernetesApiException forbiddenEvent = KubernetesApiException.of("watch pods",
				new Status(403, "Forbidden", "no"), null);
		assertThat(failing.failed(forbiddenEvent, watching("7")).next()).isNotEqualTo(Next.FAIL);
		assertThat(failing.failed(gone(), syncing()).next()).isEqualTo(Next.RELIST);
	}

	private static KubernetesApiException refusal(int code) {
		return KubernetesApiException.of("GET /api/v1/namespaces/ns/pods",
				new Status(code, (code == 404) ? "NotFound" : (code == 403) ? "Forbidden" : "Unauthorized", "refused"),
				null);
	}

	private static KubernetesApiException cut() {
		return new KubernetesApiException(Kind.CONNECTION, "watch pods: connection reset", null);
	}

	private static KubernetesApiException gone() {
		return KubernetesApiException.of("watch pods", new Status(410, "Expired", "too old resource version"), null);
	}

	private static KubernetesApiException undecodable() {
		return new KubernetesApiException(Kind.DECODE, "watch pods: undecodable event", null);
	}

	/** A turn on an open watch (reading), not held, nothing delivered, not idle. */
	private static Turn watching(String resourceVersion) {
		return new Turn(false, true, false, false, false, resourceVersion);
	}

	private static Turn held(String resourceVersion) {
		return new Turn(false, true, true, false, false, resourceVersion);
	}

	private static Turn delivered(String resourceVersion) {
		return new Turn(false, true, false, true, false, resourceVersion);
	}

	private static Turn idle(String resourceVersion) {
		return new Turn(false, true, false, false, true, resourceVersion);
	}

	private static Turn syncing() {
		return new Turn(true, false, false, false, false, null);
	}

}
