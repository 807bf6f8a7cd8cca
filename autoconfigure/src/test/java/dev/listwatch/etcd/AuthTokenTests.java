package dev.listwatch.etcd;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AuthToken}: a token refused by several calls at once, or by one after it was
 * replaced, is replaced once; no token (auth was off) is replaced when refused.
 */
class AuthTokenTests {

	private final AtomicInteger authentications = new AtomicInteger();

	private final AuthToken token = new AuthToken();

	@Test
	void aLateRefusalOfAReplacedTokenKeepsTheNewOne() {
		String first = this.token.get(this::authenticate);
		// two watches opened with the first token are refused: the first to hear of it
		// gets a new token
		this.token.forget(first);
		String second = this.token.get(this::authenticate);
		// the second hears of its refusal after that
		this.token.forget(first);
		assertThat(this.token.get(this::authenticate)).isEqualTo(second).isNotEqualTo(first);
		assertThat(this.authentications).hasValue(2);
	}

	@Test
	void manyCallsRefusedTogetherAuthenticateOnce() throws InterruptedException {
		String first = this.token.get(this::authenticate);
		int calls = 16;
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> threads = new ArrayList<>();
		Set<String> tokens = ConcurrentHashMap.newKeySet();
		for (int i = 0; i < calls; i++) {
			Thread thread = new Thread(() -> {
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				this.token.forget(first);
				tokens.add(this.token.get(this::authenticate));
			});
			thread.start();
			threads.add(thread);
		}
		start.countDown();
		for (Thread thread : threads) {
			thread.join(10_000);
		}
		assertThat(tokens).containsExactly("token-2");
		assertThat(this.authentications).hasValue(2);
	}

	@Test
	void noTokenBecauseAuthWasOffIsForgottenWhenRefused() {
		assertThat(this.token.get(() -> "")).isEmpty();
		this.token.forget("");
		assertThat(this.token.get(this::authenticate)).isEqualTo("token-1");
	}

	private String authenticate() {
		return "token-" + this.authentications.incrementAndGet();
	}

}
