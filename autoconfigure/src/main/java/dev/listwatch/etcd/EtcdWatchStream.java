package dev.listwatch.etcd;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.NoSuchElementException;
import java.util.Objects;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Status;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStream;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * One etcd watch over the gateway: a streamed HTTP response of {@code {"result":
 * WatchResponse}} objects, each turned into watch events (see {@link EtcdListerWatcher}
 * for the mapping). One response may carry several events; they are handed out one at a
 * time, in order.
 *
 * @param <T> the Java type of the objects
 */
final class EtcdWatchStream<T> implements WatchStream<T> {

	private final String what;

	private final InputStream body;

	private final JsonParser parser;

	/**
	 * Reads one object of the stream at a time: more follow, which are not trailing
	 * garbage.
	 */
	private final ObjectReader frames;

	private final ValueDecoder<T> decoder;

	private final Gateway gateway;

	private final ArrayDeque<WatchEvent<T>> pending = new ArrayDeque<>();

	private volatile boolean closed;

	private boolean ended;

	/**
	 * The revision the watch was asked to start from: nothing below it is handed out; 0
	 * for now.
	 */
	private final long startRevision;

	EtcdWatchStream(String what, InputStream body, JsonMapper mapper, ValueDecoder<T> decoder, Gateway gateway,
			long startRevision) {
		this.what = what;
		this.startRevision = startRevision;
		this.body = body;
		this.parser = mapper.createParser(body);
		this.frames = mapper.readerFor(JsonNode.class).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
		this.decoder = decoder;
		this.gateway = gateway;
	}

