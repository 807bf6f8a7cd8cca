package dev.listwatch.client;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.KubernetesObject;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Resource;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.http.HttpMethod;

/**
 * Reads and changes the objects of one resource on the API server: what a reconciler does
 * to the cluster (client-go's typed and dynamic clients, the ClientSet's role), on the
 * connection of the watches. Made by {@link ApiServerClient#writer(Resource, Class)} (or
 * for a declared resource, found through discovery on first use); each call is one
 * request through that client (its transport, TLS, proxy and credentials, refreshed once
 * after a 401), on the caller's thread, which an interrupt aborts (as
 * {@code CONNECTION}). Nothing is retried: a caller that meets a {@link Kind#CONFLICT}
 * reads the object again (from its cache or with {@link #get}) and tries once more, as a
 * controller does when it requeues.
 *
 * <p>
 * <b>Objects.</b> A {@link KubernetesObject} is written as its JSON; any other type as
 * the client's Jackson mapper writes it (a record holding {@link ObjectMeta} writes only
 * the metadata it holds, so an update drops the annotations it lacks). A body without
 * {@code apiVersion} or {@code kind} gets the resource's. The namespace is the object's
 * {@code metadata.namespace}, else the writer's (the namespace of the resource it was
 * made for), and is ignored for a cluster-scoped resource. The server's answer is bound
 * to {@code T} as the lister-watchers bind list items ({@code managedFields} left out).
 *
 * <p>
 * <b>Failures.</b> Every failure is a {@link KubernetesApiException}: an error status by
 * its kind ({@code CONFLICT} for 409, {@code INVALID} for 422, ...), a broken connection
 * as {@code CONNECTION}, credentials that could not be obtained as {@code CREDENTIALS},
 * an answer that does not bind to {@code T} (the write having succeeded) as
 * {@code DECODE}. The message names what was asked, the resource and the object
 * ({@code update configmaps.v1 default/app failed: 409 Conflict: ...}) and the server's
 * reason and message; of a 400 or 422, whose messages quote values, it holds the fields
 * each cause names instead of the message. No message holds the body sent, a value of the
 * object, or a secret. An object, patch or name that cannot be sent (no name, no
 * namespace for a namespaced resource, no field manager for an apply, a type Jackson
 * cannot write) fails with an {@link IllegalArgumentException} before any request.
 *
 * <p>
 * Immutable and thread-safe; {@link #withFieldManager(String)} makes a copy.
 *
 * @param <T> the Java type of the objects
 */
public final class ResourceWriter<T> {

	private static final String JSON = "application/json";

	private static final String APPLY = "application/apply-patch+yaml";

	private final ApiRequest requests;

	private final Resolved resolved;

	private final ObjectMapper mapper;

	private final ObjectDecoder<T> decoder;

	private final @Nullable String fieldManager;

	/** What is asked before a whole object is written. */
	private final Supplier<WholeObjectWrites> wholeObjectWrites;

	/** The decoder of a type, for copies of an object written whole. */
	private final Function<Class<?>, @Nullable ObjectDecoder<?>> decoders;

	ResourceWriter(ApiRequest requests, Supplier<Resource> resolver, ObjectMapper mapper, ObjectDecoder<T> decoder,
			@Nullable String fieldManager) {
		this(requests, new Resolved(resolver), mapper, decoder, fieldManager, () -> WholeObjectWrites.ALLOWED,
				(type) -> null);
	}

	ResourceWriter(ApiRequest requests, Supplier<Resource> resolver, ObjectMapper mapper, ObjectDecoder<T> decoder,
			@Nullable String fieldManager, Supplier<WholeObjectWrites> wholeObjectWrites,
			Function<Class<?>, @Nullable ObjectDecoder<?>> decoders) {
		this(requests, new Resolved(resolver), mapper, decoder, fieldManager, wholeObjectWrites, decoders);
	}

	private ResourceWriter(ApiRequest requests, Resolved resolved, ObjectMapper mapper, ObjectDecoder<T> decoder,
			@Nullable String fieldManager, Supplier<WholeObjectWrites> wholeObjectWrites,
			Function<Class<?>, @Nullable ObjectDecoder<?>> decoders) {
		this.wholeObjectWrites = wholeObjectWrites;
		this.decoders = decoders;
		this.requests = requests;
		this.resolved = resolved;
		this.mapper = mapper;
		this.decoder = decoder;
		this.fieldManager = fieldManager;
	}

