package dev.listwatch.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.listwatch.informer.Informer;
import dev.listwatch.leader.LeaderElector;
import dev.listwatch.leader.LeadershipEvent;
import dev.listwatch.leader.LeadershipGrantedEvent;
import dev.listwatch.leader.LeadershipRevokedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

/**
 * Runs the watches declared {@code leader-only: true} on the leader only: their informers
 * do not start with the context (leader-only means {@code auto-startup: false}), start
 * when the {@link LeaderElector} publishes a {@link LeadershipGrantedEvent} and stop,
 * before this listener returns to the elector, on its {@link LeadershipRevokedEvent}.
 * <p>
 * Each leader-only informer runs only while this replica is leader
 * ({@link Informer#runOnlyWhen}): an explicit
 * {@code ConfigurableApplicationContext.start()} (after a {@code stop()}), which starts
 * every lifecycle bean, those without auto-startup too, and code that holds the informer
 * cannot start it on a follower. Each term starts from a fresh sync, as client-go runs an
 * informer per term: a list no older than the cache, its difference published, then a
 * {@code WatchSyncedEvent}; until then, and on a follower, the watch is not synced (its
 * lister's {@code hasSynced()}, awaitSynced, health), so the last term's cache never
 * passes for current. It stays readable.
 * <p>
 * A revoke stops the informers and waits for their threads, not for a listener call in
 * flight on a dispatch thread: that call runs to its end after the revoke, and events
 * queued then are published in the next term (after its fresh sync's difference). Work
 * that must stop with the leadership checks {@link LeaderElector#isLeader()}, the fence,
 * or holds its own lock.
 */
final class LeaderOnlyWatches implements ApplicationListener<LeadershipEvent>, SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(LeaderOnlyWatches.class);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private final LeaderElector elector;

	private final List<String> watches;

	private final ListableBeanFactory beanFactory;

	LeaderOnlyWatches(LeaderElector elector, List<String> watches, ListableBeanFactory beanFactory) {
		this.elector = elector;
		this.watches = List.copyOf(watches);
		this.beanFactory = beanFactory;
	}

	/**
	 * The watches declared leader-only (and enabled).
	 * @param environment the environment
	 * @return their names, in declaration order
	 */
	static List<String> declared(Environment environment) {
		List<String> names = new ArrayList<>();
		bind(Binder.get(environment)).forEach((name, watch) -> {
			if (watch.isEnabled() && watch.isLeaderOnly()) {
				names.add(name);
			}
		});
		return names;
	}

	/**
	 * Fails a leader-only watch that cannot work: without leader election, or with
	 * {@code auto-startup: true}. Called while the watches' beans are registered.
	 * @param binder the binder of the environment
	 * @param watches the enabled watches
	 * @throws WatchDeclarationException naming the watch, the property and the fix
	 */
	static void check(Binder binder, Map<String, ListwatchProperties.Watch> watches) {
		boolean electing = binder.bind("listwatch.leader-election.enabled", Boolean.class).orElse(false);
		watches.forEach((name, watch) -> {
			if (!watch.isLeaderOnly()) {
				return;
			}
			if (!electing) {
				throw new WatchDeclarationException(name, "leader-only",
						"is true, but leader election is not enabled, so no replica would ever run the watch",
						"Set listwatch.leader-election.enabled=true (the replicas then elect a leader on a Lease, see "
								+ "listwatch.leader-election.*), or remove listwatch.watches." + name + ".leader-only.",
						null);
			}
			if (Boolean.TRUE.equals(watch.getAutoStartup())) {
				throw new WatchDeclarationException(name, "auto-startup",
						"is true, but the watch is leader-only: it starts when this replica becomes leader, not "
								+ "with the application",
						"Remove listwatch.watches." + name + ".auto-startup, or listwatch.watches." + name
								+ ".leader-only to run the watch on every replica.",
						null);
			}
		});
	}

	private static Map<String, ListwatchProperties.Watch> bind(Binder binder) {
		return binder.bind("listwatch.watches", Bindable.mapOf(String.class, ListwatchProperties.Watch.class))
			.orElse(Map.of());
	}

	@Override
	public void afterSingletonsInstantiated() {
		for (String watch : this.watches) {
			informer(watch).runOnlyWhen(this.elector::isLeader);
		}
	}

	/**
	 * The names of the leader-only watches.
	 * @return the names
	 */
	List<String> watches() {
		return this.watches;
	}

	@Override
	public void onApplicationEvent(LeadershipEvent event) {
		if (event.elector() != this.elector || this.watches.isEmpty()) {
			return;
		}
		if (event instanceof LeadershipGrantedEvent) {
			for (String watch : this.watches) {
				informer(watch).start();
			}
			logger.info("Leader: started leader-only watches " + this.watches);
		}
		else if (event instanceof LeadershipRevokedEvent) {
			stopAll();
			logger.info("No longer leader: stopped leader-only watches " + this.watches);
		}
	}

	/**
	 * Stops the leader-only informers that an explicit context start started, unless this
	 * replica is leader: run by a lifecycle bean of the phase right after the informers'.
	 */
	void stopUnlessLeader() {
		if (!this.elector.isLeader() && this.watches.stream().anyMatch((watch) -> informer(watch).isRunning())) {
			stopAll();
			logger.info("Not leader: stopped leader-only watches " + this.watches + " that the context started");
		}
	}

	/**
	 * Stops the informers at once, each ending its writes before stop returns, and waits
	 * for their threads.
	 */
	private void stopAll() {
		CountDownLatch stopped = new CountDownLatch(this.watches.size());
		for (String watch : this.watches) {
			try {
				informer(watch).stop(stopped::countDown);
			}
			catch (RuntimeException ex) {
				stopped.countDown();
				logger.error("Could not stop leader-only watch " + watch, ex);
			}
		}
		try {
			if (!stopped.await(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				logger.warn("Leader-only watches " + this.watches + " did not all stop within "
						+ STOP_TIMEOUT.toSeconds() + " s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private Informer<?> informer(String watch) {
		return this.beanFactory.getBean(watch + DeclaredWatches.INFORMER, Informer.class);
	}

}
