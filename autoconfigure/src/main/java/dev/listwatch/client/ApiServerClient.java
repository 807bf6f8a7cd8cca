package dev.listwatch.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectCompressor;
import dev.listwatch.Resource;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.client.Discovery.ApiResource;
import dev.listwatch.cluster.Credentials;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

/**
 * The API server as list-watch sees it: a {@link ListerWatcher} per resource, with
 * discovery (kind to resource, cached, looked up again on a miss), all through one
 * {@link RestClient} built from Boot's builder (so its customizers and observations
 * apply) on a transport of its own.
 *
 * <p>
 * Made by {@link #create(Cluster, RestClient.Builder, JsonMapper, Clock)}, which builds
 * the cluster's HTTP transport (TLS, proxy, connect timeout) and the threads that deliver
 * responses; the client owns them and {@link #close()} releases them (the auto-configured
 * bean is closed with the application context). Thread-safe: lister-watchers may be used
 * from any thread.
 *
 * <p>
 * Every failure of a request surfaces as a {@link KubernetesApiException}: an error
 * status by its kind, a broken connection as {@code CONNECTION}, credentials that could
 * not be obtained (an exec plugin that failed, a token file that cannot be read, any
 * exception of an application's {@link Credentials}) as {@code CREDENTIALS}, the request
 * then not sent. Messages never hold a secret.
 */
public final class ApiServerClient implements AutoCloseable {

	/**
	 * How old the cached discovery of a group/version must be before a kind or resource
	 * it did not serve is looked up again: 10 seconds.
	 */
	static final Duration REDISCOVERY_INTERVAL = Duration.ofSeconds(10);

	/**
	 * Whether a client speaks HTTP/2 to an {@code https} API server unless told otherwise
	 * ({@code listwatch.connection.http2}): on Java 24 and later. Before JDK-8335181
	 * (Java 24; backported to later 17 and 21 updates) the JDK client fails every stream
	 * of a connection that receives a GOAWAY, and kube-apiserver sends GOAWAYs by design
	 * ({@code --goaway-chance}, on HA clusters): with one in 50 requests answered with a
	 * GOAWAY, 22 to 36 of 400 creates failed on Java 17.0.15 (most of them applied: their
	 * outcome unknown to the caller), none on Java 25 with the same server.
	 */
	public static final boolean DEFAULT_HTTP2 = Runtime.version().feature() >= 24;

	/** Methods that change nothing on the server. */
	private static final java.util.Set<HttpMethod> READS = java.util.Set.of(HttpMethod.GET, HttpMethod.HEAD,
			HttpMethod.OPTIONS);

	/** Default limit of one watch event or list item frame. */
	public static final int DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;

	private final RestClient restClient;

	private final String server;

	private final ObjectMapper mapper;

	private final Clock clock;

	/**
	 * The transport this client owns, or {@code null} when the rest client brings its
	 * own.
	 */
	private final @Nullable Transport transport;

	/** What each group/version serves, and when that was discovered. */
	private final Map<String, Discovery> discovery = new ConcurrentHashMap<>();

	/**
	 * Discoveries sent ahead ({@link #discoverAhead}) that no resolve has taken yet, by
	 * group/version.
	 */
	private final Map<String, CompletableFuture<Discovery>> ahead = new ConcurrentHashMap<>();

	/**
	 * The GETs of the lister-watchers this client makes: handed to them in place of the
	 * client, so that they do not depend on it.
	 */
	private final ApiExchange gets = new ApiExchange() {

		@Override
		public <R> R exchange(String pathAndQuery, String accept, ResponseHandler<R> handler, boolean close) {
			return ApiServerClient.this.exchange(pathAndQuery, accept, handler, close);
		}

	};

	/** The requests of the writers this client makes (see {@link ApiRequest}). */
	private final ApiRequest writes = this::send;

	/** See {@link #setWholeObjectWrites}. */
	private volatile WholeObjectWrites wholeObjectWrites = WholeObjectWrites.ALLOWED;

	/** The field manager of writers made from now on: {@link #setDefaultFieldManager}. */
	private volatile @Nullable String fieldManager;

	/** What each request takes a token from: {@link #setRequestBudget}. */
	private volatile RequestBudget budget = RequestBudget.unlimited();

	/** Makes the client of {@link #lane()}; {@code null}: this client is its own lane. */
	private volatile @Nullable Supplier<ApiServerClient> laneMaker;

	/** The client of {@link #lane()} once made; guarded by {@code this}. */
	private @Nullable ApiServerClient lane;

	/** Whether {@link #close()} was called; guarded by {@code this}. */
	private boolean closed;

