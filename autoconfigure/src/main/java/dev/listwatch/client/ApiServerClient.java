package dev.listwatch.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.ListerWatcher;
import dev.listwatch.Resource;

import org.springframework.http.MediaType;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The API server as list-watch sees it: discovery (kind to resource, cached) and a
 * {@link ListerWatcher} per resource, all through one {@link RestClient} (built from Boot's
 * builder, so its customizers and observations apply). Thread-safe.
 */
public final class ApiServerClient {

	/** Default limit of one watch event or list item frame. */
	public static final int DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;

	private final RestClient restClient;

	private final String server;

	private final ObjectMapper mapper;

	private final Clock clock;

	private final Map<String, List<ApiResource>> discovery = new ConcurrentHashMap<>();

	/**
	 * Makes a client.
	 * @param restClient the client that sends the requests (authentication and TLS set up)
	 * @param server the API server's base URL, possibly with a path prefix
	 * @param mapper the mapper that binds objects to Java types
	 * @param clock the clock (for Retry-After dates)
	 */
	public ApiServerClient(RestClient restClient, URI server, ObjectMapper mapper, Clock clock) {
		this.restClient = restClient;
		String base = server.toString();
		this.server = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
		this.mapper = mapper;
		this.clock = clock;
	}

	/**
	 * Finds a resource through API discovery (cached per group/version).
	 * @param apiVersion {@code v1} or {@code group/version}
	 * @param kind the kind, or {@code null} when {@code plural} is given
	 * @param plural the plural resource name, or {@code null} when {@code kind} is given
	 * @param namespace the namespace to watch, or {@code null} for all (ignored for cluster-scoped
	 * resources)
	 * @return the resource
	 * @throws KubernetesApiException of kind NOT_FOUND when the cluster does not serve it
	 */
	public Resource resolve(String apiVersion, String kind, String plural, String namespace) {
		String group = Target.group(apiVersion);
		String version = Target.version(apiVersion);
		List<ApiResource> resources = this.discovery.computeIfAbsent(apiVersion, this::discover);
		for (ApiResource r : resources) {
			boolean match = (plural != null) ? r.name().equals(plural) : r.kind().equals(kind);
			if (match && !r.name().contains("/")) {
				return new Resource(group, version, r.name(), r.kind(), r.namespaced(),
						r.namespaced() ? emptyToNull(namespace) : null);
			}
		}
		String served = resources.stream()
			.filter((r) -> !r.name().contains("/"))
			.map((r) -> r.kind() + " (" + r.name() + ")")
			.collect(Collectors.joining(", "));
		String wanted = (plural != null) ? "resource '" + plural + "'" : "kind '" + kind + "'";
		throw new KubernetesApiException(Kind.NOT_FOUND,
				"The API server does not serve " + wanted + " in apiVersion '" + apiVersion + "'; it serves: " + served,
				null);
	}

	/**
	 * A lister-watcher for a resource.
	 * @param <T> the Java type
	 * @param resource the resource (see {@link #resolve})
	 * @param type the Java type the objects are bound to ({@code KubernetesObject} keeps them
	 * compact)
	 * @param keepManagedFields whether objects keep {@code metadata.managedFields}
	 * @param maxEventBytes the size limit of one event
	 * @return the lister-watcher
	 */
	public <T> ListerWatcher<T> listerWatcher(Resource resource, Class<T> type, boolean keepManagedFields,
			int maxEventBytes) {
		return new HttpListerWatcher<>(this, resource, new ObjectDecoder<>(type, this.mapper, keepManagedFields),
				maxEventBytes);
	}

	/**
	 * A lister-watcher for a declared resource, found through discovery on first use (so that
	 * making it needs no connection).
	 * @param <T> the Java type
	 * @param target what to list and watch
	 * @param type the Java type the objects are bound to
	 * @param keepManagedFields whether objects keep {@code metadata.managedFields}
	 * @param maxEventBytes the size limit of one event
	 * @return the lister-watcher
	 */
	public <T> ListerWatcher<T> listerWatcher(Target target, Class<T> type, boolean keepManagedFields,
			int maxEventBytes) {
		return new ResolvingListerWatcher<>(this, target, new ObjectDecoder<>(type, this.mapper, keepManagedFields),
				maxEventBytes);
	}

