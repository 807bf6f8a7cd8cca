package dev.listwatch.autoconfigure.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.listwatch.controller.Controller;
import dev.listwatch.leader.LeaderElectionOptions;
import dev.listwatch.leader.LeaderElector;
import dev.listwatch.leader.LeadershipEvent;
import dev.listwatch.leader.LeadershipGrantedEvent;
import dev.listwatch.leader.LeadershipRevokedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Runs the leader-only controllers on the leader only: they do not start with the
 * context, start when the {@link LeaderElector} publishes a
 * {@link LeadershipGrantedEvent}, and stop on its {@link LeadershipRevokedEvent}, before
 * the leader-only watches stop (this listener comes first), each letting the reconciles
 * under way finish within its shutdown timeout, or, when the Lease is lost or could not
 * be renewed, within half the lease's margin ({@link #limit}). Each such controller runs
 * only while this replica is leader ({@link Controller#runOnlyWhen}), so a context start
 * cannot start it on a follower. A new term queues every cached key again, and the keys
 * the last term of this replica left queued.
 */
final class LeaderOnlyControllers implements ApplicationListener<LeadershipEvent>, SmartInitializingSingleton, Ordered {

	private static final Log logger = LogFactory.getLog(LeaderOnlyControllers.class);

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
			stopAll(leaderOnly, limit(this.elector.options(), revoked.reason()));
			logger.info("No longer leader: stopped leader-only controllers " + names(leaderOnly));
		}
	}

	/**
	 * How long the reconciles under way may run on after a revoke. The elector that stops
	 * still holds the Lease until this listener returns, so they get their shutdown
	 * timeout; after a lost Lease or a passed renew deadline another replica may take
	 * over a lease duration after this one's last renewal began, so they get half the
	 * margin between lease duration and renew deadline (the rest covers the stop itself),
	 * and are interrupted after it.
	 * @param options the elector's options
	 * @param reason why leadership was revoked
	 * @return the limit, or {@code null} for each controller's shutdown timeout
	 */
	static @Nullable Duration limit(LeaderElectionOptions options, LeadershipRevokedEvent.Reason reason) {
		if (reason == LeadershipRevokedEvent.Reason.STOPPED) {
			return null;
		}
		return options.leaseDuration().minus(options.renewDeadline()).dividedBy(2);
	}

	/**
	 * Stops the controllers together, each within its shutdown timeout or the limit,
	 * whichever is shorter.
	 */
	private void stopAll(List<Controller<?>> leaderOnly, @Nullable Duration limit) {
		CountDownLatch stopped = new CountDownLatch(leaderOnly.size());
		Duration longest = Duration.ZERO;
		for (Controller<?> controller : leaderOnly) {
			Duration timeout = controller.options().shutdownTimeout();
			Duration within = (limit != null && limit.compareTo(timeout) < 0) ? limit : timeout;
			longest = (within.compareTo(longest) > 0) ? within : longest;
			Thread stopping = new Thread(() -> {
				try {
					controller.stop(within);
				}
				finally {
					stopped.countDown();
				}
			}, "listwatch-controller-" + controller.name() + "-revoke");
			stopping.setDaemon(true);
			stopping.start();
		}
		try {
			if (!stopped.await(longest.toMillis() + 1000, TimeUnit.MILLISECONDS)) {
				logger.warn("Leader-only controllers " + names(leaderOnly) + " did not all stop within " + longest);
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