	/**
	 * Makes a client on a rest client that brings its own transport (tests).
	 * @param restClient the client that sends the requests (authentication and TLS set
	 * up)
	 * @param server the API server's base URL, possibly with a path prefix
	 * @param mapper the mapper that binds objects to Java types
	 * @param clock the clock (for Retry-After dates and the age of discovery)
	 */
	ApiServerClient(RestClient restClient, URI server, ObjectMapper mapper, Clock clock) {
		this(restClient, server, mapper, clock, null);
	}

	private ApiServerClient(RestClient restClient, URI server, ObjectMapper mapper, Clock clock,
			@Nullable Transport transport) {
		this.restClient = restClient;
		String base = server.toString();
		this.server = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
		this.mapper = mapper;
		this.clock = clock;
		this.transport = transport;
	}

	/**
	 * Finds a resource through API discovery. What a group/version serves is cached; a
	 * kind or resource it did not serve is looked up again, by discovering the
	 * group/version anew, when the cached list is at least {@link #REDISCOVERY_INTERVAL}
	 * old (so a kind added later, such as a CRD installed after start, is found, and a
	 * typo costs at most one request per 10 seconds). Discovery requests are sent outside
	 * any lock: a slow one holds up no other group/version.
	 * @param apiVersion {@code v1} or {@code group/version}
	 * @param kind the kind, or {@code null} when {@code plural} is given
	 * @param plural the plural resource name, or {@code null} when {@code kind} is given
	 * @param namespace the namespace to watch, or {@code null} for all (ignored for
	 * cluster-scoped resources)
	 * @return the resource
	 * @throws KubernetesApiException of kind NOT_FOUND when the cluster does not serve it
	 */
	Resource resolve(String apiVersion, @Nullable String kind, @Nullable String plural, @Nullable String namespace) {
		Discovery discovered = this.discovery.get(apiVersion);
		if (discovered == null) {
			// two threads may both fetch a group/version the cache lacks: better than one
			// waiting in a lock for the other's request
			discovered = discoveredAhead(apiVersion);
			if (discovered == null) {
				discovered = new Discovery(discover(apiVersion), this.clock.instant());
			}
			this.discovery.put(apiVersion, discovered);
		}
		Resource resource = find(discovered, apiVersion, kind, plural, namespace);
		if (resource == null) {
			discovered = rediscover(apiVersion, discovered);
			resource = find(discovered, apiVersion, kind, plural, namespace);
		}
		if (resource != null) {
			return resource;
		}
		String served = discovered.resources()
			.stream()
			.filter((r) -> !r.name().contains("/"))
			.map((r) -> r.kind() + " (" + r.name() + ")")
			.collect(Collectors.joining(", "));
		String wanted = (plural != null) ? "resource '" + plural + "'" : "kind '" + kind + "'";
		throw new KubernetesApiException(Kind.NOT_FOUND,
				"The API server does not serve " + wanted + " in apiVersion '" + apiVersion + "'; it serves: " + served,
				null);
	}

	/**
	 * Sends the discovery of some group/versions now, one after the other on a daemon
	 * thread of its own, so that the lister-watchers of these group/versions resolve
	 * without a request of their own: the auto-configuration calls it as soon as it has
	 * made the client, and the requests (the first ones of the client, which load its
	 * HTTP machinery) then run while the application context is still being made. It is
	 * the request a resolve would send, sent earlier, not one more: the next resolve of
	 * each group/version waits for it and takes what it found, or its failure (thrown to
	 * that resolve, as its own request's would be; a later resolve sends a request
	 * again). Group/versions discovered already, or being discovered ahead, are left out.
	 * @param apiVersions the group/versions, {@code v1} or {@code group/version}
	 */
	public void discoverAhead(Collection<String> apiVersions) {
		Map<String, CompletableFuture<Discovery>> sent = new LinkedHashMap<>();
		for (String apiVersion : apiVersions) {
			CompletableFuture<Discovery> future = new CompletableFuture<>();
			if (!this.discovery.containsKey(apiVersion) && this.ahead.putIfAbsent(apiVersion, future) == null) {
				sent.put(apiVersion, future);
			}
		}
		if (sent.isEmpty()) {
			return;
		}
		Thread thread = new Thread(() -> sent.forEach((apiVersion, future) -> {
			try {
				future.complete(new Discovery(discover(apiVersion), this.clock.instant()));
			}
			catch (RuntimeException | Error ex) {
				future.completeExceptionally(ex);
			}
		}), "listwatch-discovery");
		thread.setDaemon(true);
		thread.start();
	}

