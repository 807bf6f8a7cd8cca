package dev.listwatch.autoconfigure.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.listwatch.controller.Controller;
import dev.listwatch.leader.LeaderElector;
import dev.listwatch.leader.LeadershipEvent;
import dev.listwatch.leader.LeadershipGrantedEvent;
import dev.listwatch.leader.LeadershipRevokedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Runs the leader-only controllers on the leader only: they do not start with the
 * context, start when the {@link LeaderElector} publishes a
 * {@link LeadershipGrantedEvent}, and stop on its {@link LeadershipRevokedEvent}, before
 * the leader-only watches stop (this listener comes first). The reconciles under way
 * finish within each controller's shutdown timeout, as long as this replica's work may
 * still run ({@link LeaderElector#workMayRunFor()}): on a stop the elector renews the
 * Lease until this listener returns, so they get their shutdown timeout; when the Lease
 * was lost, or no renewal succeeded within the renew deadline (a partition, a freeze),
 * what is still running is interrupted at half the lease's margin after that deadline, at
 * once when that has passed, before another replica may start the same keys. Each such
 * controller runs only while this replica is leader ({@link Controller#runOnlyWhen}), so
 * a context start cannot start it on a follower. A new term queues every cached key
 * again, and the keys the last term of this replica left queued.
 */
final class LeaderOnlyControllers implements ApplicationListener<LeadershipEvent>, SmartInitializingSingleton, Ordered {

	private static final Log logger = LogFactory.getLog(LeaderOnlyControllers.class);

	/** How long the stop waits for reconciles it has interrupted. */
	private static final Duration AFTER_INTERRUPT = Duration.ofSeconds(1);

	private final LeaderElector elector;

	private final List<String> names;

	private final ListableBeanFactory beanFactory;

	LeaderOnlyControllers(LeaderElector elector, List<String> names, ListableBeanFactory beanFactory) {
		this.elector = elector;
		this.names = List.copyOf(names);
		this.beanFactory = beanFactory;
	}

	/**
	 * The names of the controllers declared leader-only, or on a leader-only watch.
	 * @param environment the environment
	 * @return the names, in declaration order
	 */
	static List<String> declared(Environment environment) {
		List<String> names = new ArrayList<>();
		ControllerBeans.declared(environment).forEach((name, declaration) -> {
			if (ControllerBeans.leaderOnly(name, declaration, environment)) {
				names.add(name);
			}
		});
		return names;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public void afterSingletonsInstantiated() {
		leaderOnly().forEach((controller) -> controller.runOnlyWhen(this.elector::isLeader));
	}

	@Override
	public void onApplicationEvent(LeadershipEvent event) {
		if (event.elector() != this.elector) {
			return;
		}
		List<Controller<?>> leaderOnly = leaderOnly();
		if (leaderOnly.isEmpty()) {
			return;
		}
		if (event instanceof LeadershipGrantedEvent) {
			leaderOnly.forEach(Controller::start);
			logger.info("Leader: started leader-only controllers " + names(leaderOnly));
		}
		else if (event instanceof LeadershipRevokedEvent revoked) {
			stopAll(leaderOnly, revoked.reason());
			logger.info("No longer leader: stopped leader-only controllers " + names(leaderOnly));
		}
	}

	/**
	 * Stops the controllers together, each within its shutdown timeout, and interrupts
	 * the reconciles still running once this replica's work may run no longer.
	 */
	private void stopAll(List<Controller<?>> leaderOnly, LeadershipRevokedEvent.Reason reason) {
		CountDownLatch stopped = new CountDownLatch(leaderOnly.size());
		for (Controller<?> controller : leaderOnly) {
			Thread stopping = new Thread(() -> {
				try {
					controller.stop(controller.options().shutdownTimeout());
				}
				finally {
					stopped.countDown();
				}
			}, "listwatch-controller-" + controller.name() + "-revoke");
			stopping.setDaemon(true);
			stopping.start();
		}
		try {
			// the time left moves on with each renewal while a stop drains, so wait it
			// out and look again
			// looked at again each retry period at least: a Lease seen held by another
			// replica ends the time left at once
			Duration slice = this.elector.options().retryPeriod();
			Duration left = this.elector.workMayRunFor();
			while (!stopped.await(Math.min(left.toNanos(), slice.toNanos()), TimeUnit.NANOSECONDS)) {
				left = this.elector.workMayRunFor();
				if (left.isZero()) {
					int interrupted = leaderOnly.stream().mapToInt(Controller::interruptReconciles).sum();
					logger.warn("Leader-only controllers " + names(leaderOnly) + ": " + interrupted
							+ " reconciles still running when this replica's leadership ended (" + reason
							+ ") are interrupted, before another replica may start their keys");
					if (!stopped.await(AFTER_INTERRUPT.toMillis(), TimeUnit.MILLISECONDS)) {
						logger.warn("Leader-only controllers " + names(leaderOnly) + " did not all stop within "
								+ AFTER_INTERRUPT + " of the interrupt");
					}
					return;
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private List<Controller<?>> leaderOnly() {
		List<Controller<?>> controllers = new ArrayList<>();
		for (String name : this.names) {
			controllers.add(this.beanFactory.getBean(name + ControllerBeans.CONTROLLER, Controller.class));
		}
		return controllers;
	}

	private static List<String> names(List<Controller<?>> controllers) {
		return controllers.stream().map(Controller::name).toList();
	}

}
