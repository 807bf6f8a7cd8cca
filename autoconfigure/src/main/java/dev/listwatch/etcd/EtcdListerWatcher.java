package dev.listwatch.etcd;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.listwatch.KubernetesApiException;
import dev.listwatch.ListOptions;
import dev.listwatch.ListerWatcher;
import dev.listwatch.ObjectList;
import dev.listwatch.Resource;
import dev.listwatch.Status;
import dev.listwatch.UnbindableObject;
import dev.listwatch.WatchStream;
import org.jspecify.annotations.Nullable;

/**
 * Lists and watches the keys under one prefix in etcd, mapped onto list-watch:
 * <ul>
 * <li><b>list</b> is a range read of the prefix ({@code KV.Range}, keys in order) at one
 * revision, paged: {@code limit} is the range's limit, and the continue token carries the
 * first page's revision and the key after the last one read, so that every page is read
 * at the revision of the first. The list's resourceVersion is that revision (the header's
 * revision of the first page). {@code resourceVersion} with
 * {@code resourceVersionMatch=Exact} reads at that revision; otherwise a list reads the
 * newest state.</li>
 * <li><b>watch</b> is an etcd watch of the prefix ({@code Watch.Watch}, streamed) from
 * the resourceVersion + 1 (without one: from now), with progress notifications. Several
 * events share a revision (a txn, a {@code del --prefix}) and come in one answer: the
 * reflector moves its resourceVersion to a revision only once all its events are applied,
 * so a stop between two of them resumes from the revision before. A PUT is ADDED when it
 * created the key ({@code version} 1), else MODIFIED; a DELETE is DELETED, with the key's
 * metadata and no object (etcd's delete carries only the key; the informer publishes the
 * last cached state). Each event's resourceVersion is its {@code mod_revision}. A
 * progress notification, or an answer to a progress request, is a BOOKMARK at the
 * header's revision. etcd has no server-side watch timeout: {@code timeout} is not sent.
 * A watch silent while its reader waits asks etcd for progress on the open watch, and is
 * given up as a dead connection when that goes unanswered ({@link WatchLiveness}); etcd
 * is asked to start from the revision before the first one needed (its events are left
 * out), because it answers a progress request only for a watch whose start revision it
 * has reached.</li>
 * <li><b>410.</b> A list, or a watch, from a revision etcd has compacted fails as etcd's
 * "required revision has been compacted": a list throws a {@link KubernetesApiException}
 * of kind GONE, a watch already open sends an ERROR event with status 410 Expired, as the
 * API server does for a too old resourceVersion; the reflector then relists and publishes
 * the difference (deletes with final state unknown). A revision etcd has not reached (an
 * etcd restored from a backup, or a fresh member behind the same endpoint) fails a list
 * as 410 Gone, and a watch as the API server's 504 "Too large resource version" (etcd
 * itself accepts such a watch and waits in silence); both relist from scratch. A watch
 * finding etcd at most {@value #LAGGING} revisions behind (a follower lagging after a
 * leader failover) asks again after a pause, for up to 3 s in all (as kube-apiserver
 * waits for its watch cache; at most a third of the client's watch timeout), and is
 * refused only if etcd is still behind then.</li>
 * <li><b>Values</b> are JSON, decoded per key by {@link ValueDecoder} (which also says
 * how a key maps to namespace and name): a value that cannot be held is an
 * {@link UnbindableObject} in the list's {@code unbindable()} or an event's
 * {@code unbindable()}, under the same rule as for the API server: never dropped as if
 * deleted, never killing the watch.</li>
 * <li>Not served: label and field selectors (refused with 400 BadRequest) and streaming
 * lists ({@code sendInitialEvents}, refused with 400 BadRequest, so that the reflector
 * lists instead).</li>
 * </ul>
 * Thread-safe.
 *
 * @param <T> the Java type of the objects
 */