	/**
	 * What the discovery sent ahead of this call found for a group/version, waiting for
	 * it; its failure is thrown.
	 * @return the discovery, or {@code null} when none was sent ahead
	 */
	private @Nullable Discovery discoveredAhead(String apiVersion) {
		CompletableFuture<Discovery> sent = this.ahead.get(apiVersion);
		if (sent == null) {
			return null;
		}
		try {
			return sent.join();
		}
		catch (CompletionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw ex;
		}
		finally {
			this.ahead.remove(apiVersion, sent);
		}
	}

	private static @Nullable Resource find(Discovery discovered, String apiVersion, @Nullable String kind,
			@Nullable String plural, @Nullable String namespace) {
		for (ApiResource r : discovered.resources()) {
			boolean match = (plural != null) ? r.name().equals(plural) : r.kind().equals(kind);
			if (match && !r.name().contains("/")) {
				return new Resource(Target.group(apiVersion), Target.version(apiVersion), r.name(), r.kind(),
						r.namespaced(), r.namespaced() ? emptyToNull(namespace) : null);
			}
		}
		return null;
	}

	/**
	 * Discovers a group/version again after a miss, if its cached list is old enough and
	 * no other thread is at it; the thread that claims the refresh (by replacing the
	 * cached entry with one stamped now) fetches, the others answer from what is cached.
	 * @param apiVersion the group/version
	 * @param stale what was cached when the miss happened
	 * @return what is cached now
	 */
	private Discovery rediscover(String apiVersion, Discovery stale) {
		Instant now = this.clock.instant();
		if (now.isBefore(stale.at().plus(REDISCOVERY_INTERVAL))) {
			return stale;
		}
		if (!this.discovery.replace(apiVersion, stale, new Discovery(stale.resources(), now))) {
			Discovery current = this.discovery.get(apiVersion);
			return (current != null) ? current : stale;
		}
		// a failure leaves the claim in place: the next try waits for the interval too
		Discovery fresh = new Discovery(discover(apiVersion), this.clock.instant());
		this.discovery.put(apiVersion, fresh);
		return fresh;
	}

	/**
	 * A lister-watcher for a resource known already (no discovery). Making it sends no
	 * request; each {@code list} and {@code watch} is one request through this client.
	 * @param <T> the Java type
	 * @param resource the resource, with its plural name and scope
	 * @param type the Java type the objects are bound to ({@code KubernetesObject} keeps
	 * them compact; with {@link Decoding#metadataOnly()} a type is bound from the
	 * {@code PartialObjectMetadata}, so only its {@code apiVersion}, {@code kind} and
	 * {@code metadata} can be set)
	 * @param decoding what is asked for and how objects are held, e.g.
	 * {@link Decoding#DEFAULTS}
	 * @return the lister-watcher, thread-safe
	 */
	public <T> ListerWatcher<T> listerWatcher(Resource resource, Class<T> type, Decoding decoding) {
		Objects.requireNonNull(decoding, "decoding");
		return new HttpListerWatcher<>(this.gets, resource, decoder(type, decoding), decoding.maxEventBytes());
	}

	/**
	 * A lister-watcher for a declared resource, found through discovery on its first use
	 * (so that making it needs no connection); until then its {@code resource()}
	 * describes what was declared. A resource the cluster does not serve fails that use
	 * with a {@link KubernetesApiException} of kind {@code NOT_FOUND}.
	 * @param <T> the Java type
	 * @param target what to list and watch
	 * @param type the Java type the objects are bound to (see
	 * {@link #listerWatcher(Resource, Class, Decoding)})
	 * @param decoding what is asked for and how objects are held, e.g.
	 * {@link Decoding#DEFAULTS}
	 * @return the lister-watcher, thread-safe
	 */
	public <T> ListerWatcher<T> listerWatcher(Target target, Class<T> type, Decoding decoding) {
		Objects.requireNonNull(decoding, "decoding");
		String apiVersion = target.apiVersion();
		String plural = (target.resource() != null) ? target.resource()
				: Objects.requireNonNull(target.kind(), "a Target gives a kind or a resource");
		Resource declared = new Resource(Target.group(apiVersion), Target.version(apiVersion), plural, target.kind(),
				target.namespace() != null, target.namespace());
		return new ResolvingListerWatcher<>(this.gets, declared,
				() -> resolve(target.apiVersion(), target.kind(), target.resource(), target.namespace()),
				decoder(type, decoding), decoding.maxEventBytes());
	}

	private <T> ObjectDecoder<T> decoder(Class<T> type, Decoding decoding) {
		return new ObjectDecoder<>(type, this.mapper, decoding.keepManagedFields(), decoding.metadataOnly(),
				decoding.compressObjects() ? ObjectCompressor.learning() : null);
	}