	/**
	 * This writer with a default field manager: sent as {@code fieldManager} with every
	 * create, update, patch and apply (where an {@link ApplyOptions} names none), so that
	 * {@code metadata.managedFields} name the application. The auto-configuration sets
	 * {@code spring.application.name}.
	 * @param fieldManager the field manager, for example {@code my-operator}
	 * @return a copy that shares this writer's resource and decoding
	 * @throws IllegalArgumentException when it is blank
	 */
	public ResourceWriter<T> withFieldManager(String fieldManager) {
		return new ResourceWriter<>(this.requests, this.resolved, this.mapper, this.decoder,
				ObjectPath.requireText(fieldManager, "fieldManager"), this.wholeObjectWrites, this.decoders);
	}

	/**
	 * The default field manager.
	 * @return the field manager, or {@code null} when none was set
	 */
	public @Nullable String fieldManager() {
		return this.fieldManager;
	}

	/**
	 * The resource written, found through discovery on the first call for a writer of a
	 * declared resource.
	 * @return the resource
	 * @throws KubernetesApiException when discovery fails or the cluster does not serve
	 * it ({@code NOT_FOUND})
	 */
	public Resource resource() {
		return this.resolved.get();
	}

	/**
	 * Reads an object from the API server (not from a cache): {@code GET}.
	 * @param namespace the namespace, or {@code null} for the writer's (ignored for a
	 * cluster-scoped resource)
	 * @param name the name
	 * @return the object, or empty when the server answers 404
	 * @throws KubernetesApiException when the request fails otherwise
	 */
	public Optional<T> get(@Nullable String namespace, String name) {
		ObjectPath target = target(namespace, name);
		Reply reply = send("get", target, HttpMethod.GET, target.path(false), null, null);
		return reply.missing() ? Optional.empty() : Optional.of(reply.success());
	}

	/**
	 * Creates an object: {@code POST} to the collection. Its {@code metadata.name} (or
	 * {@code generateName}) names it; it must not carry a {@code resourceVersion}.
	 * @param object the object
	 * @return the object created, as the server answered it
	 * @throws KubernetesApiException when the request fails, e.g. {@code CONFLICT}
	 * ({@code AlreadyExists}) or {@code INVALID}
	 */
	public T create(T object) {
		Body body = body(object, false);
		return send("create", body.target(), HttpMethod.POST, body.target().collection() + query(null, false), JSON,
				body.json())
			.success();
	}

	/**
	 * Replaces an object: {@code PUT}. Its {@code metadata.resourceVersion} is a
	 * precondition: the update fails with {@link Kind#CONFLICT} when the object changed
	 * since that version was read (an object without one is written whatever changed,
	 * where the resource allows it). Changes to {@code status} are ignored where the
	 * resource has a status subresource.
	 * @param object the object, as read and changed
	 * @return the object updated
	 * @throws KubernetesApiException when the request fails, e.g. {@code CONFLICT}
	 */
	public T update(T object) {
		return put("update", object, false);
	}

	/**
	 * Replaces an object's {@code status}: {@code PUT} to its {@code status} subresource,
	 * with the resourceVersion precondition of {@link #update}; only the status changes.
	 * @param object the object, its status changed
	 * @return the object updated
	 * @throws KubernetesApiException when the request fails, e.g. {@code CONFLICT}, or
	 * {@code NOT_FOUND} for a resource without a status subresource
	 */
	public T updateStatus(T object) {
		return put("update status of", object, true);
	}

	/**
	 * Patches an object: {@code PATCH} with the patch's media type.
	 * @param namespace the namespace, or {@code null} for the writer's
	 * @param name the name
	 * @param patch the patch
	 * @return the object patched
	 * @throws KubernetesApiException when the request fails, e.g. {@code NOT_FOUND}, or
	 * {@code CONFLICT} when a JSON patch's {@code test} operation or a merge patch's
	 * {@code resourceVersion} does not hold
	 */
	public T patch(@Nullable String namespace, String name, Patch patch) {
		return patch("patch", namespace, name, patch, false);
	}

