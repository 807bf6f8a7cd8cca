package dev.listwatch.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A plain-HTTP/1.1 stand-in for the API server on 127.0.0.1 that serves Pods (every other
 * core resource is served empty) the way kube-apiserver does: discovery, paged lists
 * ({@code limit}/{@code continue}, one consistent resourceVersion per list), and watches
 * that stream {@code MODIFIED} events, one chunk per event, as fast as the client reads
 * them.
 * <p>
 * The event stream is deterministic (see {@link Pods}): a watch from resourceVersion
 * {@code r} resumes exactly after the event that had {@code r}. A watch sends at most
 * {@code eventsPerWatch} events and never beyond {@code totalEvents}; the first
 * {@code cuts} watches are then cut (the socket closed in the middle of the chunked
 * response, as a dropped connection looks); the next watch sends all the remaining events
 * and then stays open, idle, until the client closes it. Streaming lists
 * ({@code sendInitialEvents=true}) are refused with 400, as by a server without the
 * WatchList feature.
 * <p>
 * Watches asked for with a WebSocket upgrade (fabric8's way) get one text frame per event
 * instead.
 * <p>
 * A list of one namespace ({@code /api/v1/namespaces/<ns>/pods}) holds that namespace's
 * Pods only, paged the same way; a watch of one namespace sends no events (the benchmarks
 * that watch a namespace have none).
 * <p>
 * Counts every request by kind, for the request-count benchmark.
 */
public final class FakeApiServer implements AutoCloseable {

	/**
	 * What the server serves.
	 *
	 * @param pods how many Pods exist
	 * @param totalEvents how many watch events exist in all
	 * @param eventsPerWatch how many events one watch sends at most
	 * @param cuts how many watches are cut after their events
	 * @param resetOnList whether a new list (no continue token) starts the event stream
	 * again (so that each round of a benchmark sees the same events)
	 */
	public record Scenario(int pods, long totalEvents, long eventsPerWatch, int cuts, boolean resetOnList) {
	}

	private static final String[] RESOURCES = { "pods:Pod", "configmaps:ConfigMap", "secrets:Secret",
			"services:Service", "endpoints:Endpoints", "serviceaccounts:ServiceAccount", "events:Event",
			"persistentvolumeclaims:PersistentVolumeClaim", "replicationcontrollers:ReplicationController",
			"limitranges:LimitRange", "resourcequotas:ResourceQuota", "podtemplates:PodTemplate" };

	private final Scenario scenario;

	private final Pods pods;

	private final ServerSocket socket;

	private final Set<Socket> connections = ConcurrentHashMap.newKeySet();

	private final byte[][] eventTemplates;

	private final int[] rvOffsets;

	private volatile boolean closed;

	private long cursor;

	private final Object lock = new Object();

	/**
	 * Counters: lists (first pages), pages, watches, streaming, cut, other,
	 * resumeMismatches.
	 */
	public final AtomicInteger lists = new AtomicInteger();

	public final AtomicInteger pages = new AtomicInteger();

	/**
	 * List pages served as PartialObjectMetadataList (the client asked for metadata
	 * only).
	 */
	public final AtomicInteger metadataPages = new AtomicInteger();

	public final AtomicInteger watches = new AtomicInteger();

	public final AtomicInteger streamingWatches = new AtomicInteger();

	public final AtomicInteger webSocketWatches = new AtomicInteger();

	public final AtomicInteger cutWatches = new AtomicInteger();

	public final AtomicInteger otherRequests = new AtomicInteger();

	/**
	 * Watches that did not resume from the last resourceVersion sent (all of it is
	 * delivered).
	 */
	public final AtomicInteger resumeMismatches = new AtomicInteger();

	public final List<String> log = Collections.synchronizedList(new ArrayList<>());

	public FakeApiServer(Scenario scenario) throws IOException {
		this(scenario, new Pods());
	}

	/** A server of the given Pods (for example varied ones, {@code new Pods(true)}). */
	public FakeApiServer(Scenario scenario, Pods pods) throws IOException {
		this.scenario = scenario;
		this.pods = pods;
		int templates = (int) Math.min(scenario.pods(), Math.max(1, scenario.totalEvents()));
		this.eventTemplates = new byte[templates][];
		this.rvOffsets = new int[templates];
		for (int i = 0; i < templates; i++) {
			Bytes b = new Bytes(8192);
			this.pods.writeEvent(b, "MODIFIED", i, 9_999_999_999L);
			byte[] event = b.toByteArray();
			String text = new String(event, StandardCharsets.ISO_8859_1);
			this.rvOffsets[i] = text.indexOf("\"resourceVersion\":\"9999999999\"") + "\"resourceVersion\":\"".length();
			this.eventTemplates[i] = event;
		}
		this.socket = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "fake-apiserver-accept");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Serves until killed, for trying a client by hand:
	 * {@code pods totalEvents eventsPerWatch cuts resetOnList}.
	 */
	public static void main(String[] args) throws Exception {
		FakeApiServer server = new FakeApiServer(new Scenario(Integer.parseInt(args[0]), Long.parseLong(args[1]),
				Long.parseLong(args[2]), Integer.parseInt(args[3]), Boolean.parseBoolean(args[4])));
		System.out.println(server.url());
		while (true) {
			Thread.sleep(10_000);
			System.out.println(server.counters() + " "
					+ server.log.subList(Math.max(0, server.log.size() - 5), server.log.size()));
		}
	}

	public String url() {
		return "http://127.0.0.1:" + this.socket.getLocalPort();
	}

	public Pods pods() {
		return this.pods;
	}

	/** The counters as {@code key=value} pairs. */
	public Map<String, String> counters() {
		Map<String, String> c = new java.util.LinkedHashMap<>();
		c.put("lists", String.valueOf(this.lists.get()));
		c.put("listPages", String.valueOf(this.pages.get()));
		c.put("metadataPages", String.valueOf(this.metadataPages.get()));
		c.put("watches", String.valueOf(this.watches.get()));
		c.put("streamingWatches", String.valueOf(this.streamingWatches.get()));
		c.put("webSocketWatches", String.valueOf(this.webSocketWatches.get()));
		c.put("cutWatches", String.valueOf(this.cutWatches.get()));
		c.put("otherRequests", String.valueOf(this.otherRequests.get()));
		c.put("resumeMismatches", String.valueOf(this.resumeMismatches.get()));
		return c;
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket s = this.socket.accept();
				s.setTcpNoDelay(true);
				this.connections.add(s);
				Thread t = new Thread(() -> serve(s), "fake-apiserver-conn");
				t.setDaemon(true);
				t.start();
			}
			catch (IOException ex) {
				if (!this.closed) {
					ex.printStackTrace();
				}
			}
		}
	}

	private void serve(Socket s) {
		try (s) {
			InputStream in = new BufferedInputStream(s.getInputStream());
			OutputStream out = new BufferedOutputStream(s.getOutputStream(), 64 * 1024);
			while (!this.closed) {
				String line = readLine(in);
				if (line == null || line.isEmpty()) {
					return;
				}
				Map<String, String> headers = new HashMap<>();
				String h;
				while ((h = readLine(in)) != null && !h.isEmpty()) {
					int colon = h.indexOf(':');
					if (colon > 0) {
						headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT),
								h.substring(colon + 1).trim());
					}
				}
				long length = Long.parseLong(headers.getOrDefault("content-length", "0"));
				in.skipNBytes(length);
				String[] parts = line.split(" ");
				String target = parts[1];
				if (this.log.size() < 500) {
					this.log.add(parts[0] + " " + target);
				}
				if (!handle(target, headers, in, out, s)) {
					return;
				}
				if ("close".equalsIgnoreCase(headers.get("connection"))) {
					out.flush();
					return;
				}
			}
		}
		catch (IOException ex) {
			// the client went away
		}
		finally {
			this.connections.remove(s);
		}
	}

	/** Answers one request; returns whether the connection can serve another. */
	private boolean handle(String target, Map<String, String> headers, InputStream in, OutputStream out, Socket s)
			throws IOException {
		int q = target.indexOf('?');
		String path = (q < 0) ? target : target.substring(0, q);
		Map<String, String> query = parseQuery((q < 0) ? "" : target.substring(q + 1));
		if (path.equals("/api")) {
			this.otherRequests.incrementAndGet();
			json(out, 200, "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],\"serverAddressByClientCIDRs\":[]}");
			return true;
		}
		if (path.equals("/apis")) {
			this.otherRequests.incrementAndGet();
			json(out, 200, "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[]}");
			return true;
		}
		if (path.equals("/version")) {
			this.otherRequests.incrementAndGet();
			json(out, 200,
					"{\"major\":\"1\",\"minor\":\"34\",\"gitVersion\":\"v1.34.4\",\"platform\":\"linux/amd64\"}");
			return true;
		}
		if (path.equals("/api/v1")) {
			this.otherRequests.incrementAndGet();
			json(out, 200, discovery());
			return true;
		}
		String resource = resourceOf(path);
		if (resource == null) {
			this.otherRequests.incrementAndGet();
			json(out, 404, status(404, "NotFound", "the server could not find the requested resource"));
			return true;
		}
		boolean watch = "1".equals(query.get("watch")) || "true".equals(query.get("watch"));
		if (watch && "true".equals(query.get("sendInitialEvents"))) {
			this.streamingWatches.incrementAndGet();
			json(out, 400, status(400, "BadRequest",
					"sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"));
			return true;
		}
		boolean podsResource = resource.equals("pods");
		String namespace = namespaceOf(path);
		if (!watch) {
			if (podsResource) {
				list(query, metadataOnly(headers, "PartialObjectMetadataList"), namespace, out);
			}
			else {
				this.otherRequests.incrementAndGet();
				json(out, 200, "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\""
						+ Pods.BASE + "\"},\"items\":[]}");
			}
			return true;
		}
		if (podsResource && metadataOnly(headers, "PartialObjectMetadata") && this.scenario.totalEvents() > 0) {
			// events are pre-rendered whole Pods: metadata-only watches only in scenarios
			// without events
			json(out, 406, status(406, "NotAcceptable", "metadata-only watches with events are not served here"));
			return true;
		}
		if (!podsResource || namespace != null) {
			if (!podsResource) {
				this.otherRequests.incrementAndGet();
			}
			else {
				this.watches.incrementAndGet();
			}
			if (podsResource && headers.get("sec-websocket-key") != null) {
				this.webSocketWatches.incrementAndGet();
				acceptWebSocket(out, headers.get("sec-websocket-key"));
			}
			else {
				startChunked(out);
			}
			out.flush();
			hold(in);
			return false;
		}
		return watch(query, headers.get("sec-websocket-key"), in, out, s);
	}

	/**
	 * Whether the request asks for metadata only ({@code as=<kind>;g=meta.k8s.io;v=v1}).
	 */
	private static boolean metadataOnly(Map<String, String> headers, String kind) {
		String accept = headers.get("accept");
		return accept != null && accept.contains("as=" + kind + ";");
	}

	/**
	 * A page of the Pods, of all namespaces or of one: the {@code j}-th Pod of namespace
	 * {@code ns-k} is Pod {@code k + j * namespaces}; paging and resourceVersions are
	 * those of the whole list.
	 */
	private void list(Map<String, String> query, boolean metadataOnly, String namespace, OutputStream out)
			throws IOException {
		int all = this.scenario.pods();
		int spread = this.pods.namespaces();
		int first = 0;
		int step = 1;
		int n = all;
		if (namespace != null) {
			int k = namespaceIndex(namespace, spread);
			first = k;
			step = spread;
			n = (k < 0 || k >= all) ? 0 : (all - k + spread - 1) / spread;
		}
		String cont = query.get("continue");
		long at;
		int start;
		if (cont == null || cont.isEmpty()) {
			this.lists.incrementAndGet();
			synchronized (this.lock) {
				if (this.scenario.resetOnList()) {
					this.cursor = 0;
				}
				at = this.cursor;
			}
			start = 0;
		}
		else {
			String[] c = cont.split("-");
			start = Integer.parseInt(c[0]);
			at = Long.parseLong(c[1]);
		}
		this.pages.incrementAndGet();
		if (metadataOnly) {
			this.metadataPages.incrementAndGet();
		}
		String limitText = query.get("limit");
		int limit = (limitText == null || limitText.isEmpty() || "0".equals(limitText)) ? n
				: (int) Math.min(n, Long.parseLong(limitText));
		int end = Math.min(n, start + limit);
		startChunked(out);
		Bytes b = new Bytes(128 * 1024);
		b.ascii(metadataOnly
				? "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{\"resourceVersion\":\""
				: "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"");
		b.decimal(Pods.listRv(all, at));
		b.ascii("\"");
		if (end < n) {
			b.ascii(",\"continue\":\"" + end + "-" + at + "\",\"remainingItemCount\":" + (n - end));
		}
		b.ascii("},\"items\":[");
		for (int i = start; i < end; i++) {
			if (i > start) {
				b.write(',');
			}
			int pod = first + i * step;
			if (metadataOnly) {
				this.pods.writeMetadata(b, pod, Pods.podRv(all, pod, at));
			}
			else {
				this.pods.write(b, pod, Pods.podRv(all, pod, at));
			}
			if (b.size() >= 64 * 1024) {
				chunk(out, b.array(), 0, b.size());
				b.reset();
			}
		}
		b.ascii("]}\n");
		chunk(out, b.array(), 0, b.size());
		endChunked(out);
		out.flush();
	}

	private boolean watch(Map<String, String> query, String webSocketKey, InputStream in, OutputStream out, Socket s)
			throws IOException {
		int w = this.watches.getAndIncrement();
		if (webSocketKey != null) {
			this.webSocketWatches.incrementAndGet();
		}
		int n = this.scenario.pods();
		String rvText = query.get("resourceVersion");
		long from;
		synchronized (this.lock) {
			if (rvText == null || rvText.isEmpty() || "0".equals(rvText)) {
				from = this.cursor;
			}
			else {
				from = Math.max(0, Long.parseLong(rvText) - Pods.BASE - n);
			}
			if (from != this.cursor) {
				this.resumeMismatches.incrementAndGet();
			}
		}
		boolean cut = w < this.scenario.cuts();
		// a watch to be cut sends its share; the last one sends the rest
		long to = cut ? Math.min(this.scenario.totalEvents(), from + this.scenario.eventsPerWatch())
				: this.scenario.totalEvents();
		if (webSocketKey != null) {
			acceptWebSocket(out, webSocketKey);
		}
		else {
			startChunked(out);
		}
		for (long k = from; k < to; k++) {
			int i = (int) (k % n);
			byte[] event = this.eventTemplates[i];
			int off = this.rvOffsets[i];
			long rv = Pods.eventRv(n, k);
			// fixed width: 10 digits
			for (int d = 9; d >= 0; d--) {
				event[off + d] = (byte) ('0' + (rv % 10));
				rv /= 10;
			}
			if (webSocketKey != null) {
				frame(out, event, 0, event.length);
			}
			else {
				chunk(out, event, 0, event.length);
			}
			synchronized (this.lock) {
				this.cursor = Math.max(this.cursor, k + 1);
			}
		}
		out.flush();
		if (cut) {
			this.cutWatches.incrementAndGet();
			// the connection ends in the middle of the response (no last chunk / close
			// frame), after every byte sent has arrived: a reset instead would let the
			// kernel drop what the client has not read yet, and the resume point would be
			// the server's guess
			s.shutdownOutput();
			s.close();
			return false;
		}
		hold(in);
		return false;
	}

	/** Keeps a watch open until the client closes it or the server stops. */
	private void hold(InputStream in) throws IOException {
		while (!this.closed && in.read() >= 0) {
			// ignore
		}
	}

	/** The namespace of a namespaced path, or {@code null}. */
	private static String namespaceOf(String path) {
		if (!path.startsWith("/api/v1/namespaces/")) {
			return null;
		}
		String rest = path.substring("/api/v1/namespaces/".length());
		int slash = rest.indexOf('/');
		return (slash > 0) ? rest.substring(0, slash) : null;
	}

	/** {@code k} of {@code ns-k} when it is one of the Pods' namespaces, else -1. */
	private static int namespaceIndex(String namespace, int namespaces) {
		if (!namespace.startsWith("ns-")) {
			return -1;
		}
		try {
			int k = Integer.parseInt(namespace.substring(3));
			return (k >= 0 && k < namespaces && namespace.equals("ns-" + k)) ? k : -1;
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	private static String resourceOf(String path) {
		String rest;
		if (path.startsWith("/api/v1/namespaces/")) {
			String[] p = path.substring("/api/v1/namespaces/".length()).split("/");
			if (p.length != 2) {
				return null;
			}
			rest = p[1];
		}
		else if (path.startsWith("/api/v1/")) {
			rest = path.substring("/api/v1/".length());
		}
		else {
			return null;
		}
		for (String r : RESOURCES) {
			if (r.startsWith(rest + ":")) {
				return rest;
			}
		}
		return null;
	}

	private static String discovery() {
		StringBuilder b = new StringBuilder("{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\",\"resources\":[");
		for (int i = 0; i < RESOURCES.length; i++) {
			String[] r = RESOURCES[i].split(":");
			if (i > 0) {
				b.append(',');
			}
			b.append("{\"name\":\"")
				.append(r[0])
				.append("\",\"singularName\":\"\",\"namespaced\":true,\"kind\":\"")
				.append(r[1])
				.append("\",\"verbs\":[\"create\",\"delete\",\"get\",\"list\",\"patch\",\"update\",\"watch\"]}");
		}
		return b.append("]}").toString();
	}

	private static String status(int code, String reason, String message) {
		return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\""
				+ message + "\",\"reason\":\"" + reason + "\",\"code\":" + code + "}";
	}

	private static void json(OutputStream out, int code, String body) throws IOException {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		out.write(("HTTP/1.1 " + code + " " + ((code == 200) ? "OK" : "Error")
				+ "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n")
			.getBytes(StandardCharsets.ISO_8859_1));
		out.write(bytes);
		out.flush();
	}

	/**
	 * Answers a WebSocket upgrade (fabric8 watches over WebSocket, as kube-apiserver
	 * allows).
	 */
	private static void acceptWebSocket(OutputStream out, String key) throws IOException {
		String accept;
		try {
			accept = java.util.Base64.getEncoder()
				.encodeToString(java.security.MessageDigest.getInstance("SHA-1")
					.digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").getBytes(StandardCharsets.ISO_8859_1)));
		}
		catch (java.security.NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
		out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
				+ "Sec-WebSocket-Accept: " + accept + "\r\n\r\n")
			.getBytes(StandardCharsets.ISO_8859_1));
	}

	/** One unmasked text frame from the server. */
	private static void frame(OutputStream out, byte[] b, int off, int len) throws IOException {
		out.write(0x81);
		if (len < 126) {
			out.write(len);
		}
		else if (len < 65536) {
			out.write(126);
			out.write(len >>> 8);
			out.write(len & 0xff);
		}
		else {
			out.write(127);
			for (int shift = 56; shift >= 0; shift -= 8) {
				out.write((int) (((long) len) >>> shift) & 0xff);
			}
		}
		out.write(b, off, len);
	}

	private static void startChunked(OutputStream out) throws IOException {
		out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
			.getBytes(StandardCharsets.ISO_8859_1));
	}

	private static void chunk(OutputStream out, byte[] b, int off, int len) throws IOException {
		out.write((Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
		out.write(b, off, len);
		out.write('\r');
		out.write('\n');
	}

	private static void endChunked(OutputStream out) throws IOException {
		out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
	}

	private static Map<String, String> parseQuery(String query) {
		Map<String, String> map = new HashMap<>();
		for (String pair : query.split("&")) {
			if (pair.isEmpty()) {
				continue;
			}
			int eq = pair.indexOf('=');
			String k = (eq < 0) ? pair : pair.substring(0, eq);
			String v = (eq < 0) ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
			map.put(k, v);
		}
		return map;
	}

	private static String readLine(InputStream in) throws IOException {
		StringBuilder b = new StringBuilder();
		int c;
		while ((c = in.read()) >= 0) {
			if (c == '\n') {
				int len = b.length();
				return (len > 0 && b.charAt(len - 1) == '\r') ? b.substring(0, len - 1) : b.toString();
			}
			b.append((char) c);
		}
		return (b.length() == 0) ? null : b.toString();
	}

	@Override
	public void close() {
		this.closed = true;
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			// closing
		}
		for (Socket s : this.connections) {
			try {
				s.close();
			}
			catch (IOException ex) {
				// closing
			}
		}
	}

}