	/**
	 * A writer of a resource known already (no discovery): reads, creates, updates,
	 * patches, applies and deletes its objects through this client (the watches'
	 * connection, credentials, TLS and proxy), one request per call, on the caller's
	 * thread. Making it sends no request. A namespace of {@code resource} is the default
	 * of objects and calls that give none.
	 * @param <T> the Java type
	 * @param resource the resource, with its plural name and scope
	 * @param type the Java type of the objects: {@code KubernetesObject} (written as its
	 * JSON) or a type Jackson writes and binds with this client's mapper; answers are
	 * bound as the lister-watchers bind list items
	 * @return the writer, with the {@linkplain #setDefaultFieldManager default field
	 * manager} (see {@link ResourceWriter#withFieldManager(String)}), thread-safe
	 */
	public <T> ResourceWriter<T> writer(Resource resource, Class<T> type) {
		Objects.requireNonNull(resource, "resource");
		return new ResourceWriter<>(this.writes, () -> resource, this.mapper, decoder(type, Decoding.DEFAULTS),
				this.fieldManager, () -> this.wholeObjectWrites, (other) -> decoder(other, Decoding.DEFAULTS));
	}

	/**
	 * Sets the default field manager of the writers made from now on.
	 * @param fieldManager the field manager, or {@code null} for none
	 */
	public void setDefaultFieldManager(@Nullable String fieldManager) {
		this.fieldManager = fieldManager;
	}

	/**
	 * Sets the budget that every request from now on takes a token from (list pages,
	 * watch starts, discovery, reads and writes; not the bytes of an open watch). None
	 * until set: the auto-configuration sets {@code listwatch.connection.qps/burst}.
	 * @param budget the budget, e.g. {@link RequestBudget#of(double, int)}
	 */
	public void setRequestBudget(RequestBudget budget) {
		this.budget = Objects.requireNonNull(budget, "budget");
	}

	/**
	 * The budget of this client's requests: its counters are what the meters read.
	 * @return the budget; one without a limit until one is set
	 */
	public RequestBudget requestBudget() {
		return this.budget;
	}

	/**
	 * Sets what the writers of this client ask before they write a whole object
	 * ({@code update}, {@code updateStatus}): the auto-configuration refuses objects read
	 * from a watch whose objects are transformed.
	 * @param wholeObjectWrites the check, {@link WholeObjectWrites#ALLOWED} for none
	 */
	public void setWholeObjectWrites(WholeObjectWrites wholeObjectWrites) {
		this.wholeObjectWrites = Objects.requireNonNull(wholeObjectWrites, "wholeObjectWrites");
	}

	/**
	 * A writer of a declared resource, found through discovery on its first request, as
	 * {@link #listerWatcher(Target, Class, Decoding)} finds it (a resource the cluster
	 * does not serve fails that request with a {@link KubernetesApiException} of kind
	 * {@code NOT_FOUND}); see {@link #writer(Resource, Class)}.
	 * @param <T> the Java type
	 * @param target the resource; its namespace, if any, is the default namespace
	 * @param type the Java type of the objects
	 * @return the writer, with the default field manager, thread-safe
	 */
	public <T> ResourceWriter<T> writer(Target target, Class<T> type) {
		Objects.requireNonNull(target, "target");
		Objects.requireNonNull((target.resource() != null) ? target.resource() : target.kind(),
				"a Target gives a kind or a resource");
		return new ResourceWriter<>(this.writes,
				() -> resolve(target.apiVersion(), target.kind(), target.resource(), target.namespace()), this.mapper,
				decoder(type, Decoding.DEFAULTS), this.fieldManager, () -> this.wholeObjectWrites,
				(other) -> decoder(other, Decoding.DEFAULTS));
	}

	/**
	 * Finds the resource of a lister-watcher made by
	 * {@link #listerWatcher(Target, Class, Decoding)} now, through discovery, on the
	 * caller's thread (the auto-configuration's startup check); any other lister-watcher
	 * answers its {@code resource()} at once.
	 * @param listerWatcher the lister-watcher
	 * @return its resource
	 * @throws KubernetesApiException when discovery fails or the cluster does not serve
	 * it
	 */
	public static Resource resolveNow(ListerWatcher<?> listerWatcher) {
		return (listerWatcher instanceof ResolvingListerWatcher<?> resolving) ? resolving.resolve()
				: listerWatcher.resource();
	}

