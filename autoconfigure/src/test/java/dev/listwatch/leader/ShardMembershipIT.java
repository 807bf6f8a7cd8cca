package dev.listwatch.leader;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;

import dev.listwatch.client.ApiServerClient;
import dev.listwatch.cluster.Cluster;
import dev.listwatch.cluster.ConnectionOptions;
import dev.listwatch.testsupport.LocalApiServer;
import dev.listwatch.testsupport.LocalApiServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three memberships of one shard group on the real kube-apiserver, with short durations
 * (lease 2 s, renew deadline 1.5 s, retry period 0.25 s) and 12 shards. Every start and
 * stop of every member goes, as it is reported, into one ordered timeline; a start of a
 * shard another member runs is an overlap, and there must be none.
 */
@ExtendWith(LocalApiServerExtension.class)
@Timeout(120)
class ShardMembershipIT {

	private static final Logger logger = LoggerFactory.getLogger(ShardMembershipIT.class);

	private static final String NAMESPACE = "lw-shards";

	private static final int SHARDS = 12;

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static LocalApiServer server;

	@TempDir
	Path dir;

	private final List<String> timeline = new ArrayList<>();

	private final List<ShardMembership> memberships = new ArrayList<>();

	@BeforeAll
	static void namespace(LocalApiServer localApiServer) {
		server = localApiServer;
		server.createNamespace(NAMESPACE);
	}

	@AfterEach
	void close() {
		this.memberships.forEach(ShardMembership::close);
	}

	@Test
	void threeMembersConvergeToADisjointCoverAndTheOthersTakeTheSharesOfOneThatStops() {
		ApiServerClient client = ApiServerClient.create(Cluster.load(ConnectionOptions.builder()
			.kubeconfig(server.kubeconfig().toString())
			.environment(Map.of())
			.homeDirectory(this.dir)
			.serviceAccountDirectory(this.dir)
			.build()), RestClient.builder(), JsonMapper.shared(), Clock.systemUTC());
		for (String identity : List.of("a", "b", "c")) {
			ShardMembershipOptions options = new ShardMembershipOptions("orders", NAMESPACE, identity, SHARDS,
					Duration.ofSeconds(2), Duration.ofMillis(1500), Duration.ofMillis(250));
			ShardMembership membership = ShardMembership.create(client, JsonMapper.shared(), options,
					new Recorder(identity));
			this.memberships.add(membership);
			membership.start();
		}
		long started = System.nanoTime();
		await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> covered(this.memberships, 4));
		logger.info("Three members cover the shards after {} ms", (System.nanoTime() - started) / 1_000_000);
		ShardMembership leaving = this.memberships.get(0);
		leaving.close();
		assertThat(leaving.status().running()).isEmpty();
		long stopped = System.nanoTime();
		List<ShardMembership> staying = this.memberships.subList(1, 3);
		await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> covered(staying, 6));
		logger.info("Two members cover the shards {} ms after the third stopped",
				(System.nanoTime() - stopped) / 1_000_000);
		logger.info("Timeline: {}", timeline());
		assertThat(overlaps()).isEmpty();
		assertThat(timeline()).anyMatch((line) -> line.startsWith("stopped a"));
		for (ShardMembership membership : staying) {
			assertThat(membership.status().members()).containsExactly("b", "c");
			assertThat(membership.status().lastError()).isNull();
			assertThat(membership.status().fences()).isZero();
		}
	}

	/** Every shard runs on exactly one of the members, each running {@code share}. */
	private static boolean covered(List<ShardMembership> members, int share) {
		Set<Integer> union = new TreeSet<>();
		for (ShardMembership member : members) {
			Set<Integer> running = member.status().running();
			if (running.size() != share) {
				return false;
			}
			union.addAll(running);
		}
		return union.equals(new TreeSet<>(IntStream.range(0, SHARDS).boxed().toList()));
	}

	private synchronized void record(String line) {
		this.timeline.add(line);
	}

	private synchronized List<String> timeline() {
		return List.copyOf(this.timeline);
	}

	/** The starts of a shard while another member ran it. */
	private List<String> overlaps() {
		Map<Integer, String> owner = new HashMap<>();
		List<String> overlaps = new ArrayList<>();
		for (String line : timeline()) {
			String[] words = line.split(" ", 3);
			for (String shard : words[2].replaceAll("[\\[\\] ]", "").split(",")) {
				int number = Integer.parseInt(shard);
				if (words[0].equals("started")) {
					String previous = owner.putIfAbsent(number, words[1]);
					if (previous != null) {
						overlaps.add(line + " while " + previous + " ran " + number);
					}
				}
				else if (!words[1].equals(owner.remove(number))) {
					overlaps.add(line + ": " + number + " was not running there");
				}
			}
		}
		return overlaps;
	}

	/** A controller side that drains at once and records every change in order. */
	private final class Recorder implements ShardListener {

		private final String identity;

		Recorder(String identity) {
			this.identity = identity;
		}

		@Override
		public void started(Set<Integer> shards) {
			record("started " + this.identity + " " + shards);
		}

		@Override
		public void stopped(Set<Integer> shards) {
			record("stopped " + this.identity + " " + shards);
		}

		@Override
		public boolean drained(int shard) {
			return true;
		}

	}

}