final class EtcdListerWatcher<T> implements ListerWatcher<T> {

	/**
	 * How far (in revisions) an etcd may be behind the revision a watch resumes after and
	 * still be taken for a member catching up, waited for: further behind, it is taken
	 * for one restored from a backup (or another cluster), and refused at once.
	 */
	static final long LAGGING = 1000;

	/**
	 * The pauses (milliseconds) before each new ask of a member that is behind: 3 s in
	 * all, kube-apiserver's wait for its watch cache to catch up ({@code blockTimeout} of
	 * {@code waitUntilFreshAndBlock}), after which a member still behind is refused.
	 */
	private static final long[] CATCHING_UP = { 100, 200, 400, 800, 1500 };

	private final Transport transport;

	private final @Nullable Executor prefetcher;

	private final AtomicReference<@Nullable Prefetch<T>> prefetch = new AtomicReference<>();

	private final String prefix;

	private final byte[] rangeEnd;

	private final ValueDecoder<T> decoder;

	private final Resource resource;

	private final @Nullable WatchLiveness liveness;

	/** The highest revision etcd reported its history compacted up to. */
	private final AtomicLong compacted = new AtomicLong();

	/** Waits between the asks of an etcd member that is behind. */
	private final Pause pause;

	EtcdListerWatcher(Transport transport, @Nullable Executor prefetcher, String prefix, ValueDecoder<T> decoder,
			@Nullable WatchLiveness liveness) {
		this(transport, prefetcher, prefix, decoder, liveness, Thread::sleep);
	}

	EtcdListerWatcher(Transport transport, @Nullable Executor prefetcher, String prefix, ValueDecoder<T> decoder,
			@Nullable WatchLiveness liveness, Pause pause) {
		this.transport = transport;
		this.pause = pause;
		this.prefetcher = prefetcher;
		this.liveness = liveness;
		this.prefix = prefix;
		this.rangeEnd = rangeEnd(prefix.getBytes(StandardCharsets.UTF_8));
		this.decoder = decoder;
		this.resource = new Resource("etcd", "v3", prefix, null, true, null);
	}

	/**
	 * Lists one page. When the page has more after it, the next page is read ahead on the
	 * prefetch executor while the caller files this one: a page is read at the revision
	 * its continue token carries, so reading it early reads the same keys and values. A
	 * list call with the options of the page read ahead takes it (its failure too); any
	 * other call reads its own.
	 */
	@Override
	public ObjectList<T> list(ListOptions options) {
		Prefetch<T> ahead = this.prefetch.getAndSet(null);
		ObjectList<T> page = (ahead != null && ahead.options().equals(options)) ? ahead.await() : read(options);
		Executor prefetcher = this.prefetcher;
		if (prefetcher != null && page.continueToken() != null) {
			ListOptions next = options.withContinueToken(page.continueToken());
			try {
				this.prefetch.set(new Prefetch<>(next, CompletableFuture.supplyAsync(() -> read(next), prefetcher)));
			}
			catch (RejectedExecutionException ex) {
				// the client is closing: the next page is read when asked for
			}
		}
		return page;
	}