	/**
	 * Whether a lister-watcher's {@code resource()} is what the cluster serves: one made
	 * by {@link #listerWatcher(Target, Class, Decoding)} once discovery has found its
	 * resource (its first use, or {@link #resolveNow}); any other lister-watcher always.
	 * Until then its {@code resource()} is what was declared, whose scope is a guess (a
	 * watch of all namespaces reads as cluster-scoped).
	 * @param listerWatcher the lister-watcher
	 * @return whether its resource is resolved
	 */
	public static boolean isResolved(ListerWatcher<?> listerWatcher) {
		return !(listerWatcher instanceof ResolvingListerWatcher<?> resolving) || resolving.isResolved();
	}

	/**
	 * Makes a client for a cluster with a builder from Boot (so its customizers and
	 * observations apply; the builder is cloned, not changed). Builds the cluster's
	 * transport now: the JDK HTTP client with the cluster's TLS ({@code tls-server-name}
	 * as SNI and as the name checked, {@code insecure-skip-tls-verify}), proxy and
	 * connect timeout (or, for an {@code https://} or {@code socks5://} proxy, or an
	 * {@code http://} one with credentials for an {@code https} server, Jetty's HTTP
	 * client, which must then be on the class path); sends no request. The cluster's
	 * credentials set the {@code Authorization} header of every request and are refreshed
	 * once after a 401.
	 * @param cluster the cluster
	 * @param builder the builder
	 * @param mapper the mapper that binds objects to Java types
	 * @param clock the clock (Retry-After dates, the age of discovery)
	 * @return the client; the caller owns it and closes it
	 * @throws IllegalStateException when the cluster's proxy needs Jetty's HTTP client
	 * ({@code org.eclipse.jetty:jetty-client}) and it is not on the class path
	 */
	public static ApiServerClient create(Cluster cluster, RestClient.Builder builder, JsonMapper mapper, Clock clock) {
		return create(cluster, builder, mapper, clock, DEFAULT_HTTP2);
	}

	/**
	 * Makes a client as {@link #create(Cluster, RestClient.Builder, JsonMapper, Clock)}
	 * does, choosing the HTTP version.
	 * @param cluster the cluster
	 * @param builder the builder
	 * @param mapper the mapper that binds objects to Java types
	 * @param clock the clock (Retry-After dates, the age of discovery)
	 * @param http2 whether to speak HTTP/2 to an {@code https} server that offers it
	 * (ALPN): then every request and watch is a stream of one shared connection; plain
	 * {@code http}, and a proxy that needs Jetty's client, stay on HTTP/1.1, one
	 * connection per open watch
	 * @return the client; the caller owns it and closes it
	 * @throws IllegalStateException when the cluster's proxy needs Jetty's HTTP client
	 * ({@code org.eclipse.jetty:jetty-client}) and it is not on the class path
	 */
	public static ApiServerClient create(Cluster cluster, RestClient.Builder builder, JsonMapper mapper, Clock clock,
			boolean http2) {
		Objects.requireNonNull(cluster, "cluster");
		Objects.requireNonNull(builder, "builder");
		Objects.requireNonNull(mapper, "mapper");
		Objects.requireNonNull(clock, "clock");
		Credentials credentials = cluster.credentials();
		Transport transport = Transport.create(cluster, http2);
		try {
			RestClient restClient = builder.clone()
				.requestFactory(transport.requestFactory())
				.requestInterceptor(new AuthorizationInterceptor(credentials::authorization, credentials::refresh))
				.build();
			ApiServerClient client = new ApiServerClient(restClient, cluster.server(), mapper, clock, transport);
			// HTTP/1.1: a request given up closes its own connection, so the next one
			// (a Lease renewal within the same deadline) opens a fresh one at once
			client.laneMaker = () -> create(cluster, builder, mapper, clock, false);
			return client;
		}
		catch (RuntimeException | Error ex) {
			// a customizer failed: release what the transport holds
			transport.close();
			throw ex;
		}
	}

	/**
	 * Releases the transport: stops the client's threads. Open watches break and later
	 * requests fail (as {@code CONNECTION}); stop the informers first. Idempotent; on
	 * Jetty's client (a proxy the JDK client cannot use) waits up to a second for its
	 * threads.
	 */
	@Override
	public void close() {
		ApiServerClient own;
		synchronized (this) {
			this.closed = true;
			own = this.lane;
		}
		if (own != null && own != this) {
			own.close();
		}
		if (this.transport != null) {
			this.transport.close();
		}
	}

