package dev.listwatch.leader;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Shards of keys, and shards shared out among members: every shard owned once, shares
 * within one of even, the same whatever the order of the members, and few moves when a
 * member joins or leaves.
 */
class ShardAssignmentTests {

	@Test
	void keysSpreadEvenlyOverTheShards() {
		int[] counts = new int[16];
		for (int i = 0; i < 16_000; i++) {
			counts[ShardAssignment.shardOf("ns-" + (i % 7) + "/object-" + i, 16)]++;
		}
		assertThat(IntStream.of(counts).boxed().toList()).allSatisfy((count) -> assertThat(count).isBetween(800, 1200));
		assertThat(ShardAssignment.shardOf("default/a", 16)).isEqualTo(ShardAssignment.shardOf("default/a", 16));
		assertThatIllegalArgumentException().isThrownBy(() -> ShardAssignment.shardOf("a", 0))
			.withMessageContaining("at least 1");
	}

	@Test
	void everyShardHasOneOwnerAndTheSharesAreWithinOneOfEven() {
		for (int members = 1; members <= 7; members++) {
			for (int shards : new int[] { 1, 5, 16, 64, 100 }) {
				List<String> names = names(members);
				String[] owners = ShardAssignment.assign(names, shards);
				assertThat(owners).hasSize(shards).doesNotContainNull();
				int[] shares = names.stream()
					.mapToInt((name) -> ShardAssignment.shardsOf(owners, name).size())
					.toArray();
				assertThat(IntStream.of(shares).max().getAsInt() - IntStream.of(shares).min().getAsInt())
					.as("%d members, %d shards", members, shards)
					.isLessThanOrEqualTo(1);
			}
		}
	}

	@Test
	void everyMemberComputesTheSameAssignmentWhateverTheOrderItLearntTheMembersIn() {
		List<String> names = names(5);
		String[] first = ShardAssignment.assign(names, 64);
		List<String> shuffled = new ArrayList<>(names);
		shuffled.add(names.get(2));
		Collections.shuffle(shuffled, new Random(7));
		assertThat(ShardAssignment.assign(shuffled, 64)).containsExactly(first);
	}

	@Test
	void aMemberThatJoinsOrLeavesMovesAboutItsShareOnly() {
		int shards = 64;
		List<String> four = names(4);
		List<String> five = names(5);
		String[] before = ShardAssignment.assign(four, shards);
		String[] joined = ShardAssignment.assign(five, shards);
		// the new member's share is 12 or 13 shards; a few more may move to even out
		assertThat(moved(before, joined)).isLessThanOrEqualTo(13 + 4);
		String[] left = ShardAssignment.assign(five.subList(1, 5), shards);
		int lost = ShardAssignment.shardsOf(joined, five.get(0)).size();
		assertThat(moved(joined, left)).isLessThanOrEqualTo(lost + 4);
	}

	@Test
	void noMemberNoOwner() {
		assertThat(ShardAssignment.assign(List.of(), 8)).isEmpty();
	}

	private static int moved(String[] before, String[] after) {
		int moved = 0;
		for (int shard = 0; shard < before.length; shard++) {
			if (!before[shard].equals(after[shard])) {
				moved++;
			}
		}
		return moved;
	}

	private static List<String> names(int count) {
		return IntStream.range(0, count).mapToObj((i) -> "replica-" + i).toList();
	}

}