	private ObjectList<T> read(ListOptions options) {
		String what = "range of " + this.prefix;
		refuseSelectors(options, what);
		long revision = 0;
		byte[] from = this.prefix.getBytes(StandardCharsets.UTF_8);
		if (options.continueToken() != null && !options.continueToken().isEmpty()) {
			Continue token = Continue.parse(options.continueToken(), what);
			revision = token.revision();
			from = token.key();
		}
		else if (options.resourceVersion() != null && !"0".equals(options.resourceVersion())
				&& ListOptions.EXACT.equals(options.resourceVersionMatch())) {
			revision = revision(options.resourceVersion(), what);
		}
		Transport.Range answer = this.transport.range(from, this.rangeEnd, options.limit(), revision, what);
		long listRevision = (revision > 0) ? revision : answer.revision();
		List<Transport.KeyValue> kvs = answer.kvs();
		List<ObjectList.Item<T>> items = new ArrayList<>(kvs.size());
		List<UnbindableObject> unbindable = new ArrayList<>();
		byte[] lastKey = null;
		for (Transport.KeyValue kv : kvs) {
			lastKey = kv.key();
			ValueDecoder.Decoded<T> decoded = this.decoder.decode(new String(lastKey, StandardCharsets.UTF_8),
					kv.value(), kv.modRevision());
			if (decoded.item() != null) {
				items.add(decoded.item());
			}
			else {
				unbindable.add(decoded.unbindable());
			}
		}
		boolean more = answer.more() && lastKey != null;
		String continueToken = (more && lastKey != null) ? new Continue(listRevision, next(lastKey)).toString() : null;
		Long remaining = more ? Math.max(0, answer.count() - kvs.size()) : null;
		return new ObjectList<>(items, Long.toString(listRevision), continueToken, remaining, unbindable);
	}

	@Override
	public WatchStream<T> watch(ListOptions options) {
		String what = "watch of " + this.prefix;
		if (Boolean.TRUE.equals(options.sendInitialEvents())) {
			throw KubernetesApiException.of("etcd " + what, new Status(400, "BadRequest",
					"etcd watches do not serve streaming lists (sendInitialEvents): list, then watch"), null);
		}
		refuseSelectors(options, what);
		String resourceVersion = options.resourceVersion();
		long start = (resourceVersion == null || resourceVersion.isEmpty() || "0".equals(resourceVersion)) ? 0
				: revision(resourceVersion, what) + 1;
		byte[] key = this.prefix.getBytes(StandardCharsets.UTF_8);
		// from the revision before the first one needed (its events are left out), so
		// that etcd answers progress requests while it is quiet; from the first one when
		// etcd compacted the one before away
		long from = (start > 1) ? Math.max(start - 1, Math.min(start, this.compacted.get())) : start;
		boolean tokenRenewed = false;
		int waits = 0;
		long waited = 0;
		for (;;) {
			Transport.Answers answers = this.transport.watch(key, this.rangeEnd, from, what);
			EtcdWatchStream<T> stream = new EtcdWatchStream<>(answers.toString(), answers, this.decoder, this.transport,
					start, from, this::compacted, this.liveness);
			Status refused;
			try {
				refused = stream.awaitCreated();
			}
			catch (RuntimeException ex) {
				stream.close();
				throw ex;
			}
			if (refused == null) {
				return stream;
			}
			stream.close();
			if (!tokenRenewed && this.transport.authenticates() && (refused.code() == 401 || refused.code() == 403)) {
				// the token is refused (the stream forgot it, unless replaced already):
				// authenticate again, once; a second refusal is etcd's answer
				tokenRenewed = true;
				continue;
			}
			long behind = (start - 1) - stream.createdRevision();
			if (stream.behind() && behind <= LAGGING && waits < CATCHING_UP.length
					&& waited + CATCHING_UP[waits] <= catchingUpAtMost()) {
				// a member a few revisions behind (a follower after a leader failover):
				// it catches up within moments; asked again after a pause, as
				// kube-apiserver waits up to 3 s for its watch cache to catch up
				pause(CATCHING_UP[waits], what);
				waited += CATCHING_UP[waits++];
				continue;
			}
			if (waits > 0) {
				refused = new Status(refused.code(), refused.reason(),
						refused.message() + "; still behind after " + waited + " ms of waiting for it to catch up");
			}
			throw KubernetesApiException.of("etcd " + what, refused, null);
		}
	}

	/**
	 * How long, in milliseconds, a watch waits for a member that is behind: 3 s, or a
	 * third of the client's watch timeout if that is shorter, so that the informer, which
	 * gives a request up after a longer silence, never abandons the wait and retries it
	 * (a short timeout would then never let a restored etcd be refused).
	 */
	private long catchingUpAtMost() {
		long most = 3000;
		WatchLiveness liveness = this.liveness;
		return (liveness != null) ? Math.min(most, liveness.timeout().toMillis() / 3) : most;
	}

