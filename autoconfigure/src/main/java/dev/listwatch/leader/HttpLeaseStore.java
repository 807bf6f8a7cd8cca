package dev.listwatch.leader;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.client.ApiServerClient;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.http.HttpMethod;

/**
 * The Lease on the API server: {@code GET}, {@code POST} and {@code PUT} of
 * {@code /apis/coordination.k8s.io/v1/namespaces/<namespace>/leases/<name>} through the
 * application's {@link ApiServerClient}. An update sends the whole object last read or
 * written, its {@code metadata.resourceVersion} as the precondition, with the record's
 * fields set in its {@code spec} (other fields, labels and annotations are kept).
 */
final class HttpLeaseStore implements LeaseStore {

	private final ApiServerClient client;

	private final JsonMapper mapper;

	private final String name;

	private final String namespace;

	private final String collection;

	private final String path;

	HttpLeaseStore(ApiServerClient client, JsonMapper mapper, String namespace, String name) {
		this.client = client;
		this.mapper = mapper;
		this.name = name;
		this.namespace = namespace;
		this.collection = "/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases";
		this.path = this.collection + "/" + name;
	}

	@Override
	public @Nullable Lease get() {
		try {
			return lease("GET " + this.path, this.client.exchangeJson(HttpMethod.GET, this.path, null));
		}
		catch (KubernetesApiException ex) {
			if (ex.code() == 404) {
				return null;
			}
			throw ex;
		}
	}

	@Override
	public Lease create(LeaseRecord record) {
		ObjectNode object = this.mapper.createObjectNode();
		object.put("apiVersion", "coordination.k8s.io/v1");
		object.put("kind", "Lease");
		ObjectNode metadata = object.putObject("metadata");
		metadata.put("name", this.name);
		metadata.put("namespace", this.namespace);
		write(object.putObject("spec"), record);
		return lease("POST " + this.collection,
				this.client.exchangeJson(HttpMethod.POST, this.collection, this.mapper.writeValueAsBytes(object)));
	}

	@Override
	public Lease update(Lease previous, LeaseRecord record) {
		ObjectNode object = previous.object().deepCopy();
		JsonNode metadata = object.path("metadata");
		if (metadata instanceof ObjectNode meta) {
			meta.put("resourceVersion", previous.resourceVersion());
		}
		JsonNode spec = object.path("spec");
		write((spec instanceof ObjectNode existing) ? existing : object.putObject("spec"), record);
		return lease("PUT " + this.path,
				this.client.exchangeJson(HttpMethod.PUT, this.path, this.mapper.writeValueAsBytes(object)));
	}

	@Override
	public String describe() {
		return this.namespace + "/" + this.name;
	}

	private static void write(ObjectNode spec, LeaseRecord record) {
		spec.put("holderIdentity", (record.holderIdentity() != null) ? record.holderIdentity() : "");
		spec.put("leaseDurationSeconds", record.leaseDurationSeconds());
		putOrRemove(spec, "acquireTime", record.acquireTime());
		putOrRemove(spec, "renewTime", record.renewTime());
		spec.put("leaseTransitions", record.leaseTransitions());
	}

	private static void putOrRemove(ObjectNode node, String field, @Nullable String value) {
		if (value != null) {
			node.put(field, value);
		}
		else {
			node.remove(field);
		}
	}

	private Lease lease(String request, byte[] body) {
		JsonNode root;
		try {
			root = this.mapper.readTree(body);
		}
		catch (RuntimeException ex) {
			throw new KubernetesApiException(Kind.DECODE, request + ": the answer is not JSON: " + ex.getMessage(), ex);
		}
		if (!(root instanceof ObjectNode object) || !"Lease".equals(text(root.path("kind")))) {
			throw new KubernetesApiException(Kind.DECODE, request + ": the answer is not a Lease", null);
		}
		String resourceVersion = text(root.path("metadata").path("resourceVersion"));
		if (resourceVersion == null) {
			throw new KubernetesApiException(Kind.DECODE, request + ": the Lease has no metadata.resourceVersion",
					null);
		}
		JsonNode spec = root.path("spec");
		LeaseRecord record = new LeaseRecord(text(spec.path("holderIdentity")),
				number(spec.path("leaseDurationSeconds")), text(spec.path("acquireTime")), text(spec.path("renewTime")),
				number(spec.path("leaseTransitions")));
		return new Lease(record, resourceVersion, object);
	}

	private static @Nullable String text(JsonNode node) {
		return node.isString() ? node.stringValue() : null;
	}

	private static int number(JsonNode node) {
		return node.isIntegralNumber() ? node.intValue() : 0;
	}

	@Override
	public String toString() {
		return "HttpLeaseStore[" + describe() + "]";
	}

}
