package dev.listwatch.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.listwatch.informer.InformerOptions.OnRefusal;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of listwatch: the cluster to connect to and the watches to run.
 */
@ConfigurationProperties("listwatch")
public class ListwatchProperties {

	/**
	 * Path of the kubeconfig file. Default: $KUBECONFIG (several files merged the way
	 * kubectl does), else ~/.kube/config, else the in-cluster service account.
	 */
	private @Nullable String kubeconfig;

	/**
	 * Kubeconfig context to use. Default: the kubeconfig's current-context.
	 */
	private @Nullable String context;

	/**
	 * Whether listwatch is enabled at all.
	 */
	private boolean enabled = true;

	/**
	 * Whether to show the messages of what the application's code throws (reconcilers,
	 * event listeners, observation handlers) in the listwatch endpoint and in the
	 * warnings and errors logged, with the stack trace. Off: only the exception's class
	 * and where it was thrown (a message may quote values: a Jackson binding error its
	 * input, a JDBC URL its password); the stack trace is logged at DEBUG.
	 */
	private boolean showExceptionMessages;

	/**
	 * Connection given as properties, for setups without a kubeconfig file; each set
	 * property wins over the kubeconfig.
	 */
	private final Connection connection = new Connection();

	/**
	 * How every watch lists, watches and backs off, unless the watch says otherwise.
	 */
	private final Defaults defaults = new Defaults();

	/**
	 * What startup waits for.
	 */
	private final Startup startup = new Startup();

	/**
	 * The watches to run, by name. The name prefixes the beans of the watch
	 * ("&lt;name&gt;ListerWatcher", "&lt;name&gt;Lister", "&lt;name&gt;Informer") and
	 * tags its health and metrics.
	 */
	private final Map<String, Watch> watches = new LinkedHashMap<>();

	public @Nullable String getKubeconfig() {
		return this.kubeconfig;
	}

	public void setKubeconfig(@Nullable String kubeconfig) {
		this.kubeconfig = kubeconfig;
	}

	public @Nullable String getContext() {
		return this.context;
	}

	public void setContext(@Nullable String context) {
		this.context = context;
	}

	public boolean isShowExceptionMessages() {
		return this.showExceptionMessages;
	}

