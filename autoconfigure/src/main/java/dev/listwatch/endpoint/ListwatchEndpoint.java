package dev.listwatch.endpoint;

import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.listwatch.Resource;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStatus;
import dev.listwatch.controller.Controller;
import dev.listwatch.controller.ControllerStatus;
import dev.listwatch.leader.ShardStatus;
import dev.listwatch.informer.Informer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code listwatch} actuator endpoint: every watch with what it watches (resource,
 * selectors, Java type, index names) and how it is doing (its {@link WatchStatus}, the
 * one status health and metrics read too), and every controller with its queue and the
 * keys that keep failing (the class of their last exception and where it was thrown; its
 * message only where the application opted in, see {@link dev.listwatch.Thrown}).
 * {@code /actuator/listwatch/<watch>} shows one watch. Never shows objects or
 * credentials.
 */
@Endpoint(id = "listwatch")
public class ListwatchEndpoint {

	/** How many failing keys a controller's entry shows at most. */
	static final int MAX_FAILING_KEYS = 100;

	private final ObjectProvider<Informer<?>> informers;

	private final ObjectProvider<Controller<?>> controllers;

	/**
	 * Makes the endpoint.
	 * @param informers the informers, looked up on every read
	 * @param controllers the controllers, looked up on every read
	 */
	public ListwatchEndpoint(ObjectProvider<Informer<?>> informers, ObjectProvider<Controller<?>> controllers) {
		this.informers = informers;
		this.controllers = controllers;
	}

	/**
	 * All watches, by name.
	 * @return the watches
	 */
	@ReadOperation
	public WatchesDescriptor watches() {
		Map<String, WatchDescriptor> watches = new LinkedHashMap<>();
		this.informers.stream()
			.sorted(Comparator.comparing(Informer::watch))
			.forEach((informer) -> watches.put(informer.watch(), describe(informer)));
		Map<String, ControllerDescriptor> controllers = new LinkedHashMap<>();
		this.controllers.stream()
			.sorted(Comparator.comparing(Controller::name))
			.forEach((controller) -> controllers.put(controller.name(), describe(controller.status())));
		return new WatchesDescriptor(watches, controllers);
	}

	private static ControllerDescriptor describe(ControllerStatus status) {
		Map<String, FailureDescriptor> failing = new TreeMap<>();
		status.failing()
			.entrySet()
			.stream()
			.sorted(Map.Entry.comparingByKey())
			.limit(MAX_FAILING_KEYS)
			.forEach((entry) -> failing.put(entry.getKey(), describe(entry.getValue())));
		ControllerStatus.Failure resync = status.resyncFailure();
		return new ControllerDescriptor(status.watch(), status.running(), status.workers(), status.liveWorkers(),
				status.ready(), status.waiting(), status.processing(), status.adds(), status.retries(),
				status.reconciles(), status.failures(), status.conflicts(), status.errors(),
				status.oldestReady().toMillis(), status.longestRunning().toMillis(), status.failing().size(), failing,
				(resync != null) ? describe(resync) : null, describe(status.shards(), status.queuedByShard()));
	}

	private static FailureDescriptor describe(ControllerStatus.Failure failure) {
		return new FailureDescriptor(failure.exception(), failure.at(), failure.message(), failure.inARow(),
				failure.error());
	}

	private static @Nullable ShardsDescriptor describe(@Nullable ShardStatus shards, Map<Integer, Integer> queued) {
		if (shards == null) {
			return null;
		}
		return new ShardsDescriptor(shards.identity(), shards.members(), shards.running(), shards.listed(), queued,
				shards.handOvers(), shards.fences(), shards.failures(), shards.lastError());
	}

	/**
	 * One watch.
	 * @param name the watch's name
	 * @return the watch, or {@code null} (404) when there is no such watch
	 */
	@ReadOperation
	public @Nullable WatchDescriptor watch(@Selector String name) {
		return this.informers.stream()
			.filter((informer) -> informer.watch().equals(name))
			.findFirst()
			.map(ListwatchEndpoint::describe)
			.orElse(null);
	}

	private static WatchDescriptor describe(Informer<?> informer) {
		return describe(informer.status());
	}