	private void pause(long millis, String what) {
		try {
			this.pause.pause(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION,
					"etcd " + what + ": interrupted while waiting for etcd to catch up", ex);
		}
	}

	/** etcd reported a compaction up to a revision. */
	private void compacted(long revision) {
		this.compacted.accumulateAndGet(revision, Math::max);
	}

	@Override
	public Resource resource() {
		return this.resource;
	}

	private static void refuseSelectors(ListOptions options, String what) {
		if (hasText(options.labelSelector()) || hasText(options.fieldSelector())) {
			throw KubernetesApiException.of("etcd " + what,
					new Status(400, "BadRequest", "etcd watches serve no label or field selectors"), null);
		}
	}

	private static long revision(String resourceVersion, String what) {
		try {
			return Long.parseLong(resourceVersion);
		}
		catch (NumberFormatException ex) {
			throw KubernetesApiException.of("etcd " + what,
					new Status(400, "BadRequest", "resourceVersion '" + resourceVersion + "' is not an etcd revision"),
					null);
		}
	}

	/**
	 * The end of the range of keys that start with {@code prefix}: the prefix with its
	 * last byte (below 0xff) one higher.
	 */
	static byte[] rangeEnd(byte[] prefix) {
		byte[] end = Arrays.copyOf(prefix, prefix.length);
		for (int i = end.length - 1; i >= 0; i--) {
			if (end[i] != (byte) 0xff) {
				end[i]++;
				return Arrays.copyOf(end, i + 1);
			}
		}
		// all 0xff: to the end of the key space
		return new byte[] { 0 };
	}

	/** The smallest key after {@code key}: the key and a zero byte. */
	private static byte[] next(byte[] key) {
		return Arrays.copyOf(key, key.length + 1);
	}

	private static boolean hasText(@Nullable String value) {
		return value != null && !value.isBlank();
	}

	@Override
	public String toString() {
		return "EtcdListerWatcher[" + this.prefix + " on " + this.transport + "]";
	}

	/** A wait, in milliseconds: {@link Thread#sleep(long)}, or a test's record of it. */
	@FunctionalInterface
	interface Pause {

		void pause(long millis) throws InterruptedException;

	}

	/**
	 * A continue token: the revision of the list's first page and the key to read on
	 * from, {@code <revision>:<key, base64url>}.
	 */
	record Continue(long revision, byte[] key) {

		static Continue parse(String token, String what) {
			int colon = token.indexOf(':');
			try {
				return new Continue(Long.parseLong(token.substring(0, colon)),
						Base64.getUrlDecoder().decode(token.substring(colon + 1)));
			}
			catch (RuntimeException ex) {
				throw KubernetesApiException.of("etcd " + what,
						new Status(400, "BadRequest", "the continue token is not one this lister-watcher made"), null);
			}
		}

		@Override
		public String toString() {
			return this.revision + ":" + Base64.getUrlEncoder().withoutPadding().encodeToString(this.key);
		}

	}

	/**
	 * A page being read ahead.
	 *
	 * @param <T> the Java type of the objects
	 * @param options the options of the page
	 * @param page the page
	 */
	private record Prefetch<T>(ListOptions options, CompletableFuture<ObjectList<T>> page) {

		ObjectList<T> await() {
			try {
				return this.page.get();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new KubernetesApiException(KubernetesApiException.Kind.CONNECTION,
						"interrupted while waiting for a page of the list", ex);
			}
			catch (ExecutionException ex) {
				if (ex.getCause() instanceof RuntimeException failure) {
					throw failure;
				}
				throw new IllegalStateException(ex.getCause());
			}
		}

	}

}