	/**
	 * Patches an object's {@code status} subresource, as {@link #patch} does the object.
	 * @param namespace the namespace, or {@code null} for the writer's
	 * @param name the name
	 * @param patch the patch of the object (e.g. {@code {"status":{...}}})
	 * @return the object patched
	 * @throws KubernetesApiException when the request fails
	 */
	public T patchStatus(@Nullable String namespace, String name, Patch patch) {
		return patch("patch status of", namespace, name, patch, true);
	}

	/**
	 * Applies an object (server-side apply): {@code PATCH} as
	 * {@code application/apply-patch+yaml} with the object's JSON (which is YAML). The
	 * object says what the field manager wants set (its intent, usually a few fields; not
	 * an object read from the server, whose every field it would then own); the server
	 * merges it, creating the object if it does not exist, and fails with
	 * {@link Kind#CONFLICT} when it would change a field another manager owns, unless
	 * forced.
	 * @param object the applied configuration, with {@code metadata.name}
	 * @param options the field manager and force
	 * @return the object as it is after the apply
	 * @throws IllegalArgumentException when neither the options nor the writer name a
	 * field manager
	 * @throws KubernetesApiException when the request fails, e.g. {@code CONFLICT}
	 */
	public T apply(T object, ApplyOptions options) {
		return apply("apply", object, options, false);
	}

	/**
	 * Applies an object's {@code status} (server-side apply to the status subresource),
	 * as {@link #apply} does the object.
	 * @param object the applied configuration of the status, with {@code metadata.name}
	 * @param options the field manager and force
	 * @return the object as it is after the apply
	 * @throws KubernetesApiException when the request fails, e.g. {@code CONFLICT}
	 */
	public T applyStatus(T object, ApplyOptions options) {
		return apply("apply status of", object, options, true);
	}

	/**
	 * Deletes an object: {@code DELETE}. An object with finalizers is only marked for
	 * deletion (its {@code deletionTimestamp} set); it is gone once they are removed.
	 * @param namespace the namespace, or {@code null} for the writer's
	 * @param name the name
	 * @return {@code true} when deleted (or marked), {@code false} when the server
	 * answers 404
	 * @throws KubernetesApiException when the request fails otherwise
	 */
	public boolean delete(@Nullable String namespace, String name) {
		return delete(namespace, name, DeleteOptions.NONE);
	}

	/**
	 * Deletes an object with preconditions and a propagation policy: a precondition that
	 * does not hold fails with {@link Kind#CONFLICT}.
	 * @param namespace the namespace, or {@code null} for the writer's
	 * @param name the name
	 * @param options the preconditions and propagation policy
	 * @return {@code true} when deleted (or marked), {@code false} when the server
	 * answers 404
	 * @throws KubernetesApiException when the request fails otherwise, e.g.
	 * {@code CONFLICT}
	 */
	public boolean delete(@Nullable String namespace, String name, DeleteOptions options) {
		Objects.requireNonNull(options, "options");
		ObjectPath target = target(namespace, name);
		byte[] body = options.isEmpty() ? null : deleteOptions(options);
		Reply reply = send("delete", target, HttpMethod.DELETE, target.path(false), (body != null) ? JSON : null, body);
		if (reply.missing()) {
			return false;
		}
		reply.check();
		return true;
	}

	private T put(String verb, T object, boolean status) {
		Body body = body(object, true);
		refuseIfTransformed(verb, object, body);
		return send(verb, body.target(), HttpMethod.PUT, body.target().path(status) + query(null, false), JSON,
				body.json())
			.success();
	}

	/**
	 * Refuses a whole-object write of an object that comes from a transformed cache
	 * ({@link WholeObjectWrites}).
	 */
	private void refuseIfTransformed(String verb, T object, Body body) {
		WholeObjectWrites check = this.wholeObjectWrites.get();
		if (check == WholeObjectWrites.ALLOWED) {
			return;
		}
		ObjectScan scan = new ObjectScan(new Interner());
		scan.readObject(new JsonScanner(body.json(), 0, body.json().length));
		String key = (body.target().namespace() != null) ? body.target().namespace() + "/" + scan.name
				: String.valueOf(scan.name);
		String refusal = check.refusal(new WholeObjectWrites.Write(resource(), key, scan.resourceVersion, object,
				(type) -> copy(type, body.json()),
				(value) -> (value instanceof KubernetesObject k) ? k.toTree() : this.mapper.valueToTree(value)));
		if (refusal != null) {
			throw new IllegalArgumentException("Not sending " + verb + " " + body.target() + ": " + refusal);
		}
	}

