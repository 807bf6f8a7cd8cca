package dev.listwatch.leader;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.KubernetesApiException.Kind;
import dev.listwatch.client.ApiServerClient;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.http.HttpMethod;

/**
 * The Leases of a shard group on the API server, through the application's
 * {@link ApiServerClient}: {@code GET}, {@code POST} and {@code PUT} of this replica's
 * Lease, and {@code GET} of the collection with
 * {@code labelSelector=listwatch.dev/shard-group=<prefix>} (no resourceVersion: a
 * consistent read). An update sends the whole object last read or written, its
 * {@code metadata.resourceVersion} as the precondition; other fields, labels and
 * annotations are kept.
 */
final class HttpMemberLeaseStore implements MemberLeaseStore {

	private final ApiServerClient client;

	private final JsonMapper mapper;

	private final ShardMembershipOptions options;

	private final String name;

	private final String collection;

	private final String path;

	HttpMemberLeaseStore(ApiServerClient client, JsonMapper mapper, ShardMembershipOptions options) {
		this.client = client;
		this.mapper = mapper;
		this.options = options;
		this.name = options.leaseName();
		this.collection = "/apis/coordination.k8s.io/v1/namespaces/" + options.namespace() + "/leases";
		this.path = this.collection + "/" + this.name;
	}

	@Override
	public @Nullable MemberLease get() {
		try {
			return lease("GET " + this.path,
					parse("GET " + this.path, this.client.exchangeJson(HttpMethod.GET, this.path, null)));
		}
		catch (KubernetesApiException ex) {
			if (ex.code() == 404) {
				return null;
			}
			throw ex;
		}
	}

	@Override
	public MemberLease create(MemberRecord record) {
		ObjectNode object = this.mapper.createObjectNode();
		ObjectNode metadata = object.putObject("metadata");
		metadata.put("name", this.name);
		metadata.put("namespace", this.options.namespace());
		write(object, record);
		String request = "POST " + this.collection;
		return lease(request, parse(request,
				this.client.exchangeJson(HttpMethod.POST, this.collection, this.mapper.writeValueAsBytes(object))));
	}

	@Override
	public MemberLease update(MemberLease previous, MemberRecord record) {
		ObjectNode object = previous.object().deepCopy();
		JsonNode metadata = object.path("metadata");
		ObjectNode meta = (metadata instanceof ObjectNode existing) ? existing : object.putObject("metadata");
		meta.put("resourceVersion", previous.resourceVersion());
		write(object, record);
		String request = "PUT " + this.path;
		return lease(request, parse(request,
				this.client.exchangeJson(HttpMethod.PUT, this.path, this.mapper.writeValueAsBytes(object))));
	}

	@Override
	public boolean delete(MemberLease expired) {
		ObjectNode options = this.mapper.createObjectNode();
		options.put("apiVersion", "v1");
		options.put("kind", "DeleteOptions");
		options.putObject("preconditions").put("resourceVersion", expired.resourceVersion());
		String path = this.collection + "/" + expired.name();
		try {
			this.client.exchangeJson(HttpMethod.DELETE, path, this.mapper.writeValueAsBytes(options));
			return true;
		}
		catch (KubernetesApiException ex) {
			if (ex.code() == 404 || ex.code() == 409) {
				return false;
			}
			throw ex;
		}
	}

	@Override
	public List<MemberLease> list() {
		String selector = ShardMembershipOptions.GROUP_LABEL + "=" + this.options.prefix();
		String request = this.collection + "?labelSelector=" + URLEncoder.encode(selector, StandardCharsets.UTF_8);
		JsonNode root = parse("GET " + request, this.client.exchangeJson(HttpMethod.GET, request, null));
		List<MemberLease> leases = new ArrayList<>();
		for (JsonNode item : root.path("items")) {
			// items of a list have no kind of their own
			leases.add(lease("GET " + request, item));
		}
		return leases;
	}