	/**
	 * A client of the same API server, with the same credentials, proxy and TLS, on
	 * connections of its own (HTTP/1.1, so that a request given up takes its connection
	 * with it) and with a request budget of its own (none): for traffic that must not
	 * wait behind the watches, lists and writes of this client, nor share their
	 * connection (a relist storm that uses up the budget, one silently dead HTTP/2
	 * connection). Leader election and shard memberships send their Lease requests
	 * through it, as client-go builds the election client apart. Made on the first call
	 * (one for all callers), closed with this client. A client made on a rest client of
	 * its own (tests) is its own lane.
	 * @return the lane
	 * @throws IllegalStateException when this client is closed
	 */
	public ApiServerClient lane() {
		Supplier<ApiServerClient> maker = this.laneMaker;
		if (maker == null) {
			return this;
		}
		synchronized (this) {
			if (this.closed) {
				throw new IllegalStateException("The client is closed");
			}
			ApiServerClient made = this.lane;
			if (made == null) {
				made = maker.get();
				made.setDefaultFieldManager(this.fieldManager);
				this.lane = made;
			}
			return made;
		}
	}

	/**
	 * The transport this client owns (for tests).
	 * @return the transport, or {@code null}
	 */
	@Nullable Transport transport() {
		return this.transport;
	}

	/**
	 * What a declared watch lists and watches: one of {@code kind} and {@code resource}
	 * is given.
	 *
	 * @param apiVersion {@code v1} or {@code group/version}
	 * @param kind the kind, or {@code null} when {@code resource} is given
	 * @param resource the plural resource name, or {@code null} when {@code kind} is
	 * given
	 * @param namespace the namespace, or {@code null} for all
	 */
	public record Target(String apiVersion, @Nullable String kind, @Nullable String resource,
			@Nullable String namespace) {

		/** The group of {@code v1} (empty: the core group) or {@code group/version}. */
		static String group(String apiVersion) {
			int slash = apiVersion.indexOf('/');
			return (slash >= 0) ? apiVersion.substring(0, slash) : "";
		}

		/** The version of {@code v1} or {@code group/version}. */
		static String version(String apiVersion) {
			return apiVersion.substring(apiVersion.indexOf('/') + 1);
		}

	}

	/**
	 * What a lister-watcher asks the API server for and how it holds the objects: one
	 * value instead of a parameter each.
	 * <p>
	 * {@code metadataOnly}: lists and watches ask for the objects' metadata alone, as
	 * client-go's metadata informer does ({@code Accept:
	 * application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1} for lists,
	 * {@code ...;as=PartialObjectMetadata;...} for watches, streaming lists included):
	 * the server answers {@code PartialObjectMetadata} objects ({@code apiVersion}
	 * {@code meta.k8s.io/v1}, {@code kind} {@code PartialObjectMetadata}, then
	 * {@code metadata} only: name, namespace, uid, resourceVersion, labels, annotations,
	 * owner references, finalizers, timestamps), so a Secret's {@code data} or a Pod's
	 * {@code spec} never reaches the process. No other media type is offered: a server
	 * that cannot serve metadata alone (some aggregated API servers) answers
	 * {@code 406 Not Acceptable} rather than whole objects, and a list or event whose
	 * object is of another kind fails as {@code DECODE}. Annotations are kept, kubectl's
	 * {@code last-applied-configuration} (the whole body) among them.
	 * <p>
	 * {@code compressObjects}: {@link dev.listwatch.KubernetesObject}s hold their JSON
	 * compressed with a dictionary learned from the lister-watcher's first objects (see
	 * {@link dev.listwatch.ObjectCompressor}), their metadata decoded as ever; for a
	 * large cache in little heap, at some CPU per object written and per body read.
	 * Objects bound to another Java type are not affected.
	 *
	 * @param metadataOnly whether lists and watches ask for {@code PartialObjectMetadata}
	 * only
	 * @param keepManagedFields whether objects keep {@code metadata.managedFields}
	 * @param maxEventBytes the size limit of one watch event or list item, at least 1
	 * @param compressObjects whether {@code KubernetesObject}s hold their JSON compressed
	 */
	public record Decoding(boolean metadataOnly, boolean keepManagedFields, int maxEventBytes,
			boolean compressObjects) {

		/**
		 * Whole objects, without {@code managedFields}, events up to
		 * {@link ApiServerClient#DEFAULT_MAX_EVENT_BYTES}.
		 */
		public static final Decoding DEFAULTS = new Decoding(false, false, DEFAULT_MAX_EVENT_BYTES, false);

		/**
		 * Checks the size limit.
		 * @throws IllegalArgumentException when {@code maxEventBytes} is not positive
		 */
		public Decoding {
			if (maxEventBytes < 1) {
				throw new IllegalArgumentException("maxEventBytes must be at least 1, not " + maxEventBytes);
			}
		}

		/**
		 * Decoding that holds objects' JSON as it is.
		 * @param metadataOnly whether lists and watches ask for
		 * {@code PartialObjectMetadata} only
		 * @param keepManagedFields whether objects keep {@code metadata.managedFields}
		 * @param maxEventBytes the size limit of one watch event or list item, at least 1
		 * @throws IllegalArgumentException when {@code maxEventBytes} is not positive
		 */
		public Decoding(boolean metadataOnly, boolean keepManagedFields, int maxEventBytes) {
			this(metadataOnly, keepManagedFields, maxEventBytes, false);
		}

		/**
		 * This value with {@code metadataOnly} changed.
		 * @param metadataOnly whether to ask for {@code PartialObjectMetadata} only
		 * @return a new value
		 */
		public Decoding withMetadataOnly(boolean metadataOnly) {
			return new Decoding(metadataOnly, this.keepManagedFields, this.maxEventBytes, this.compressObjects);
		}

		/**
		 * This value with {@code keepManagedFields} changed.
		 * @param keepManagedFields whether objects keep {@code metadata.managedFields}
		 * @return a new value
		 */
		public Decoding withKeepManagedFields(boolean keepManagedFields) {
			return new Decoding(this.metadataOnly, keepManagedFields, this.maxEventBytes, this.compressObjects);
		}

		/**
		 * This value with {@code maxEventBytes} changed.
		 * @param maxEventBytes the size limit of one watch event or list item
		 * @return a new value
		 */
		public Decoding withMaxEventBytes(int maxEventBytes) {
			return new Decoding(this.metadataOnly, this.keepManagedFields, maxEventBytes, this.compressObjects);
		}

		/**
		 * This value with {@code compressObjects} changed.
		 * @param compressObjects whether {@code KubernetesObject}s hold their JSON
		 * compressed
		 * @return a new value
		 */
		public Decoding withCompressObjects(boolean compressObjects) {
			return new Decoding(this.metadataOnly, this.keepManagedFields, this.maxEventBytes, compressObjects);
		}

	}