	private @Nullable Object copy(Class<?> type, byte[] json) {
		ObjectDecoder<?> decoder = this.decoders.apply(type);
		if (decoder == null) {
			return null;
		}
		try {
			return decoder.decodeObject(json);
		}
		catch (RuntimeException ex) {
			// not readable as that type: not an object of that watch
			return null;
		}
	}

	private T patch(String verb, @Nullable String namespace, String name, Patch patch, boolean status) {
		Objects.requireNonNull(patch, "patch");
		ObjectPath target = target(namespace, name);
		return send(verb, target, HttpMethod.PATCH, target.path(status) + query(null, false),
				patch.type().contentType(), patch.body().getBytes(StandardCharsets.UTF_8))
			.success();
	}

	private T apply(String verb, T object, ApplyOptions options, boolean status) {
		Objects.requireNonNull(options, "options");
		String manager = (options.fieldManager() != null) ? options.fieldManager() : this.fieldManager;
		if (manager == null) {
			throw new IllegalArgumentException("A server-side apply needs a field manager: give one in the "
					+ "ApplyOptions, or make the writer withFieldManager");
		}
		Body body = body(object, true);
		return send(verb, body.target(), HttpMethod.PATCH, body.target().path(status) + query(manager, options.force()),
				APPLY, body.json())
			.success();
	}

	private Reply send(String verb, ObjectPath target, HttpMethod method, String pathAndQuery,
			@Nullable String contentType, byte @Nullable [] body) {
		ApiRequest.Reply reply = this.requests.send(method, pathAndQuery, contentType, body);
		return new Reply(verb + " " + target, reply);
	}

	/** The query of a write: the field manager (the writer's unless given), force. */
	private String query(@Nullable String manager, boolean force) {
		Map<String, Object> parameters = new LinkedHashMap<>();
		parameters.put("fieldManager", (manager != null) ? manager : this.fieldManager);
		parameters.put("force", force ? "true" : null);
		return HttpListerWatcher.query(parameters);
	}

	private ObjectPath target(@Nullable String namespace, String name) {
		Resource resource = resource();
		return new ObjectPath(resource, namespace(resource, namespace, name), ObjectPath.segment(name, "name"));
	}

	private static @Nullable String namespace(Resource resource, @Nullable String namespace, @Nullable String name) {
		if (!resource.namespaced()) {
			return null;
		}
		String chosen = (namespace != null && !namespace.isEmpty()) ? namespace : resource.namespace();
		if (chosen == null || chosen.isEmpty()) {
			throw new IllegalArgumentException(resource.plural() + " are namespaced: '" + name
					+ "' needs a namespace (in its metadata, the call, or the writer's resource)");
		}
		return ObjectPath.segment(chosen, "namespace");
	}

	/**
	 * The object's JSON, with the resource's {@code apiVersion} and {@code kind} where it
	 * has none, and where it goes.
	 */
	private Body body(T object, boolean named) {
		Objects.requireNonNull(object, "object");
		Resource resource = resource();
		byte[] json;
		try {
			json = (object instanceof KubernetesObject k) ? k.toByteArray() : this.mapper.writeValueAsBytes(object);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException(
					"Jackson cannot write " + object.getClass().getName() + " as JSON: " + ex.getOriginalMessage(), ex);
		}
		ObjectScan scan = new ObjectScan(new Interner());
		try {
			scan.readObject(new JsonScanner(json, 0, json.length));
		}
		catch (DecodeException ex) {
			throw new IllegalArgumentException(
					"A " + object.getClass().getName() + " is not written as a JSON object: " + ex.getMessage(), ex);
		}
		if (scan.name == null && named) {
			throw new IllegalArgumentException(
					"The object has no metadata.name: " + resource.plural() + " are updated and applied by name");
		}
		String kind = resource.kind();
		if ((scan.apiVersion == null || scan.kind == null) && kind != null) {
			json = withType(json, resource.apiVersion(), kind);
		}
		String name = (scan.name != null) ? scan.name : "(generated name)";
		String namespace = namespace(resource, scan.namespace, name);
		return new Body(
				new ObjectPath(resource, namespace, (scan.name != null) ? ObjectPath.segment(name, "name") : name),
				json);
	}

