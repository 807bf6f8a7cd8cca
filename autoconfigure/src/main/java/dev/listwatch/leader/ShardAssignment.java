package dev.listwatch.leader;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * Which replica reconciles which shard of a controller's keys: keys map to a fixed number
 * of shards by a stable hash, and shards to the live members so that
 * <ul>
 * <li>every member computes the same assignment from the same set of members, whatever
 * order it learnt them in;</li>
 * <li>the shares are within one shard of even: each member gets {@code shards / members}
 * shards or one more;</li>
 * <li>a change of membership moves few shards: each shard goes to the member that ranks
 * it highest (rendezvous hashing) unless that member's share is full, so a member that
 * joins takes about its share from the others, and one that leaves gives only its own
 * away.</li>
 * </ul>
 * The hash is FNV-1a over the UTF-8 bytes, finished by SplitMix64's mixer: fixed here,
 * not {@link String#hashCode()}, so that replicas on other JVMs agree. Stateless and
 * thread-safe.
 */
final class ShardAssignment {

	private ShardAssignment() {
	}

	/**
	 * The shard of a key.
	 * @param key the key, {@code namespace/name} or {@code name}
	 * @param shards the number of shards, at least 1
	 * @return the shard, from 0 to {@code shards - 1}
	 */
	static int shardOf(String key, int shards) {
		checkShards(shards);
		return (int) Long.remainderUnsigned(hash(key), shards);
	}

	/**
	 * Assigns every shard to one of the members.
	 * @param members the live members' identities (duplicates counted once)
	 * @param shards the number of shards, at least 1
	 * @return the owner of each shard, by shard; empty when there is no member
	 */
	static String[] assign(Collection<String> members, int shards) {
		checkShards(shards);
		List<String> sorted = new ArrayList<>(new TreeSet<>(members));
		if (sorted.isEmpty()) {
			return new String[0];
		}
		String[] owners = new String[shards];
		int count = sorted.size();
		// which members get one shard more than the others: the first by their own hash,
		// so that it does not depend on the order of the members
		List<String> byHash = new ArrayList<>(sorted);
		byHash.sort(Comparator.comparingLong(ShardAssignment::hash).thenComparing(Comparator.naturalOrder()));
		int[] room = new int[count];
		for (int i = 0; i < count; i++) {
			room[sorted.indexOf(byHash.get(i))] = shards / count + ((i < shards % count) ? 1 : 0);
		}
		// every (shard, member) pair by its rendezvous score, highest first; each shard
		// goes to the first member with room that it meets
		long[][] pairs = new long[shards * count][];
		for (int shard = 0; shard < shards; shard++) {
			for (int member = 0; member < count; member++) {
				pairs[shard * count + member] = new long[] { score(sorted.get(member), shard), shard, member };
			}
		}
		Arrays.sort(pairs, (a, b) -> (a[0] != b[0]) ? Long.compareUnsigned(b[0], a[0])
				: (a[1] != b[1]) ? Long.compare(a[1], b[1]) : Long.compare(a[2], b[2]));
		int assigned = 0;
		for (long[] pair : pairs) {
			int shard = (int) pair[1];
			int member = (int) pair[2];
			if (owners[shard] == null && room[member] > 0) {
				owners[shard] = sorted.get(member);
				room[member]--;
				if (++assigned == shards) {
					break;
				}
			}
		}
		return owners;
	}

	/**
	 * The shards a member owns in an assignment.
	 * @param owners the assignment, by shard
	 * @param member the member
	 * @return its shards, ascending
	 */
	static List<Integer> shardsOf(String[] owners, String member) {
		List<Integer> shards = new ArrayList<>();
		for (int shard = 0; shard < owners.length; shard++) {
			if (member.equals(owners[shard])) {
				shards.add(shard);
			}
		}
		return shards;
	}

	private static long score(String member, int shard) {
		return mix(hash(member) ^ mix(shard + 0x9E3779B97F4A7C15L));
	}

	static long hash(String text) {
		long hash = 0xcbf29ce484222325L;
		for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
			hash ^= (b & 0xff);
			hash *= 0x100000001b3L;
		}
		return mix(hash);
	}

	private static long mix(long z) {
		z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
		z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
		return z ^ (z >>> 31);
	}

	private static void checkShards(int shards) {
		if (shards < 1) {
			throw new IllegalArgumentException("The number of shards must be at least 1, not " + shards);
		}
	}

}
