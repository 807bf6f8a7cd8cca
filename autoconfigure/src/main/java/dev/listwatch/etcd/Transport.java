package dev.listwatch.etcd;

import java.util.List;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.Status;
import org.jspecify.annotations.Nullable;

/**
 * How the etcd lister-watcher reaches etcd: the few calls it makes (a range read, a
 * watch), with etcd's answers as plain values, so that the mapping onto list-watch (in
 * {@link EtcdListerWatcher} and {@link EtcdWatchStream}) is one for every way of reaching
 * etcd. Two implement it: {@link Gateway}, etcd's JSON gateway over the JDK HTTP client
 * (no extra dependency), and {@link GrpcTransport}, etcd's native gRPC API (when
 * grpc-java is on the class path). Both try the endpoints in turn, authenticate and renew
 * the token, and fail with {@link KubernetesApiException}s whose {@link Status}
 * translates etcd's gRPC code ({@link Gateway#status(int, String)}). Thread-safe.
 */
interface Transport extends AutoCloseable {

	/**
	 * A range read.
	 * @param key the first key
	 * @param rangeEnd the end of the range (exclusive)
	 * @param limit the most keys to read, or {@code null} for all
	 * @param revision the revision to read at, or 0 for the newest
	 * @param what what the call does, for messages
	 * @return etcd's answer
	 * @throws KubernetesApiException when no endpoint can be reached, or etcd refuses
	 */
	Range range(byte[] key, byte[] rangeEnd, @Nullable Long limit, long revision, String what);

	/**
	 * Opens a watch of a range, with progress notifications, and hands back its answers
	 * as they come (the first is etcd's created, or cancelled, answer).
	 * @param key the first key
	 * @param rangeEnd the end of the range (exclusive)
	 * @param startRevision the revision to start from, or 0 for now
	 * @param what what the call does, for messages
	 * @return the answers; the caller closes them
	 * @throws KubernetesApiException when no endpoint can be reached, or etcd refuses
	 */
	Answers watch(byte[] key, byte[] rangeEnd, long startRevision, String what);

	/**
	 * Forgets the token (a watch was cancelled for an invalid one), so the next call
	 * authenticates.
	 */
	void tokenRejected();

	/** Whether calls carry a token (a user name is set). */
	boolean authenticates();

	/** Releases connections and threads; open watches break off. Idempotent. */
	@Override
	void close();

	/**
	 * A key and its value (empty for a DELETE event).
	 *
	 * @param key the key
	 * @param value the value
	 * @param modRevision the revision of its last change
	 * @param version its version: 1 when created by this change
	 */
	record KeyValue(byte[] key, byte[] value, long modRevision, long version) {

	}

	/**
	 * etcd's answer to a range read.
	 *
	 * @param revision the header's revision
	 * @param kvs the keys, in order
	 * @param more whether more keys are in the range
	 * @param count the number of keys in the range
	 */
	record Range(long revision, List<KeyValue> kvs, boolean more, long count) {

	}

	/**
	 * One event of a watch.
	 *
	 * @param delete whether it is a DELETE (else a PUT)
	 * @param kv the key and value
	 */
	record Event(boolean delete, KeyValue kv) {

	}

	/**
	 * One answer of a watch (etcd's WatchResponse), or the failure that ended it.
	 *
	 * @param revision the header's revision
	 * @param created whether it answers the create request
	 * @param canceled whether etcd cancelled the watch
	 * @param compactRevision the compacted revision, when cancelled for it
	 * @param cancelReason why etcd cancelled the watch, or {@code null}
	 * @param events the events, in order
	 * @param error the status of a failure that ended the watch, or {@code null}
	 */
	record Answer(long revision, boolean created, boolean canceled, long compactRevision, @Nullable String cancelReason,
			List<Event> events, @Nullable Status error) {

		static Answer failed(Status error) {
			return new Answer(0, false, false, 0, null, List.of(), error);
		}

	}

	/** The answers of one watch, in order. */
	interface Answers extends AutoCloseable {

		/**
		 * The next answer, blocking until it comes.
		 * @return the answer, or {@code null} when the watch has ended (or was closed)
		 * @throws KubernetesApiException when the watch broke off
		 */
		@Nullable Answer next();

		/**
		 * Asks etcd for progress on this watch ({@code WatchRequest.progress_request} on
		 * the same stream): etcd answers with an answer without events at its current
		 * revision once it has sent every event up to it (not while the watch is catching
		 * up, nor while etcd has not reached the watch's start revision). Best effort:
		 * does nothing once the watch has ended, and never throws. May be called from any
		 * thread, while another reads.
		 */
		void requestProgress();

		/** Ends the watch; a blocked {@link #next()} returns {@code null}. Idempotent. */
		@Override
		void close();

		/**
		 * Ends the watch as {@link #close()} does, its connection taken for dead (it
		 * answered nothing, not even a progress request): calls made after this one do
		 * not use that connection.
		 */
		default void abandon() {
			close();
		}

	}

}