	private byte[] withType(byte[] json, String apiVersion, String kind) {
		JsonNode tree = this.mapper.readTree(json);
		if (!(tree instanceof ObjectNode object)) {
			return json;
		}
		if (!object.path("apiVersion").isString()) {
			object.put("apiVersion", apiVersion);
		}
		if (!object.path("kind").isString()) {
			object.put("kind", kind);
		}
		return this.mapper.writeValueAsBytes(object);
	}

	private byte[] deleteOptions(DeleteOptions options) {
		ObjectNode body = this.mapper.createObjectNode().put("apiVersion", "v1").put("kind", "DeleteOptions");
		if (options.uid() != null || options.resourceVersion() != null) {
			ObjectNode preconditions = body.putObject("preconditions");
			if (options.uid() != null) {
				preconditions.put("uid", options.uid());
			}
			if (options.resourceVersion() != null) {
				preconditions.put("resourceVersion", options.resourceVersion());
			}
		}
		if (options.propagation() != null) {
			body.put("propagationPolicy", options.propagation().policy());
		}
		return this.mapper.writeValueAsBytes(body);
	}

	/**
	 * Names the resource and the default field manager.
	 * @return e.g. {@code ResourceWriter[configmaps.v1 in default, fieldManager=app]}
	 */
	@Override
	public String toString() {
		Resource resource = this.resolved.resource;
		return "ResourceWriter[" + ((resource != null) ? resource : "(not yet resolved)")
				+ ((this.fieldManager != null) ? ", fieldManager=" + this.fieldManager : "") + "]";
	}

	/**
	 * A patch and its type: the body is sent as it is with the type's media type. Its
	 * {@code toString()} never shows the body.
	 *
	 * @param type how the server reads the body
	 * @param body the patch (JSON)
	 */
	public record Patch(Type type, String body) {

		/**
		 * Checks the parts.
		 * @throws NullPointerException when one is {@code null}
		 */
		public Patch {
			Objects.requireNonNull(type, "type");
			Objects.requireNonNull(body, "body");
		}

		/**
		 * A JSON merge patch (RFC 7386): {@code {"data":{"key":"value","old":null}}}.
		 * @param json the patch
		 * @return the patch
		 */
		public static Patch merge(String json) {
			return new Patch(Type.MERGE, json);
		}

		/**
		 * A JSON patch (RFC 6902):
		 * {@code [{"op":"replace","path":"/data/key","value":"v"}]}.
		 * @param json the patch
		 * @return the patch
		 */
		public static Patch json(String json) {
			return new Patch(Type.JSON, json);
		}

		/**
		 * A strategic merge patch (built-in kinds only; a custom resource answers 415).
		 * @param json the patch
		 * @return the patch
		 */
		public static Patch strategicMerge(String json) {
			return new Patch(Type.STRATEGIC_MERGE, json);
		}

		/**
		 * The type and size only, never the body.
		 * @return e.g. {@code Patch[MERGE, 42 chars]}
		 */
		@Override
		public String toString() {
			return "Patch[" + this.type + ", " + this.body.length() + " chars]";
		}

		/** How the server reads a patch. */
		public enum Type {

			/** JSON merge patch: {@code application/merge-patch+json}. */
			MERGE("application/merge-patch+json"),
			/** JSON patch: {@code application/json-patch+json}. */
			JSON("application/json-patch+json"),
			/** Strategic merge patch: {@code application/strategic-merge-patch+json}. */
			STRATEGIC_MERGE("application/strategic-merge-patch+json");

			private final String contentType;

			Type(String contentType) {
				this.contentType = contentType;
			}

			/**
			 * The media type the patch is sent as.
			 * @return the {@code Content-Type}
			 */
			public String contentType() {
				return this.contentType;
			}

		}

	}

	/**
	 * How a server-side apply is made.
	 *
	 * @param fieldManager the field manager, or {@code null} for the writer's default
	 * @param force whether to take the fields other managers own instead of failing with
	 * a conflict
	 */
	public record ApplyOptions(@Nullable String fieldManager, boolean force) {