	/**
	 * The base URL.
	 * @return the server URL
	 */
	String server() {
		return this.server;
	}

	/**
	 * Names the server only.
	 * @return e.g. {@code ApiServerClient[https://127.0.0.1:6443]}
	 */
	@Override
	public String toString() {
		return "ApiServerClient[" + this.server + "]";
	}

	private List<ApiResource> discover(String apiVersion) {
		String path = apiVersion.contains("/") ? "/apis/" + apiVersion : "/api/" + apiVersion;
		byte[] body = getBytes(path);
		try {
			JsonNode root = this.mapper.readTree(body);
			List<ApiResource> resources = new ArrayList<>();
			for (JsonNode r : root.path("resources")) {
				resources.add(new ApiResource(r.path("name").asString(), r.path("kind").asString(),
						r.path("namespaced").asBoolean()));
			}
			return List.copyOf(resources);
		}
		catch (RuntimeException ex) {
			throw ApiErrors.decode("GET " + path, ex);
		}
	}

	/**
	 * Sends a GET and returns the whole body.
	 * @param pathAndQuery the path and query
	 * @return the body
	 */
	byte[] getBytes(String pathAndQuery) {
		String request = "GET " + pathAndQuery;
		return exchange(pathAndQuery, (response) -> {
			try (InputStream in = response.getBody()) {
				return in.readAllBytes();
			}
			catch (IOException ex) {
				throw ApiErrors.connection(request, ex);
			}
		}, true);
	}

	/**
	 * Sends a GET and hands a successful response to {@code handler}; an error status
	 * becomes a {@link KubernetesApiException}, as do a failed connection (kind
	 * CONNECTION) and credentials that could not be obtained for the request (kind
	 * CREDENTIALS). What the handler throws otherwise is thrown as it is.
	 * @param <R> the result
	 * @param pathAndQuery the path and query
	 * @param handler what to do with a 2xx response
	 * @param close whether to close the response after the handler
	 * @return what the handler returned
	 */
	<R> R exchange(String pathAndQuery, ApiExchange.ResponseHandler<R> handler, boolean close) {
		return exchange(pathAndQuery, MediaType.APPLICATION_JSON_VALUE, handler, close);
	}

