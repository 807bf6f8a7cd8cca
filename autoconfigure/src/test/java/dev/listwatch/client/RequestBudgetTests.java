package dev.listwatch.client;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ListOptions;
import dev.listwatch.Resource;
import dev.listwatch.client.ApiServerClient.Decoding;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpMethod;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The request budget on a ticker the test moves: each wait moves it by the time waited,
 * so no test sleeps.
 */
class RequestBudgetTests {

	private static final long SECOND = 1_000_000_000L;

	private final AtomicLong now = new AtomicLong(1_000 * SECOND);

	private final List<Long> waits = new ArrayList<>();

	private RequestBudget budget(double qps, int burst) {
		return new RequestBudget(qps, burst, this.now::get, (nanos) -> {
			this.waits.add(nanos);
			this.now.addAndGet(nanos);
		});
	}

	@Test
	void aBurstGoesThroughAtOnceThenRequestsFollowTheRate() {
		RequestBudget budget = budget(10, 5);
		for (int i = 0; i < 5; i++) {
			budget.acquire("GET /api/v1/pods");
		}
		assertThat(this.waits).isEmpty();
		long start = this.now.get();
		for (int i = 0; i < 20; i++) {
			budget.acquire("GET /api/v1/pods");
		}
		// 20 requests at 10 a second: 2 seconds, one wait of 100 ms each
		assertThat(this.now.get() - start).isEqualTo(2 * SECOND);
		assertThat(this.waits).hasSize(20).allMatch((nanos) -> nanos == SECOND / 10);
		assertThat(budget.requests()).isEqualTo(25);
		assertThat(budget.throttled()).isEqualTo(20);
		assertThat(budget.waited()).isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void tokensComeBackWithTimeUpToTheBurst() {
		RequestBudget budget = budget(10, 5);
		for (int i = 0; i < 5; i++) {
			budget.acquire("GET /api/v1/pods");
		}
		// an hour idle refills the bucket to its burst, not beyond
		this.now.addAndGet(3600 * SECOND);
		for (int i = 0; i < 5; i++) {
			budget.acquire("GET /api/v1/pods");
		}
		assertThat(this.waits).isEmpty();
		budget.acquire("GET /api/v1/pods");
		assertThat(this.waits).containsExactly(SECOND / 10);
		// half a token's time gone: the next one waits the other half
		this.now.addAndGet(SECOND / 20);
		budget.acquire("GET /api/v1/pods");
		assertThat(this.waits).containsExactly(SECOND / 10, SECOND / 20);
	}

	@Test
	void anInterruptedWaitGivesItsTokenBack() {
		// a ticker that never moves, and waits that are interrupted at once
		AtomicLong fixed = new AtomicLong();
		List<Long> deadlines = new ArrayList<>();
		RequestBudget budget = new RequestBudget(2, 1, fixed::get, (nanos) -> {
			synchronized (deadlines) {
				deadlines.add(nanos);
			}
			throw new InterruptedException();
		});
		budget.acquire("GET /a");
		for (int i = 0; i < 2; i++) {
			try {
				budget.acquire("GET /b");
			}
			catch (KubernetesApiException ex) {
				assertThat(Thread.interrupted()).isTrue();
			}
		}
		// the first waiter's token was given back when it was interrupted: the second
		// waits as long
		assertThat(deadlines).containsExactly(SECOND / 2, SECOND / 2);
	}

	@Test
	void anInterruptEndsTheWaitAsAFailedConnection() throws InterruptedException {
		// a real wait on a ticker that never moves: only the interrupt ends it
		RequestBudget budget = RequestBudgetTests.stuck();
		budget.acquire("GET /api/v1/pods");
		AtomicReference<Throwable> failure = new AtomicReference<>();
		AtomicReference<Boolean> interrupted = new AtomicReference<>();
		Thread waiter = new Thread(() -> {
			try {
				budget.acquire("GET /api/v1/namespaces/default/pods?watch=1");
			}
			catch (Throwable ex) {
				failure.set(ex);
				interrupted.set(Thread.currentThread().isInterrupted());
			}
		});
		waiter.start();
		waiter.interrupt();
		waiter.join(10_000);
		assertThat(waiter.isAlive()).isFalse();
		assertThat(failure.get()).isInstanceOfSatisfying(KubernetesApiException.class, (ex) -> {
			assertThat(ex.kind()).isEqualTo(KubernetesApiException.Kind.CONNECTION);
			assertThat(ex.getMessage()).contains("GET /api/v1/namespaces/default/pods?watch=1")
				.contains("request budget");
		});
		assertThat(interrupted.get()).isTrue();
		assertThat(budget.throttled()).isEqualTo(1);
	}

	private static RequestBudget stuck() {
		AtomicLong fixed = new AtomicLong();
		return new RequestBudget(1, 1, fixed::get, TimeUnit.NANOSECONDS::sleep);
	}

	@Test
	void aBudgetOfZeroQpsNeverWaitsButCounts() {
		RequestBudget budget = budget(0, 0);
		for (int i = 0; i < 1000; i++) {
			budget.acquire("PUT /api/v1/namespaces/default/configmaps/a");
		}
		assertThat(this.waits).isEmpty();
		assertThat(budget.enabled()).isFalse();
		assertThat(budget.requests()).isEqualTo(1000);
		assertThat(budget.throttled()).isZero();
		assertThat(RequestBudget.of(0, 100).enabled()).isFalse();
		assertThat(RequestBudget.unlimited().enabled()).isFalse();
	}

	@Test
	void aNegativeQpsOrNoBurstIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> RequestBudget.of(-1, 10)).withMessageContaining("qps");
		assertThatIllegalArgumentException().isThrownBy(() -> RequestBudget.of(5, 0)).withMessageContaining("burst");
		assertThatIllegalArgumentException().isThrownBy(() -> RequestBudget.of(Double.NaN, 10));
	}

	@Test
	void theClientTakesATokenBeforeEachRequestItSends() {
		TestApiServer server = new TestApiServer();
		try {
			server.on("/api/v1",
					"{\"resources\":[{\"name\":\"configmaps\",\"namespaced\":true," + "\"kind\":\"ConfigMap\"}]}");
			server.on("/api/v1/namespaces/ns/configmaps",
					"{\"kind\":\"ConfigMapList\",\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[]}");
			ApiServerClient client = server.client(Clock.systemUTC());
			assertThat(client.requestBudget().enabled()).isFalse();
			RequestBudget budget = budget(1, 2);
			client.setRequestBudget(budget);
			// discovery, a list page and a write: the third waits a second on the ticker
			Resource configMaps = client.resolve("v1", "ConfigMap", null, "ns");
			client.listerWatcher(configMaps, KubernetesObject.class, Decoding.DEFAULTS).list(ListOptions.none());
			client.exchangeJson(HttpMethod.PUT, "/api/v1/namespaces/ns/configmaps", "{}".getBytes());
			assertThat(server.requests()).hasSize(3);
			assertThat(budget.requests()).isEqualTo(3);
			assertThat(budget.throttled()).isEqualTo(1);
			assertThat(this.waits).containsExactly(SECOND);
		}
		finally {
			server.close();
		}
	}

	@Test
	void aRequestInterruptedWhileItWaitsIsNotSent() {
		TestApiServer server = new TestApiServer();
		try {
			server.on("/api/v1", "{\"resources\":[]}");
			ApiServerClient client = server.client(Clock.systemUTC());
			client.setRequestBudget(stuck());
			client.getBytes("/api/v1");
			Thread.currentThread().interrupt();
			try {
				assertThatExceptionOfType(KubernetesApiException.class).isThrownBy(() -> client.getBytes("/api/v1"))
					.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(KubernetesApiException.Kind.CONNECTION));
			}
			finally {
				assertThat(Thread.interrupted()).isTrue();
			}
			assertThat(server.requests()).hasSize(1);
		}
		finally {
			server.close();
		}
	}

}
