package dev.listwatch.etcd;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.LongConsumer;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.ObjectMeta;
import dev.listwatch.Status;
import dev.listwatch.WatchEvent;
import dev.listwatch.WatchStream;
import org.jspecify.annotations.Nullable;

/**
 * One etcd watch: etcd's answers (WatchResponses, from the JSON gateway or gRPC), each
 * turned into watch events (see {@link EtcdListerWatcher} for the mapping). One answer
 * may carry several events; they are handed out one at a time, in order. While it is
 * open, {@link WatchLiveness} asks etcd for progress when it has been silent, and gives
 * it up when no answer comes: the stream then fails as a broken connection.
 *
 * @param <T> the Java type of the objects
 */
final class EtcdWatchStream<T> implements WatchStream<T> {

	private final String what;

	private final Transport.Answers answers;

	private final ValueDecoder<T> decoder;

	private final Transport transport;

	private final ArrayDeque<WatchEvent<T>> pending = new ArrayDeque<>();

	private volatile boolean closed;

	private boolean ended;

	/**
	 * The first revision the watch hands out: nothing below it is; 0 for now.
	 */
	private final long startRevision;

	/**
	 * The revision etcd was asked to start from: one before {@link #startRevision} (etcd
	 * answers a progress request only for a watch whose start revision it has reached,
	 * which one that resumes at etcd's newest revision + 1 has not, while etcd is quiet),
	 * or the same when etcd compacted that one away.
	 */
	private final long requestedFrom;

	/** Hears of each compaction etcd reports, with its revision. */
	private final LongConsumer compacted;

	private final WatchLiveness.@Nullable Watched liveness;

	/** etcd's revision when it created the watch, or 0 before. */
	private long createdRevision;

	/**
	 * Whether the watch was refused for etcd being behind the revision it resumes from.
	 */
	private boolean behind;

	/**
	 * A watch stream.
	 * @param what the watch, for messages
	 * @param answers etcd's answers
	 * @param decoder decodes values
	 * @param transport the transport the watch uses (told of a rejected token)
	 * @param startRevision the first revision to hand out, or 0 for now
	 * @param requestedFrom the revision etcd was asked to start from
	 * @param compacted hears of each compaction etcd reports
	 * @param liveness looks after the open watch, or {@code null} for nothing
	 */
	EtcdWatchStream(String what, Transport.Answers answers, ValueDecoder<T> decoder, Transport transport,
			long startRevision, long requestedFrom, LongConsumer compacted, @Nullable WatchLiveness liveness) {
		this.what = what;
		this.startRevision = startRevision;
		this.requestedFrom = requestedFrom;
		this.compacted = compacted;
		this.answers = answers;
		this.decoder = decoder;
		this.transport = transport;
		this.liveness = (liveness != null) ? liveness.watch(answers, what) : null;
	}