	private static WatchDescriptor describe(WatchStatus status) {
		WatchStatus.Watched watched = status.watched();
		Resource resource = watched.resource();
		Map<String, Long> events = new LinkedHashMap<>();
		status.events()
			.entrySet()
			.stream()
			.sorted(Map.Entry.comparingByKey())
			.forEach((entry) -> events.put(entry.getKey().name(), entry.getValue()));
		Map<String, Long> restarts = new TreeMap<>();
		status.restarts().forEach((reason, count) -> restarts.put(reason.tag(), count));
		WatchStatus.Failure error = status.lastError();
		return new WatchDescriptor(
				new ResourceDescriptor(resource.apiVersion(), resource.kind(), resource.plural(),
						emptyToNull(resource.namespace())),
				watched.labelSelector(), watched.fieldSelector(), watched.type(), watched.indexNames(),
				status.state().name(), status.stateSince(), status.synced(), status.lastResourceVersion(),
				status.objects(), status.lastEventTime(), status.lastSyncTime(), events, status.totalRestarts(),
				restarts, status.relists(), status.consecutiveFailures(), status.failingSince(),
				(error != null) ? new ErrorDescriptor(error.reason(), error.message(), error.code()) : null,
				status.streamingList(), status.backlog(), status.listenerFailures(), status.indexFailures(),
				status.unbindable()
					.stream()
					.map((object) -> new UnbindableDescriptor(object.key(), object.meta().resourceVersion(),
							object.path(), object.targetType(), object.reason()))
					.toList(),
				watched.namespaces(), byNamespace(status));
	}

	private static Map<String, WatchDescriptor> byNamespace(WatchStatus status) {
		Map<String, WatchDescriptor> namespaces = new LinkedHashMap<>();
		status.namespaces().forEach((namespace, one) -> namespaces.put(namespace, describe(one)));
		return namespaces;
	}

	private static @Nullable String emptyToNull(@Nullable String value) {
		return (value == null || value.isEmpty()) ? null : value;
	}

	/**
	 * All watches, and the controllers on them.
	 *
	 * @param watches the watches by name
	 * @param controllers the controllers by name
	 */
	public record WatchesDescriptor(Map<String, WatchDescriptor> watches,
			Map<String, ControllerDescriptor> controllers) implements OperationResponseBody {
	}

	/**
	 * One controller: its queue, what it has done, and the keys that keep failing; never
	 * object values.
	 *
	 * @param watch the watch whose keys it reconciles
	 * @param running whether its workers are taking keys
	 * @param workers how many workers it runs
	 * @param liveWorkers how many of them are alive (fewer only when one ended on a
	 * failure outside any reconcile)
	 * @param ready keys ready for a worker
	 * @param waiting keys waiting out a backoff or a requeue delay
	 * @param processing keys a worker has now
	 * @param adds keys queued in all
	 * @param retries keys queued again after a failure or a requeue
	 * @param reconciles reconciles done
	 * @param failures reconciles that threw
	 * @param conflicts of those, the ones that met a 409 Conflict
	 * @param errors reconciles and resyncs that threw an {@link Error}
	 * @param oldestReadyMillis how long the key longest ready has waited for a worker
	 * @param longestRunningMillis how long the longest reconcile under way has run
	 * @param failingKeys how many keys' last reconcile failed
	 * @param failing the first of them (at most 100, by key), with their failure
	 * @param resyncFailure what the last resync threw, while resyncs fail, else
	 * {@code null}
	 * @param shards what this replica runs of a sharded controller's keys, {@code null}
	 * when it runs on every replica
	 */
	public record ControllerDescriptor(String watch, boolean running, int workers, int liveWorkers, int ready,
			int waiting, int processing, long adds, long retries, long reconciles, long failures, long conflicts,
			long errors, long oldestReadyMillis, long longestRunningMillis, int failingKeys,
			Map<String, FailureDescriptor> failing, @Nullable FailureDescriptor resyncFailure,
			@Nullable ShardsDescriptor shards) {
	}