		/** The writer's field manager, not forced. */
		public static final ApplyOptions DEFAULTS = new ApplyOptions(null, false);

		/**
		 * These options with another field manager.
		 * @param fieldManager the field manager
		 * @return new options
		 */
		public ApplyOptions withFieldManager(String fieldManager) {
			return new ApplyOptions(ObjectPath.requireText(fieldManager, "fieldManager"), this.force);
		}

		/**
		 * These options, forced or not.
		 * @param force whether to take fields other managers own
		 * @return new options
		 */
		public ApplyOptions withForce(boolean force) {
			return new ApplyOptions(this.fieldManager, force);
		}

	}

	/**
	 * Preconditions and propagation of a delete.
	 *
	 * @param uid the uid the object must have (so that a namesake created since is not
	 * deleted), or {@code null}
	 * @param resourceVersion the resourceVersion the object must have, or {@code null}
	 * @param propagation what happens to the objects it owns, or {@code null} for the
	 * resource's default
	 */
	public record DeleteOptions(@Nullable String uid, @Nullable String resourceVersion,
			@Nullable Propagation propagation) {

		/** No precondition, the resource's default propagation. */
		public static final DeleteOptions NONE = new DeleteOptions(null, null, null);

		/**
		 * These options with a uid precondition.
		 * @param uid the uid the object must have
		 * @return new options
		 */
		public DeleteOptions withUid(String uid) {
			return new DeleteOptions(uid, this.resourceVersion, this.propagation);
		}

		/**
		 * These options with a resourceVersion precondition.
		 * @param resourceVersion the resourceVersion the object must have
		 * @return new options
		 */
		public DeleteOptions withResourceVersion(String resourceVersion) {
			return new DeleteOptions(this.uid, resourceVersion, this.propagation);
		}

		/**
		 * These options with a propagation policy.
		 * @param propagation what happens to the objects it owns
		 * @return new options
		 */
		public DeleteOptions withPropagation(Propagation propagation) {
			return new DeleteOptions(this.uid, this.resourceVersion, propagation);
		}

		boolean isEmpty() {
			return this.uid == null && this.resourceVersion == null && this.propagation == null;
		}

		/** What a delete does to the objects the deleted one owns. */
		public enum Propagation {

			/** They are kept, their owner reference removed. */
			ORPHAN("Orphan"),
			/** They are deleted by the garbage collector, after the owner. */
			BACKGROUND("Background"),
			/** They are deleted first; the owner is gone once they are. */
			FOREGROUND("Foreground");

			private final String policy;

			Propagation(String policy) {
				this.policy = policy;
			}

			String policy() {
				return this.policy;
			}

		}

	}

	private record Body(ObjectPath target, byte[] json) {
	}

	/**
	 * The resource, found on first use and kept; shared by the copies of a writer. A
	 * failure is not kept: the next call tries again.
	 */
	private static final class Resolved {

		private final Supplier<Resource> resolver;

		private volatile @Nullable Resource resource;

		Resolved(Supplier<Resource> resolver) {
			this.resolver = resolver;
		}

		Resource get() {
			Resource resource = this.resource;
			if (resource == null) {
				resource = this.resolver.get();
				this.resource = resource;
			}
			return resource;
		}

	}

	/** The answer to one request, read in the light of what was asked. */
	private final class Reply {

		private final String request;

		private final ApiRequest.Reply reply;

		Reply(String request, ApiRequest.Reply reply) {
			this.request = request;
			this.reply = reply;
		}

		boolean missing() {
			return this.reply.code() == 404;
		}

		/** Throws the failure of an error status. */
		void check() {
			if (!this.reply.ok()) {
				throw ApiErrors.ofWrite(this.request, this.reply.code(), this.reply.body(), this.reply.retryAfter());
			}
		}

		/** The object answered, or the failure thrown. */
		T success() {
			check();
			try {
				return ResourceWriter.this.decoder.decodeObject(this.reply.body());
			}
			catch (ObjectBinder.NotBindable ex) {
				throw new KubernetesApiException(Kind.DECODE,
						this.request + " succeeded, but the answer cannot be held: " + ex.unbindable, null);
			}
			catch (DecodeException ex) {
				throw ApiErrors.decode(this.request + " succeeded, but the answer is not an object", ex);
			}
		}

	}

}