	/**
	 * Reads etcd's first answer: the watch created, or refused. etcd accepts a watch from
	 * a revision it has not reached (it waits for it), so a watch resumed against an etcd
	 * that is behind (one restored from a backup, or a fresh member behind the same
	 * endpoint) would stall in silence: when the created answer's revision, etcd's
	 * newest, is below the one the watch resumes after, the watch is refused as the API
	 * server refuses a too large resourceVersion (504, "Too large resource version"), on
	 * which the reflector relists from scratch ({@link EtcdListerWatcher} first asks a
	 * member only a little behind again, for a while, as one that may be catching up).
	 * @return {@code null} when the watch is created, else the status of etcd's refusal
	 * @throws KubernetesApiException when the stream breaks or ends first
	 */
	@Nullable Status awaitCreated() {
		Transport.Answer answer = answer();
		if (answer == null) {
			throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION,
					this.what + " ended before etcd created the watch", null);
		}
		if (answer.error() != null || answer.canceled()) {
			return status(answer);
		}
		if (!answer.created()) {
			add(answer);
			return null;
		}
		long current = answer.revision();
		this.createdRevision = current;
		// etcd's newest revision below the one the watch resumed after (start - 1): it is
		// behind
		if (this.startRevision > 0 && current > 0 && current < this.startRevision - 1) {
			this.behind = true;
			return new Status(504, "Timeout", "Too large resource version: " + this.startRevision + ", current: "
					+ current + " (etcd is behind the revision the watch resumes from: restored, or replaced)");
		}
		return null;
	}

	/**
	 * etcd's revision when it created the watch.
	 * @return the revision, or 0 before {@link #awaitCreated()} read it
	 */
	long createdRevision() {
		return this.createdRevision;
	}

	/**
	 * Whether {@link #awaitCreated()} refused the watch for etcd being behind the
	 * revision it resumes from.
	 * @return whether it did
	 */
	boolean behind() {
		return this.behind;
	}

	@Override
	public boolean hasNext() {
		while (this.pending.isEmpty()) {
			if (this.ended || this.closed) {
				return false;
			}
			Transport.Answer answer = answer();
			if (answer == null) {
				this.ended = true;
				close();
				return false;
			}
			add(answer);
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

	/**
	 * The next answer, or {@code null} at the end (or once closed).
	 * @throws KubernetesApiException when the watch broke off, or was given up for
	 * silence
	 */
	private Transport.@Nullable Answer answer() {
		WatchLiveness.Watched liveness = this.liveness;
		if (liveness != null) {
			liveness.waiting();
		}
		Transport.Answer answer;
		try {
			answer = this.answers.next();
		}
		catch (RuntimeException ex) {
			boolean byClose = this.closed;
			close();
			if (byClose) {
				return null;
			}
			String abandoned = (liveness != null) ? liveness.abandoned() : null;
			if (abandoned != null) {
				throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION, abandoned, ex);
			}
			if (ex instanceof KubernetesApiException) {
				throw ex;
			}
			throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION, this.what + " broke off: " + ex,
					ex);
		}
		finally {
			if (liveness != null) {
				liveness.heard();
			}
		}
		String abandoned = (liveness != null) ? liveness.abandoned() : null;
		if (answer == null && abandoned != null && !this.closed) {
			close();
			throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION, abandoned, null);
		}
		return answer;
	}

	/** The events of one WatchResponse. */
	private void add(Transport.Answer answer) {
		if (answer.error() != null || answer.canceled()) {
			this.pending.add(new WatchEvent<>(WatchEvent.Type.ERROR, null, null, status(answer), false));
			return;
		}
		if (answer.created()) {
			return;
		}
		if (answer.events().isEmpty()) {
			// a progress notification: every event up to the header's revision has been
			// sent; one below the revision the watch resumed after would move it back
			long revision = answer.revision();
			if (revision >= this.startRevision - 1) {
				this.pending.add(new WatchEvent<>(WatchEvent.Type.BOOKMARK, null,
						new ObjectMeta(null, null, null, Long.toString(revision), null), null, false));
			}
			return;
		}
		for (Transport.Event event : answer.events()) {
			Transport.KeyValue kv = event.kv();
			long modRevision = kv.modRevision();
			if (modRevision < this.startRevision) {
				continue;
			}
			String key = new String(kv.key(), StandardCharsets.UTF_8);
			if (event.delete()) {
				this.pending.add(new WatchEvent<>(WatchEvent.Type.DELETED, null, this.decoder.meta(key, modRevision),
						null, false));
				continue;
			}
			WatchEvent.Type type = (kv.version() == 1) ? WatchEvent.Type.ADDED : WatchEvent.Type.MODIFIED;
			ValueDecoder.Decoded<T> decoded = this.decoder.decode(key, kv.value(), modRevision);
			this.pending.add((decoded.item() != null)
					? new WatchEvent<>(type, decoded.item().object(), decoded.item().meta(), null, false)
					: WatchEvent.unbindable(type, Objects.requireNonNull(decoded.unbindable(), "an item or this")));
		}
	}

	/** The status of a cancelled watch, or of a failure that ended it. */
	private Status status(Transport.Answer answer) {
		if (answer.error() != null) {
			return answer.error();
		}
		long compactRevision = answer.compactRevision();
		if (compactRevision > 0) {
			this.compacted.accept(compactRevision);
			if (compactRevision <= this.startRevision && this.requestedFrom < compactRevision) {
				// compacted up to the first revision the watch needs, which etcd still
				// has: only the revision before, asked for progress answers, is gone
				close();
				throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION,
						this.what + ": etcd compacted its history up to revision " + compactRevision
								+ ", the first one the watch needs; watching again from it",
						null);
			}
			return new Status(410, "Expired",
					"etcd: required revision has been compacted (compacted up to revision " + compactRevision + ")");
		}
		Status status = Gateway.cancelled(answer.cancelReason());
		if (this.transport.authenticates() && (status.code() == 401 || (status.code() == 403 && answer.created()))) {
			// a refused token; or, refusing the watch as it is created, "permission
			// denied", which etcd before 3.5.6 and 3.4.22 answers for every auth failure
			// of a watch
			// (its token invalid, or from before an auth change, or none)
			this.answers.tokenRefused();
		}
		return status;
	}

	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		if (this.liveness != null) {
			this.liveness.ended();
		}
		try {
			this.answers.close();
		}
		catch (RuntimeException ex) {
			// best effort: the connection is gone either way
		}
	}

	@Override
	public String toString() {
		return this.what;
	}

}