	/**
	 * The shards of a sharded controller on this replica.
	 *
	 * @param identity this replica's identity in the shard group
	 * @param members the live members it sees, itself included
	 * @param running the shards it runs
	 * @param listed the shards its Lease lists (running, claimed, or being handed over)
	 * @param queued the keys queued here, by shard it runs
	 * @param handOvers shards started after another replica had them, plus shards handed
	 * to another
	 * @param fences how often it stopped all its shards because it could not renew its
	 * Lease within the renew deadline
	 * @param failures renewals that failed
	 * @param lastError the error of the last renewal, {@code null} when it succeeded
	 */
	public record ShardsDescriptor(String identity, List<String> members, Set<Integer> running, Set<Integer> listed,
			Map<Integer, Integer> queued, long handOvers, long fences, long failures, @Nullable String lastError) {
	}

	/**
	 * The last failure of a key that keeps failing, or of the resyncs.
	 *
	 * @param exception the class of what was thrown
	 * @param at where it was thrown (the class, method and line of the top frame)
	 * @param message its message, {@code null} unless the application opted in
	 * ({@code listwatch.show-exception-messages}): a message may quote values
	 * @param inARow how often in a row it failed
	 * @param error whether it was an {@link Error} rather than an exception
	 */
	public record FailureDescriptor(String exception, String at, @Nullable String message, int inARow, boolean error) {
	}

	/**
	 * One watch.
	 *
	 * @param resource what it watches
	 * @param labelSelector its label selector, or {@code null}
	 * @param fieldSelector its field selector, or {@code null}
	 * @param type the Java type of its objects
	 * @param indexNames the index names of its cache
	 * @param state where it is in its life
	 * @param stateSince since when
	 * @param synced whether the initial sync has completed
	 * @param lastResourceVersion the last resourceVersion seen
	 * @param objects objects cached
	 * @param lastEventTime when the last event arrived
	 * @param lastSyncTime when the last full sync completed
	 * @param events events received by {@link WatchEvent.Type}
	 * @param restarts restarts, all reasons
	 * @param restartsByReason restarts by reason
	 * @param relists relists after the first list
	 * @param consecutiveFailures failures since the last success
	 * @param failingSince since when it has been failing, or {@code null}
	 * @param lastError the last failure, or {@code null}
	 * @param streamingList whether the last sync was a streaming list
	 * @param backlog events waiting for listeners
	 * @param listenerFailures listeners that threw
	 * @param indexFailures index functions that failed for an object
	 * @param unbindable the objects the server has that the watch cannot hold
	 * @param namespaces the namespaces of a namespace set, else empty
	 * @param byNamespace each namespace's own watch, for a namespace set, else empty
	 */
	public record WatchDescriptor(ResourceDescriptor resource, @Nullable String labelSelector,
			@Nullable String fieldSelector, String type, List<String> indexNames, String state, Instant stateSince,
			boolean synced, @Nullable String lastResourceVersion, int objects, @Nullable Instant lastEventTime,
			@Nullable Instant lastSyncTime, Map<String, Long> events, long restarts, Map<String, Long> restartsByReason,
			long relists, long consecutiveFailures, @Nullable Instant failingSince, @Nullable ErrorDescriptor lastError,
			@Nullable Boolean streamingList, int backlog, long listenerFailures, long indexFailures,
			List<UnbindableDescriptor> unbindable, List<String> namespaces,
			Map<String, WatchDescriptor> byNamespace) implements OperationResponseBody {
	}

	/**
	 * An object the server has that the watch cannot hold; never its values.
	 *
	 * @param key its key
	 * @param resourceVersion the resourceVersion of the state that could not be held
	 * @param path the JSON pointer of the value that did not bind, or empty for the whole
	 * object
	 * @param targetType the Java type it was bound to
	 * @param reason why, without the value
	 */
	public record UnbindableDescriptor(String key, String resourceVersion, String path, String targetType,
			String reason) {
	}

	/**
	 * What a watch watches.
	 *
	 * @param apiVersion group/version
	 * @param kind the kind, when known
	 * @param plural the plural resource name
	 * @param namespace the namespace, or {@code null} for all namespaces
	 */
	public record ResourceDescriptor(String apiVersion, @Nullable String kind, String plural,
			@Nullable String namespace) {
	}

	/**
	 * A failure.
	 *
	 * @param reason the reason
	 * @param message the message (never holds secrets)
	 * @param code the HTTP code, 0 when none
	 */
	public record ErrorDescriptor(@Nullable String reason, @Nullable String message, int code) {
	}

}