	/**
	 * Sends a GET with an {@code Accept} header of its own, as
	 * {@link #exchange(String, ApiExchange.ResponseHandler, boolean)} does otherwise
	 * (what the lister-watchers send, through {@link #gets}).
	 * @param <R> the result
	 * @param pathAndQuery the path and query
	 * @param accept the {@code Accept} header
	 * @param handler what to do with a 2xx response
	 * @param close whether to close the response after the handler
	 * @return what the handler returned
	 */
	<R> R exchange(String pathAndQuery, String accept, ApiExchange.ResponseHandler<R> handler, boolean close) {
		String request = "GET " + pathAndQuery;
		this.budget.acquire(request);
		try {
			return this.restClient.get()
				.uri(URI.create(this.server + pathAndQuery))
				.header(HttpHeaders.ACCEPT, accept)
				.exchange((req, response) -> {
					if (!response.getStatusCode().is2xxSuccessful()) {
						try {
							throw ApiErrors.fromResponse(request, response, this.clock);
						}
						finally {
							response.close();
						}
					}
					return handler.handle(response);
				}, close);
		}
		catch (KubernetesApiException ex) {
			throw ex;
		}
		catch (AuthorizationInterceptor.CredentialsUnavailable ex) {
			// the request was not sent: it is about what, not where
			throw ApiErrors.credentials(request, Objects.requireNonNull(ex.getCause(), "made with a cause"));
		}
		catch (RestClientException | UncheckedIOException ex) {
			// name the server: a connection failure is about where, not what
			throw ApiErrors.connection("GET " + this.server + pathAndQuery, ex);
		}
	}

	/**
	 * Sends one request with a JSON body (or none) and returns the whole body of a 2xx
	 * response: for the few plain reads and writes that are not lists or watches, such as
	 * a {@code coordination.k8s.io/v1} Lease's GET, POST and PUT. Runs on the caller's
	 * thread; an interrupt of that thread aborts the request (as {@code CONNECTION}).
	 * @param method the method, e.g. {@link HttpMethod#PUT}
	 * @param pathAndQuery the path (and query) below the server's URL, e.g.
	 * {@code /apis/coordination.k8s.io/v1/namespaces/default/leases/app}
	 * @param json the request's JSON body, or {@code null} for none
	 * @return the response body, possibly empty
	 * @throws KubernetesApiException on an error status (its {@code code()} tells, e.g.
	 * 404 or 409 Conflict), a failed connection ({@code CONNECTION}) or credentials that
	 * could not be obtained ({@code CREDENTIALS}); the message names the request, never
	 * the body
	 */
	public byte[] exchangeJson(HttpMethod method, String pathAndQuery, byte @Nullable [] json) {
		ApiRequest.Reply reply = send(method, pathAndQuery, (json != null) ? MediaType.APPLICATION_JSON_VALUE : null,
				json);
		if (!reply.ok()) {
			throw ApiErrors.fromBody(method.name() + " " + pathAndQuery, reply.code(), reply.body(),
					reply.retryAfter());
		}
		return reply.body();
	}

	/**
	 * Sends one request and reads its answer whatever its status (see
	 * {@link ApiRequest}): what {@link #exchangeJson} and the writers send.
	 */
	private ApiRequest.Reply send(HttpMethod method, String pathAndQuery, @Nullable String contentType,
			byte @Nullable [] body) {
		String request = method.name() + " " + pathAndQuery;
		this.budget.acquire(request);
		try {
			RestClient.RequestBodySpec spec = this.restClient.method(method)
				.uri(URI.create(this.server + pathAndQuery))
				.header(HttpHeaders.ACCEPT, MediaType.APPLICATION_JSON_VALUE);
			if (body != null && contentType != null) {
				spec = spec.contentType(MediaType.parseMediaType(contentType)).body(body);
			}
			return spec.exchange((req, response) -> {
				int code = response.getStatusCode().value();
				boolean ok = code >= 200 && code < 300;
				Duration retryAfter = ok ? null : ApiErrors.retryAfter(response.getHeaders(), this.clock);
				try (InputStream in = response.getBody()) {
					return new ApiRequest.Reply(code, ok ? in.readAllBytes() : ApiErrors.readErrorBody(in), retryAfter);
				}
				catch (IOException ex) {
					if (!ok) {
						// the status code is enough
						return new ApiRequest.Reply(code, new byte[0], retryAfter);
					}
					if (!READS.contains(method)) {
						throw ApiErrors.answerLost(request, code, ex);
					}
					throw ApiErrors.connection(request, ex);
				}
			}, true);
		}
		catch (KubernetesApiException ex) {
			throw ex;
		}
		catch (AuthorizationInterceptor.CredentialsUnavailable ex) {
			throw ApiErrors.credentials(request, Objects.requireNonNull(ex.getCause(), "made with a cause"));
		}
		catch (RestClientException | UncheckedIOException ex) {
			String where = method.name() + " " + this.server + pathAndQuery;
			if (!READS.contains(method) && !ApiErrors.notSent(ex)) {
				// a write that may have reached the server: never sent again here (a
				// create with generateName would make a second object), and said so
				throw ApiErrors.outcomeUnknown(where, ex);
			}
			throw ApiErrors.connection(where, ex);
		}
	}

	private static @Nullable String emptyToNull(@Nullable String value) {
		return (value == null || value.isEmpty()) ? null : value;
	}

}