	/**
	 * Reads etcd's first answer: the watch created, or refused. etcd accepts a watch from
	 * a revision it has not reached (it waits for it), so a watch resumed against an etcd
	 * that is behind (one restored from a backup, or a fresh member behind the same
	 * endpoint) would stall in silence: when the created answer's revision, etcd's
	 * newest, is below the one the watch resumes after, the watch is refused as the API
	 * server refuses a too large resourceVersion (504, "Too large resource version"), on
	 * which the reflector relists from scratch.
	 * @return {@code null} when the watch is created, else the status of etcd's refusal
	 * @throws KubernetesApiException when the stream breaks or ends first
	 */
	@Nullable Status awaitCreated() {
		JsonNode frame = frame();
		if (frame == null) {
			throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION,
					this.what + " ended before etcd created the watch", null);
		}
		JsonNode result = frame.path("result");
		if (frame.has("error") || result.path("canceled").asBoolean(false)) {
			return status(frame);
		}
		if (!result.path("created").asBoolean(false)) {
			add(frame);
			return null;
		}
		long current = EtcdListerWatcher.number(result.path("header").path("revision"));
		// etcd's newest revision below the one the watch resumed after (start - 1): it is
		// behind
		if (this.startRevision > 0 && current > 0 && current < this.startRevision - 1) {
			return new Status(504, "Timeout", "Too large resource version: " + this.startRevision + ", current: "
					+ current + " (etcd is behind the revision the watch resumes from: restored, or replaced)");
		}
		return null;
	}

	@Override
	public boolean hasNext() {
		while (this.pending.isEmpty()) {
			if (this.ended || this.closed) {
				return false;
			}
			JsonNode frame = frame();
			if (frame == null) {
				this.ended = true;
				close();
				return false;
			}
			add(frame);
		}
		return true;
	}

	/**
	 * Whether an event of the answer read last waits: the events of one revision come in
	 * one answer, so the reflector moves its resourceVersion to a revision only once its
	 * events are all handed out.
	 */
	@Override
	public boolean hasBuffered() {
		return !this.pending.isEmpty();
	}

	@Override
	public WatchEvent<T> next() {
		if (!hasNext()) {
			throw new NoSuchElementException(this.what + " has ended");
		}
		return this.pending.poll();
	}

	/** The next object of the stream, or {@code null} at its end. */
	private @Nullable JsonNode frame() {
		try {
			if (this.parser.nextToken() == null) {
				return null;
			}
			return this.frames.readValue(this.parser);
		}
		catch (JacksonException ex) {
			boolean byClose = this.closed;
			close();
			if (byClose) {
				return null;
			}
			if (ex instanceof JacksonIOException) {
				throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION, this.what + " broke off: "
						+ ((ex.getCause() != null) ? ex.getCause() : ex.getClass().getSimpleName()), ex);
			}
			throw new KubernetesApiException(KubernetesApiException.Kind.DECODE,
					this.what + ": the gateway sent something that is not JSON"
							+ ((ex.getLocation() != null) ? " (at byte " + ex.getLocation().getByteOffset() + ")" : ""),
					null);
		}
		catch (RuntimeException ex) {
			boolean byClose = this.closed;
			close();
			if (byClose) {
				return null;
			}
			throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION, this.what + " broke off: " + ex,
					ex);
		}
	}

	/** The events of one WatchResponse. */
	private void add(JsonNode frame) {
		JsonNode result = frame.path("result");
		if (frame.has("error") || result.path("canceled").asBoolean(false)) {
			this.pending.add(new WatchEvent<>(WatchEvent.Type.ERROR, null, null, status(frame), false));
			return;
		}
		if (result.path("created").asBoolean(false)) {
			return;
		}
		JsonNode events = result.path("events");
		if (events.isEmpty()) {
			// a progress notification: every event up to the header's revision has been
			// sent; one below the revision the watch resumed after would move it back
			long revision = EtcdListerWatcher.number(result.path("header").path("revision"));
			if (revision >= this.startRevision - 1) {
				this.pending.add(new WatchEvent<>(WatchEvent.Type.BOOKMARK, null,
						new ObjectMeta(null, null, null, Long.toString(revision), null), null, false));
			}
			return;
		}
		for (JsonNode event : events) {
			JsonNode kv = event.path("kv");
			String key = new String(Base64.getDecoder().decode(kv.path("key").asString("")), StandardCharsets.UTF_8);
			long modRevision = EtcdListerWatcher.number(kv.path("mod_revision"));
			if (modRevision < this.startRevision) {
				continue;
			}
			if ("DELETE".equals(event.path("type").asString("PUT"))) {
				this.pending.add(new WatchEvent<>(WatchEvent.Type.DELETED, null, this.decoder.meta(key, modRevision),
						null, false));
				continue;
			}
			WatchEvent.Type type = (EtcdListerWatcher.number(kv.path("version")) == 1) ? WatchEvent.Type.ADDED
					: WatchEvent.Type.MODIFIED;
			byte[] value = Base64.getDecoder().decode(kv.path("value").asString(""));
			ValueDecoder.Decoded<T> decoded = this.decoder.decode(key, value, modRevision);
			this.pending.add((decoded.item() != null)
					? new WatchEvent<>(type, decoded.item().object(), decoded.item().meta(), null, false)
					: WatchEvent.unbindable(type, Objects.requireNonNull(decoded.unbindable(), "an item or this")));
		}
	}

	/** The status of a cancelled watch, or of the gateway's error. */
	private Status status(JsonNode frame) {
		if (frame.has("error")) {
			JsonNode error = frame.get("error");
			return Gateway.status(error.path("grpc_code").asInt(error.path("code").asInt(2)),
					error.path("message").asString("the gateway failed"));
		}
		JsonNode result = frame.path("result");
		long compacted = EtcdListerWatcher.number(result.path("compact_revision"));
		if (compacted > 0) {
			return new Status(410, "Expired",
					"etcd: required revision has been compacted (compacted up to revision " + compacted + ")");
		}
		Status status = Gateway.cancelled(result.path("cancel_reason").asString(null));
		if (status.code() == 401) {
			this.gateway.tokenRejected();
		}
		return status;
	}

	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		try {
			this.body.close();
		}
		catch (IOException | RuntimeException ex) {
			// best effort: the connection is gone either way
		}
	}

	@Override
	public String toString() {
		return this.what;
	}

}