	public void setShowExceptionMessages(boolean showExceptionMessages) {
		this.showExceptionMessages = showExceptionMessages;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Connection getConnection() {
		return this.connection;
	}

	public Defaults getDefaults() {
		return this.defaults;
	}

	public Startup getStartup() {
		return this.startup;
	}

	public Map<String, Watch> getWatches() {
		return this.watches;
	}

	/**
	 * The connection as properties.
	 */
	public static class Connection {

		/**
		 * URL of the API server, for example https://10.0.0.1:6443.
		 */
		private @Nullable String server;

		/**
		 * Bearer token. Prefer token-file for a token that rotates; when both are set,
		 * the file wins and this token is only used until the file has been read. Hidden
		 * by the actuator.
		 */
		private @Nullable String token;

		/**
		 * Path of a file holding the bearer token; re-read as it rotates. Wins over
		 * token.
		 */
		private @Nullable String tokenFile;

		/**
		 * Path of the PEM file of the certificate authorities that sign the API server's
		 * certificate. Clears the kubeconfig's insecure-skip-tls-verify.
		 */
		private @Nullable String certificateAuthority;

		/**
		 * PEM text of the certificate authorities that sign the API server's certificate,
		 * as an alternative to certificate-authority.
		 */
		private @Nullable String certificateAuthorityData;

		/**
		 * Name of an SSL bundle (spring.ssl.bundle.*) whose trust material verifies the
		 * API server and whose key, if any, is the client certificate, instead of the
		 * kubeconfig's CA and client certificate; clears the kubeconfig's
		 * insecure-skip-tls-verify. Cannot be combined with certificate-authority,
		 * certificate-authority-data or insecure-skip-tls-verify=true, and needs a key
		 * store when the kubeconfig's user has a client certificate.
		 */
		private @Nullable String sslBundle;

		/**
		 * Namespace of the connection (as a kubeconfig context's namespace); watches
		 * without a namespace still watch all namespaces.
		 */
		private @Nullable String namespace;

		/**
		 * Whether to skip verifying the API server's certificate. Only for throwaway
		 * clusters; true drops the kubeconfig's certificate authority, and true together
		 * with certificate-authority, certificate-authority-data or ssl-bundle fails
		 * startup.
		 */
		private @Nullable Boolean insecureSkipTlsVerify;

		/**
		 * Timeout to establish a connection to the API server.
		 */
		private Duration connectTimeout = Duration.ofSeconds(10);

		/**
		 * How long an exec credential plugin may run before it is killed.
		 */
		private Duration execTimeout = Duration.ofSeconds(30);

		/**
		 * Whether to speak HTTP/2 to an https API server that offers it (as client-go
		 * does): every watch, list and write to the server is then a stream of one TCP
		 * and TLS connection, instead of one connection per open watch. A cut of that
		 * connection breaks every watch on it, and each resumes from its last
		 * resourceVersion. Plain http servers, and proxies that need Jetty's client, stay
		 * on HTTP/1.1. On by default on Java 24 and later, off before: the JDK client of
		 * Java 17 (before JDK-8335181, backported only to later updates) fails every
		 * request on a connection that receives a GOAWAY, which kube-apiserver sends by
		 * design on HA clusters ({@code --goaway-chance}); a write failed so has an
		 * unknown outcome.
		 */
		private boolean http2 = dev.listwatch.client.ApiServerClient.DEFAULT_HTTP2;

		/**
		 * Requests per second this connection sends at most, over a burst (client-go's
		 * QPS): list pages, watch starts, discovery, reads and writes each take a token,
		 * the bytes of an open watch none; a request without a token waits for one and
		 * never fails for it. So many watches relisting at once after an outage, or many
		 * replicas restarting, cannot flood the API server. 50 (client-go: 5) holds up no
		 * normal use: a few dozen watches relist within the burst, and only a storm of
		 * relists or bulk writes waits. 0 turns the limit off.
		 */
		private double qps = 50;

		/**
		 * Requests this connection may send at once before qps holds it to its rate
		 * (client-go's Burst); at least 1 while qps is positive. 100 (client-go: 10) lets
		 * fifty watches list and start watching, or relist, without waiting.
		 */
		private int burst = 100;

		public @Nullable String getServer() {
			return this.server;
		}

		public void setServer(@Nullable String server) {
			this.server = server;
		}

		public @Nullable String getToken() {
			return this.token;
		}

		public void setToken(@Nullable String token) {
			this.token = token;
		}

		public @Nullable String getTokenFile() {
			return this.tokenFile;
		}

		public void setTokenFile(@Nullable String tokenFile) {
			this.tokenFile = tokenFile;
		}

		public @Nullable String getCertificateAuthority() {
			return this.certificateAuthority;
		}

		public void setCertificateAuthority(@Nullable String certificateAuthority) {
			this.certificateAuthority = certificateAuthority;
		}

		public @Nullable String getCertificateAuthorityData() {
			return this.certificateAuthorityData;
		}

		public void setCertificateAuthorityData(@Nullable String certificateAuthorityData) {
			this.certificateAuthorityData = certificateAuthorityData;
		}

		public @Nullable String getSslBundle() {
			return this.sslBundle;
		}

		public void setSslBundle(@Nullable String sslBundle) {
			this.sslBundle = sslBundle;
		}

		public @Nullable String getNamespace() {
			return this.namespace;
		}

		public void setNamespace(@Nullable String namespace) {
			this.namespace = namespace;
		}

		public @Nullable Boolean getInsecureSkipTlsVerify() {
			return this.insecureSkipTlsVerify;
		}

		public void setInsecureSkipTlsVerify(@Nullable Boolean insecureSkipTlsVerify) {
			this.insecureSkipTlsVerify = insecureSkipTlsVerify;
		}

		public Duration getConnectTimeout() {
			return this.connectTimeout;
		}

		public void setConnectTimeout(Duration connectTimeout) {
			this.connectTimeout = connectTimeout;
		}

		public boolean isHttp2() {
			return this.http2;
		}

		public void setHttp2(boolean http2) {
			this.http2 = http2;
		}

		public Duration getExecTimeout() {
			return this.execTimeout;
		}

		public void setExecTimeout(Duration execTimeout) {
			this.execTimeout = execTimeout;
		}

		public double getQps() {
			return this.qps;
		}

		public void setQps(double qps) {
			this.qps = qps;
		}

		public int getBurst() {
			return this.burst;
		}

		public void setBurst(int burst) {
			this.burst = burst;
		}

		@Override
		public String toString() {
			return "Connection[server=" + this.server + ", token=" + ((this.token != null) ? "<redacted>" : "none")
					+ ", tokenFile=" + this.tokenFile + ", sslBundle=" + this.sslBundle + "]";
		}

	}

	/**
	 * How watches list, watch and back off.
	 */
	public static class Defaults {

		/**
		 * Page size of lists (the limit parameter).
		 */
		private long pageSize = 500;

		/**
		 * Whether to sync with a streaming list (sendInitialEvents) where the API server
		 * serves one, falling back to list + watch where it does not.
		 */
		private boolean streamingList = true;

		/**
		 * Shortest server-side timeout of a watch; each watch picks one at random between
		 * this and max-watch-timeout, so watches do not all reconnect at once.
		 */
		private Duration minWatchTimeout = Duration.ofMinutes(5);

		/**
		 * Longest server-side timeout of a watch.
		 */
		private Duration maxWatchTimeout = Duration.ofMinutes(10);

		/**
		 * How long a watch may deliver nothing, not even a bookmark, before it is taken
		 * for dead (a half-open connection) and replaced from its last resourceVersion,
		 * without a list. The API server sends a watch a bookmark about every minute
		 * while the resource changes anywhere, so a dead stream is found within this
		 * time; a watch of a resource that does not change at all is replaced as often,
		 * which is not counted as a failure.
		 */
		private Duration idleTimeout = Duration.ofSeconds(90);

		/**
		 * First delay after a failure.
		 */
		private Duration initialBackoff = Duration.ofMillis(800);

		/**
		 * Longest delay after failures, jitter included: once the server answers again,
		 * no watch waits longer.
		 */
		private Duration maxBackoff = Duration.ofSeconds(30);

		/**
		 * Factor by which each delay grows.
		 */
		private double backoffMultiplier = 2.0;

		/**
		 * Random part added to each delay, as a fraction of it.
		 */
		private double backoffJitter = 1.0;

		/**
		 * How long without a failure resets the backoff to its first delay (a watch whose
		 * connection breaks after it delivered events resets it at once).
		 */
		private Duration backoffResetAfter = Duration.ofMinutes(2);

		/**
		 * Whether cached objects keep metadata.managedFields (dropped by default: they
		 * are large and rarely read).
		 */
		private boolean keepManagedFields = false;

		/**
		 * Whether watches list and watch the objects' metadata alone
		 * (PartialObjectMetadata, as client-go's metadata informer does): name,
		 * namespace, labels, annotations, owner references and the like, never spec,
		 * status or data.
		 */
		private boolean metadataOnly = false;

		/**
		 * Whether watches of dev.listwatch.KubernetesObject hold each cached object's
		 * JSON compressed (DEFLATE with a dictionary learned from the watch's first
		 * objects), its metadata decoded as ever: a large cache in a fraction of the
		 * heap, at some CPU for each object written and each read of its body (json,
		 * toTree, at, as). Watches bound to another type are not affected.
		 */
		private boolean compressObjects = false;

		/**
		 * Largest watch event or list item accepted; a larger one is reported and the
		 * watch resumes.
		 */
		private DataSize maxEventSize = DataSize.ofMegabytes(16);

		/**
		 * Platform threads that publish events. Unused with virtual threads
		 * (spring.threads.virtual.enabled=true on Java 21+), where each watch reads and
		 * each dispatch runs on a virtual thread of its own.
		 */
		private int dispatchThreads = 4;

		/**
		 * How often each watch delivers its whole cache again to listeners, as MODIFIED
		 * events flagged resync (the same object as old and new), without a request to
		 * the API server: for level-triggered reconcilers. Zero: never.
		 */
		private Duration resyncPeriod = Duration.ZERO;

		/**
		 * Whether watches start with the application context. When false, a watch's beans
		 * exist and it starts when the application calls its informer's start().
		 */
		private boolean autoStartup = true;

		/**
		 * What a watch does when the API server refuses it in a way that retrying will
		 * not mend (401 after the credentials were refreshed, 403, 404 of the resource):
		 * retry with backoff, or fail (the watch stops, FAILED, and health says DOWN).
		 */
		private OnRefusal onRefusal = OnRefusal.RETRY;

		public OnRefusal getOnRefusal() {
			return this.onRefusal;
		}

		public void setOnRefusal(OnRefusal onRefusal) {
			this.onRefusal = onRefusal;
		}

		public Duration getResyncPeriod() {
			return this.resyncPeriod;
		}

		public void setResyncPeriod(Duration resyncPeriod) {
			this.resyncPeriod = resyncPeriod;
		}

		public boolean isAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

		public long getPageSize() {
			return this.pageSize;
		}

		public void setPageSize(long pageSize) {
			this.pageSize = pageSize;
		}

		public boolean isStreamingList() {
			return this.streamingList;
		}

		public void setStreamingList(boolean streamingList) {
			this.streamingList = streamingList;
		}

		public Duration getMinWatchTimeout() {
			return this.minWatchTimeout;
		}

		public void setMinWatchTimeout(Duration minWatchTimeout) {
			this.minWatchTimeout = minWatchTimeout;
		}

		public Duration getMaxWatchTimeout() {
			return this.maxWatchTimeout;
		}

		public void setMaxWatchTimeout(Duration maxWatchTimeout) {
			this.maxWatchTimeout = maxWatchTimeout;
		}

		public Duration getIdleTimeout() {
			return this.idleTimeout;
		}

		public void setIdleTimeout(Duration idleTimeout) {
			this.idleTimeout = idleTimeout;
		}

		public Duration getInitialBackoff() {
			return this.initialBackoff;
		}

		public void setInitialBackoff(Duration initialBackoff) {
			this.initialBackoff = initialBackoff;
		}

		public Duration getMaxBackoff() {
			return this.maxBackoff;
		}

		public void setMaxBackoff(Duration maxBackoff) {
			this.maxBackoff = maxBackoff;
		}

		public double getBackoffMultiplier() {
			return this.backoffMultiplier;
		}

		public void setBackoffMultiplier(double backoffMultiplier) {
			this.backoffMultiplier = backoffMultiplier;
		}

		public double getBackoffJitter() {
			return this.backoffJitter;
		}

		public void setBackoffJitter(double backoffJitter) {
			this.backoffJitter = backoffJitter;
		}

		public Duration getBackoffResetAfter() {
			return this.backoffResetAfter;
		}

		public void setBackoffResetAfter(Duration backoffResetAfter) {
			this.backoffResetAfter = backoffResetAfter;
		}

		public boolean isKeepManagedFields() {
			return this.keepManagedFields;
		}

		public void setKeepManagedFields(boolean keepManagedFields) {
			this.keepManagedFields = keepManagedFields;
		}

		public boolean isMetadataOnly() {
			return this.metadataOnly;
		}

		public void setMetadataOnly(boolean metadataOnly) {
			this.metadataOnly = metadataOnly;
		}

		public boolean isCompressObjects() {
			return this.compressObjects;
		}

		public void setCompressObjects(boolean compressObjects) {
			this.compressObjects = compressObjects;
		}

		public DataSize getMaxEventSize() {
			return this.maxEventSize;
		}

		public void setMaxEventSize(DataSize maxEventSize) {
			this.maxEventSize = maxEventSize;
		}

		public int getDispatchThreads() {
			return this.dispatchThreads;
		}

		public void setDispatchThreads(int dispatchThreads) {
			this.dispatchThreads = dispatchThreads;
		}

	}

	/**
	 * What startup waits for.
	 */
	public static class Startup {

		/**
		 * Whether startup waits until every watch has its initial list, failing when one
		 * has not after sync-timeout. By default startup does not wait and an unreachable
		 * cluster is retried in the background (health says why).
		 */
		private boolean waitForSync = false;

		/**
		 * How long startup waits for the initial lists when wait-for-sync is set.
		 */
		private Duration syncTimeout = Duration.ofSeconds(60);

		public boolean isWaitForSync() {
			return this.waitForSync;
		}

		public void setWaitForSync(boolean waitForSync) {
			this.waitForSync = waitForSync;
		}

		public Duration getSyncTimeout() {
			return this.syncTimeout;
		}

		public void setSyncTimeout(Duration syncTimeout) {
			this.syncTimeout = syncTimeout;
		}

	}

	/**
	 * One declared watch.
	 */
	public static class Watch {

		/**
		 * Group/version of the resource, for example "v1" or "apps/v1". Required (except
		 * with source etcd).
		 */
		private @Nullable String apiVersion;

		/**
		 * Kind of the resource, for example "ConfigMap"; resolved to its plural through
		 * API discovery. Give either kind or resource.
		 */
		private @Nullable String kind;

		/**
		 * Plural resource name, for example "configmaps". Give either kind or resource.
		 */
		private @Nullable String resource;

		/**
		 * Namespace to watch. Default: all namespaces.
		 */
		private @Nullable String namespace;

		/**
		 * Namespaces to watch, instead of namespace: one cache and one Lister over all of
		 * them, one watch per namespace underneath (each resumed and relisted on its
		 * own).
		 */
		private List<String> namespaces = new ArrayList<>();

		/**
		 * Label selector, for example "app=web,tier!=db".
		 */
		private @Nullable String labelSelector;

		/**
		 * Field selector, for example "metadata.name!=x".
		 */
		private @Nullable String fieldSelector;

		/**
		 * Java type the objects are bound to with Jackson. Default:
		 * dev.listwatch.KubernetesObject, which keeps them compact.
		 */
		private @Nullable String type;

		/**
		 * Whether cached objects keep metadata.managedFields. Default:
		 * listwatch.defaults.keep-managed-fields.
		 */
		private @Nullable Boolean keepManagedFields;

		/**
		 * Whether to list and watch the objects' metadata alone (the API server's
		 * PartialObjectMetadata): cached objects hold apiVersion meta.k8s.io/v1, kind
		 * PartialObjectMetadata and metadata (name, namespace, labels, annotations, owner
		 * references, finalizers), never spec, status or data, which never reach the
		 * process. Objects are dev.listwatch.KubernetesObject: a type cannot be set with
		 * it. Default: listwatch.defaults.metadata-only.
		 */
		private @Nullable Boolean metadataOnly;

		/**
		 * Whether cached objects hold their JSON compressed with a dictionary learned
		 * from the watch's first objects (metadata, labels and indexes stay decoded;
		 * json, toTree, at and as inflate it on each call): for a large cache in little
		 * heap. Only for dev.listwatch.KubernetesObject (without a type); watches over
		 * etcd ignore it. Default: listwatch.defaults.compress-objects.
		 */
		private @Nullable Boolean compressObjects;

		/**
		 * Page size of lists. Default: listwatch.defaults.page-size.
		 */
		private @Nullable Long pageSize;

		/**
		 * How often the watch delivers its whole cache again to listeners (MODIFIED
		 * events flagged resync), without a request. Default:
		 * listwatch.defaults.resync-period.
		 */
		private @Nullable Duration resyncPeriod;

		/**
		 * Whether the watch starts with the application context; when false it starts
		 * when the application calls its informer's start(). Default:
		 * listwatch.defaults.auto-startup.
		 */
		private @Nullable Boolean autoStartup;

		/**
		 * What the watch does when refused in a way that retrying will not mend: retry or
		 * fail. Default: listwatch.defaults.on-refusal.
		 */
		private @Nullable OnRefusal onRefusal;

		/**
		 * Whether the watch is declared at all: false declares no beans for it.
		 */
		private boolean enabled = true;

		/**
		 * Whether the watch runs only on the elected leader: it starts when this replica
		 * becomes leader and stops when it no longer is. Needs
		 * listwatch.leader-election.enabled=true; implies auto-startup false.
		 */
		private boolean leaderOnly = false;

		/**
		 * Where the objects come from: "kubernetes" (the API server, the default) or
		 * "etcd" (the keys under key-prefix, read from listwatch.etcd.endpoints without
		 * an API server).
		 */
		private @Nullable String source;

		/**
		 * For source etcd: the key prefix to list and watch, for example "/config/" (a
		 * "/" is added when missing). A key "&lt;prefix&gt;&lt;name&gt;" is an object
		 * without a namespace, "&lt;prefix&gt;&lt;namespace&gt;/&lt;name&gt;" one in a
		 * namespace.
		 */
		private @Nullable String keyPrefix;

		/**
		 * JSON paths to keep of each object, for example "spec.template" (apiVersion,
		 * kind and metadata are always kept); only for dev.listwatch.KubernetesObject.
		 */
		private List<String> keep = new ArrayList<>();

		/**
		 * JSON paths to drop of each object before it is cached, for example "status";
		 * only for dev.listwatch.KubernetesObject.
		 */
		private List<String> drop = new ArrayList<>();

		public List<String> getKeep() {
			return this.keep;
		}

		public void setKeep(List<String> keep) {
			this.keep = keep;
		}

		public List<String> getDrop() {
			return this.drop;
		}

		public void setDrop(List<String> drop) {
			this.drop = drop;
		}

		public @Nullable String getSource() {
			return this.source;
		}

		public void setSource(@Nullable String source) {
			this.source = source;
		}

		public @Nullable String getKeyPrefix() {
			return this.keyPrefix;
		}

		public void setKeyPrefix(@Nullable String keyPrefix) {
			this.keyPrefix = keyPrefix;
		}

		public @Nullable Duration getResyncPeriod() {
			return this.resyncPeriod;
		}

		public void setResyncPeriod(@Nullable Duration resyncPeriod) {
			this.resyncPeriod = resyncPeriod;
		}

		public @Nullable Boolean getAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(@Nullable Boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

		public @Nullable OnRefusal getOnRefusal() {
			return this.onRefusal;
		}

		public void setOnRefusal(@Nullable OnRefusal onRefusal) {
			this.onRefusal = onRefusal;
		}

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isLeaderOnly() {
			return this.leaderOnly;
		}

		public void setLeaderOnly(boolean leaderOnly) {
			this.leaderOnly = leaderOnly;
		}

		public @Nullable String getApiVersion() {
			return this.apiVersion;
		}

		public void setApiVersion(@Nullable String apiVersion) {
			this.apiVersion = apiVersion;
		}

		public @Nullable String getKind() {
			return this.kind;
		}

		public void setKind(@Nullable String kind) {
			this.kind = kind;
		}

		public @Nullable String getResource() {
			return this.resource;
		}

		public void setResource(@Nullable String resource) {
			this.resource = resource;
		}

		public @Nullable String getNamespace() {
			return this.namespace;
		}

		public void setNamespace(@Nullable String namespace) {
			this.namespace = namespace;
		}

		public List<String> getNamespaces() {
			return this.namespaces;
		}

		public void setNamespaces(List<String> namespaces) {
			this.namespaces = namespaces;
		}

		public @Nullable String getLabelSelector() {
			return this.labelSelector;
		}

		public void setLabelSelector(@Nullable String labelSelector) {
			this.labelSelector = labelSelector;
		}

		public @Nullable String getFieldSelector() {
			return this.fieldSelector;
		}

		public void setFieldSelector(@Nullable String fieldSelector) {
			this.fieldSelector = fieldSelector;
		}

		public @Nullable String getType() {
			return this.type;
		}

		public void setType(@Nullable String type) {
			this.type = type;
		}

		public @Nullable Boolean getKeepManagedFields() {
			return this.keepManagedFields;
		}

		public void setKeepManagedFields(@Nullable Boolean keepManagedFields) {
			this.keepManagedFields = keepManagedFields;
		}

		public @Nullable Boolean getMetadataOnly() {
			return this.metadataOnly;
		}

		public void setMetadataOnly(@Nullable Boolean metadataOnly) {
			this.metadataOnly = metadataOnly;
		}

		public @Nullable Boolean getCompressObjects() {
			return this.compressObjects;
		}

		public void setCompressObjects(@Nullable Boolean compressObjects) {
			this.compressObjects = compressObjects;
		}

		public @Nullable Long getPageSize() {
			return this.pageSize;
		}

		public void setPageSize(@Nullable Long pageSize) {
			this.pageSize = pageSize;
		}

	}

}