	/**
	 * Finds the resource of a lister-watcher made by
	 * {@link #listerWatcher(Target, Class, boolean, int)} now, through discovery.
	 * @param listerWatcher the lister-watcher
	 * @return its resource
	 * @throws KubernetesApiException when discovery fails or the cluster does not serve it
	 */
	public static Resource resolveNow(ListerWatcher<?> listerWatcher) {
		return (listerWatcher instanceof ResolvingListerWatcher<?> resolving) ? resolving.resolve()
				: listerWatcher.resource();
	}

	/**
	 * Makes a client for a cluster with a builder from Boot (so its customizers and observations
	 * apply): the cluster's TLS and proxy through its request factory, its credentials through an
	 * interceptor that refreshes them after a 401.
	 * @param cluster the cluster
	 * @param builder the builder
	 * @param mapper the mapper for binding objects
	 * @param clock the clock
	 * @return the client
	 */
	public static ApiServerClient create(dev.listwatch.cluster.Cluster cluster, RestClient.Builder builder,
			ObjectMapper mapper, Clock clock) {
		dev.listwatch.cluster.Credentials credentials = cluster.credentials();
		RestClient restClient = builder.requestFactory(cluster.requestFactory())
			.requestInterceptor(new AuthorizationInterceptor(credentials::authorization, credentials::refresh))
			.build();
		return new ApiServerClient(restClient, cluster.server(), mapper, clock);
	}

	/**
	 * What a declared watch lists and watches.
	 *
	 * @param apiVersion {@code v1} or {@code group/version}
	 * @param kind the kind, or {@code null} when {@code resource} is given
	 * @param resource the plural resource name, or {@code null} when {@code kind} is given
	 * @param namespace the namespace, or {@code null} for all
	 */
	public record Target(String apiVersion, String kind, String resource, String namespace) {

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
	 * The base URL.
	 * @return the server URL
	 */
	public String server() {
		return this.server;
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
	 * Sends a GET and hands a successful response to {@code handler}; an error status becomes a
	 * {@link KubernetesApiException}, as do a failed connection (kind CONNECTION) and credentials
	 * that could not be obtained for the request (kind CREDENTIALS). What the handler throws
	 * otherwise is thrown as it is.
	 * @param <R> the result
	 * @param pathAndQuery the path and query
	 * @param handler what to do with a 2xx response
	 * @param close whether to close the response after the handler
	 * @return what the handler returned
	 */
	<R> R exchange(String pathAndQuery, ResponseHandler<R> handler, boolean close) {
		String request = "GET " + pathAndQuery;
		try {
			return this.restClient.get()
				.uri(URI.create(this.server + pathAndQuery))
				.accept(MediaType.APPLICATION_JSON)
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
			throw ApiErrors.credentials(request, ex.getCause());
		}
		catch (RestClientException | UncheckedIOException ex) {
			AuthorizationInterceptor.CredentialsUnavailable credentials = credentialsFailure(ex);
			if (credentials != null) {
				throw ApiErrors.credentials(request, credentials.getCause());
			}
			// name the server: a connection failure is about where, not what
			throw ApiErrors.connection("GET " + this.server + pathAndQuery, ex);
		}
	}

	/** The credential failure in the cause chain (should a wrapper ever hide it), or {@code null}. */
	private static AuthorizationInterceptor.CredentialsUnavailable credentialsFailure(Throwable ex) {
		java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
		for (Throwable t = ex; t != null && seen.add(t); t = t.getCause()) {
			if (t instanceof AuthorizationInterceptor.CredentialsUnavailable credentials) {
				return credentials;
			}
		}
		return null;
	}

	static String query(Map<String, Object> parameters) {
		StringBuilder query = new StringBuilder();
		parameters.forEach((name, value) -> {
			if (value != null) {
				query.append((query.length() == 0) ? '?' : '&')
					.append(name)
					.append('=')
					.append(URLEncoder.encode(value.toString(), StandardCharsets.UTF_8));
			}
		});
		return query.toString();
	}

	private static String emptyToNull(String value) {
		return (value == null || value.isEmpty()) ? null : value;
	}

	/** What to do with a successful response. */
	@FunctionalInterface
	interface ResponseHandler<R> {

		R handle(ClientHttpResponse response) throws IOException;

	}

	private record ApiResource(String name, String kind, boolean namespaced) {
	}

}
