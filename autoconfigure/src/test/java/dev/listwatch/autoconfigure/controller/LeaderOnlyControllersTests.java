package dev.listwatch.autoconfigure.controller;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.listwatch.KubernetesObject;
import dev.listwatch.autoconfigure.health.FakeListerWatcher;
import dev.listwatch.controller.Controller;
import dev.listwatch.controller.ControllerOptions;
import dev.listwatch.controller.Result;
import dev.listwatch.informer.Informer;
import dev.listwatch.informer.InformerFactory;
import dev.listwatch.informer.InformerOptions;
import dev.listwatch.leader.LeaderElectionOptions;
import dev.listwatch.leader.ManualElection;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the reconciles of a leader-only controller are interrupted after its leadership
 * ends otherwise than by a stop (a stop is in {@code LeaderElectorLifecycleTests}): at
 * half the lease's margin after the renew deadline, at once when that has passed, on an
 * elector whose time the test moves (lease 15 s, renew deadline 10 s).
 */
class LeaderOnlyControllersTests {

	private static final LeaderElectionOptions OPTIONS = new LeaderElectionOptions("app", "default", "me",
			Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));

	private final InformerFactory factory = new InformerFactory(Clock.systemUTC(), (event) -> {
	}, 1, Duration.ofSeconds(1));

	private final FakeListerWatcher server = FakeListerWatcher.open();

	private final Informer<KubernetesObject> informer = this.factory.informer("configmaps", KubernetesObject.class,
			this.server, InformerOptions.defaults(), List.of());

	/** Entered by the reconcile, which then waits until interrupted. */
	private final CountDownLatch entered = new CountDownLatch(1);

	/** When the reconcile saw its interrupt, on {@link System#nanoTime()}. */
	private final AtomicLong interruptedAt = new AtomicLong();

	private final CountDownLatch interrupted = new CountDownLatch(1);

	private final Controller<KubernetesObject> controller = new Controller<>("copy", this.informer, (request) -> {
		this.entered.countDown();
		try {
			new CountDownLatch(1).await();
		}
		catch (InterruptedException ex) {
			this.interruptedAt.set(System.nanoTime());
			this.interrupted.countDown();
			Thread.currentThread().interrupt();
		}
		return Result.done();
	}, ControllerOptions.DEFAULTS.withShutdownTimeout(Duration.ofSeconds(30)), ObservationRegistry.NOOP);

	private final ManualElection election;

	LeaderOnlyControllersTests() {
		AtomicReference<LeaderOnlyControllers> listener = new AtomicReference<>();
		this.election = new ManualElection(OPTIONS, (event) -> listener.get().onApplicationEvent(event));
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerSingleton("copy" + ControllerBeans.CONTROLLER, this.controller);
		listener.set(new LeaderOnlyControllers(this.election.elector(), List.of("copy"), beans));
		listener.get().afterSingletonsInstantiated();
	}

	@AfterEach
	void stop() {
		this.controller.stop(Duration.ofSeconds(5));
		this.informer.stop();
		this.factory.close();
	}

	@Test
	void afterAFreezePastTheMarginTheReconcilesUnderWayAreInterruptedAtOnce() throws Exception {
		long revokedAt = leadAndReconcileThenStep(Duration.ofSeconds(20));
		assertThat(this.interrupted.await(10, TimeUnit.SECONDS)).isTrue();
		// the deadline (10 s) and half the margin (2.5 s) passed during the freeze: no
		// more
		// time is left to them once the replica notices
		assertThat(Duration.ofNanos(this.interruptedAt.get() - revokedAt).toMillis()).isLessThan(1000);
	}

	@Test
	void aRenewDeadlineNoticedOnTimeLeavesThemHalfTheMarginFromTheDeadline() throws Exception {
		// noticed 1 s after the deadline: 1.5 s are left of the 2.5 s
		long revokedAt = leadAndReconcileThenStep(Duration.ofSeconds(11));
		assertThat(this.interrupted.await(1, TimeUnit.SECONDS)).isFalse();
		assertThat(this.election.elector().workMayRunFor()).isEqualTo(Duration.ofMillis(1500));
		// the elector's time moves by hand: the rest runs out when the test moves it
		this.election.advance(Duration.ofMillis(1500));
		assertThat(this.interrupted.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.interruptedAt.get()).isGreaterThan(revokedAt);
	}

	/**
	 * Leads, has a reconcile under way, then, cut off from the API server, is not stepped
	 * for {@code frozen}, and steps once on another thread.
	 * @return when that step began, on {@link System#nanoTime()}
	 */
	private long leadAndReconcileThenStep(Duration frozen) throws Exception {
		this.server.add("a");
		this.informer.start();
		this.election.step();
		assertThat(this.election.elector().isLeader()).isTrue();
		assertThat(this.controller.isRunning()).isTrue();
		assertThat(this.entered.await(10, TimeUnit.SECONDS)).isTrue();
		this.election.cutOff();
		this.election.advance(frozen);
		long revokedAt = System.nanoTime();
		Thread noticing = new Thread(this.election::step, "elector");
		noticing.setDaemon(true);
		noticing.start();
		return revokedAt;
	}

}
