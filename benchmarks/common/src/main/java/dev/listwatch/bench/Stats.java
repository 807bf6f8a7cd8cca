package dev.listwatch.bench;

import java.util.Arrays;

/** Medians and percentiles. */
public final class Stats {

	private Stats() {
	}

	public static double median(double[] values) {
		return percentile(values, 50);
	}

	public static double percentile(double[] values, double p) {
		if (values.length == 0) {
			return Double.NaN;
		}
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
	}

	public static double percentile(long[] values, int count, double p) {
		double[] d = new double[count];
		for (int i = 0; i < count; i++) {
			d[i] = values[i];
		}
		return percentile(d, p);
	}

}