	@Override
	public String describe() {
		return this.options.group();
	}

	/** Sets what a member writes: kind, label, annotation and spec. */
	private void write(ObjectNode object, MemberRecord record) {
		object.put("apiVersion", "coordination.k8s.io/v1");
		object.put("kind", "Lease");
		ObjectNode metadata = (ObjectNode) object.get("metadata");
		child(metadata, "labels").put(ShardMembershipOptions.GROUP_LABEL, this.options.prefix());
		ObjectNode annotations = child(metadata, "annotations");
		annotations.put(ShardMembershipOptions.SHARDS_ANNOTATION,
				record.shards().stream().map(String::valueOf).collect(Collectors.joining(",")));
		annotations.put(ShardMembershipOptions.SHARD_COUNT_ANNOTATION, String.valueOf(this.options.shards()));
		ObjectNode spec = child(object, "spec");
		spec.put("holderIdentity", record.holderIdentity());
		spec.put("leaseDurationSeconds", record.leaseDurationSeconds());
		spec.put("renewTime", record.renewTime());
	}

	private static ObjectNode child(ObjectNode parent, String field) {
		JsonNode node = parent.path(field);
		return (node instanceof ObjectNode existing) ? existing : parent.putObject(field);
	}

	private JsonNode parse(String request, byte[] body) {
		JsonNode root;
		try {
			root = this.mapper.readTree(body);
		}
		catch (RuntimeException ex) {
			throw new KubernetesApiException(Kind.DECODE, request + ": the answer is not JSON: " + ex.getMessage(), ex);
		}
		if (!(root instanceof ObjectNode)) {
			throw new KubernetesApiException(Kind.DECODE, request + ": the answer is not a JSON object", null);
		}
		return root;
	}

	private static MemberLease lease(String request, JsonNode node) {
		if (!(node instanceof ObjectNode object)) {
			throw new KubernetesApiException(Kind.DECODE, request + ": an item is not a JSON object", null);
		}
		JsonNode metadata = node.path("metadata");
		String name = text(metadata.path("name"));
		String resourceVersion = text(metadata.path("resourceVersion"));
		if (name == null || resourceVersion == null) {
			throw new KubernetesApiException(Kind.DECODE,
					request + ": a Lease has no metadata.name or metadata.resourceVersion", null);
		}
		JsonNode spec = node.path("spec");
		JsonNode duration = spec.path("leaseDurationSeconds");
		return new MemberLease(name, text(spec.path("holderIdentity")),
				duration.isIntegralNumber() ? duration.intValue() : 0,
				shards(text(metadata.path("annotations").path(ShardMembershipOptions.SHARDS_ANNOTATION))),
				resourceVersion, object,
				count(text(metadata.path("annotations").path(ShardMembershipOptions.SHARD_COUNT_ANNOTATION))),
				text(spec.path("renewTime")));
	}

	/** The number of the shard-count annotation; 0 when absent or not a number. */
	private static int count(@Nullable String annotation) {
		try {
			return (annotation != null) ? Integer.parseInt(annotation.trim()) : 0;
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	/** The shards of the annotation; what is not a shard number is skipped. */
	static SortedSet<Integer> shards(@Nullable String annotation) {
		SortedSet<Integer> shards = new TreeSet<>();
		if (annotation == null) {
			return shards;
		}
		for (String part : annotation.split(",")) {
			String trimmed = part.trim();
			if (!trimmed.isEmpty() && trimmed.length() < 10 && trimmed.chars().allMatch(Character::isDigit)) {
				shards.add(Integer.parseInt(trimmed));
			}
		}
		return shards;
	}

	private static @Nullable String text(JsonNode node) {
		return node.isString() ? node.stringValue() : null;
	}

	@Override
	public String toString() {
		return "HttpMemberLeaseStore[" + this.options.namespace() + "/" + this.name + "]";
	}

}
