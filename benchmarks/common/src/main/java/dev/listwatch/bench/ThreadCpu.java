package dev.listwatch.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time of each of this process's threads, the JVM's own (GC, JIT) included, read from
 * Linux's {@code /proc/self/task}; so that a benchmark can say which thread bounds a rate
 * and where CPU per event goes, instead of one process-wide figure. Empty where there is
 * no {@code /proc}.
 */
final class ThreadCpu {

	/**
	 * Roles, in report order; a thread's role comes from its (15-character) Linux name.
	 */
	static final List<String> ROLES = List.of("watch", "dispatch", "controller", "http", "gc", "jit", "other");

	/**
	 * USER_HZ: Linux reports thread times in these ticks (100 per second everywhere in
	 * practice).
	 */
	private static final double TICKS_PER_SECOND = 100;

	private final Map<Long, Long> ticks;

	private final Map<Long, String> names;

	private ThreadCpu(Map<Long, Long> ticks, Map<Long, String> names) {
		this.ticks = ticks;
		this.names = names;
	}

	/**
	 * @return every live thread's CPU ticks so far
	 */
	static ThreadCpu now() {
		Map<Long, Long> ticks = new HashMap<>();
		Map<Long, String> names = new HashMap<>();
		try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
			for (Path task : tasks) {
				try {
					String stat = Files.readString(task.resolve("stat"));
					// "tid (name) state ppid ...": the name may hold spaces and
					// parentheses
					int close = stat.lastIndexOf(')');
					String[] fields = stat.substring(close + 2).split(" ");
					// fields[0] is the state (field 3 of proc(5)); utime and stime are
					// fields 14 and 15
					long used = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
					long tid = Long.parseLong(task.getFileName().toString());
					ticks.put(tid, used);
					names.put(tid, stat.substring(stat.indexOf('(') + 1, close));
				}
				catch (IOException | RuntimeException ex) {
					// the thread ended meanwhile
				}
			}
		}
		catch (IOException ex) {
			// no /proc: nothing to report
		}
		return new ThreadCpu(ticks, names);
	}

	/**
	 * What each role used since {@code before}, and the busiest single thread, as RESULT
	 * key-values in CPU µs per event: {@code watchUs}, {@code dispatchUs}, ... and
	 * {@code busiest} (a name), {@code busiestUs}. Threads started since count from zero.
	 * @param before the earlier reading
	 * @param events the events handled between the two
	 * @return key, value, key, value...
	 */
	List<Object> since(ThreadCpu before, long events) {
		Map<String, Long> byRole = new LinkedHashMap<>();
		ROLES.forEach((role) -> byRole.put(role, 0L));
		String busiest = "none";
		long busiestTicks = -1;
		for (Map.Entry<Long, Long> e : this.ticks.entrySet()) {
			long used = e.getValue() - before.ticks.getOrDefault(e.getKey(), 0L);
			String name = this.names.get(e.getKey());
			byRole.merge(role(name), used, Long::sum);
			if (used > busiestTicks) {
				busiestTicks = used;
				busiest = name;
			}
		}
		List<Object> kv = new ArrayList<>();
		byRole.forEach((role, used) -> {
			kv.add(role + "Us");
			kv.add(micros(used, events));
		});
		kv.add("busiest");
		kv.add(busiest.replace(' ', '_'));
		kv.add("busiestUs");
		kv.add(micros(busiestTicks, events));
		return kv;
	}

	private static String micros(long ticks, long events) {
		return String.format("%.2f", ticks / TICKS_PER_SECOND * 1e6 / events);
	}

	static String role(String name) {
		if (name.startsWith("listwatch-dispa")) {
			return "dispatch";
		}
		if (name.startsWith("listwatch-contr")) {
			// a controller's workers (listwatch-controller-<name>-<n>)
			return "controller";
		}
		if (name.startsWith("listwatch-")) {
			// a watch's reading thread is named after its watch while it runs (and the
			// idle watchdog)
			return "watch";
		}
		if (name.startsWith("HttpClient")) {
			return "http";
		}
		if (name.startsWith("GC Thread") || name.startsWith("G1 ") || name.startsWith("VM Thread")) {
			return "gc";
		}
		if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
			return "jit";
		}
		return "other";
	}

}
