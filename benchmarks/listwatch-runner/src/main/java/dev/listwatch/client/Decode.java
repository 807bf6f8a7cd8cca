package dev.listwatch.client;

import java.io.ByteArrayInputStream;
import java.util.Map;

import dev.listwatch.KubernetesObject;
import dev.listwatch.WatchEvent;
import dev.listwatch.bench.BenchMain;
import dev.listwatch.bench.Bytes;
import dev.listwatch.bench.Pods;
import dev.listwatch.bench.Stats;
import dev.listwatch.bench.TypedRunner;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The limits, on one thread over the same event bytes the fake server sends (in memory,
 * no HTTP): {@code tokenize} is Jackson 3's {@code JsonParser.nextToken()} over the whole
 * stream; {@code decode} is listwatch's own framing and decoding ({@link JsonFrameReader}
 * driving {@link ObjectDecoder} in one pass, as a watch does) without HTTP, cache or
 * dispatch. In this package because both are package-private. {@code decode-typed} is
 * {@code decode} bound to {@link TypedRunner.Pod}, as {@code listwatch-typed} is.
 */
public final class Decode {

	public static void main(String[] args) throws Exception {
		Map<String, String> o = new java.util.HashMap<>();
		for (int i = 1; i < args.length; i++) {
			o.put(args[i].substring(0, args[i].indexOf('=')), args[i].substring(args[i].indexOf('=') + 1));
		}
		int pods = Integer.parseInt(o.get("pods"));
		long events = Long.parseLong(o.get("events"));
		int rounds = Integer.parseInt(o.get("rounds"));
		int warmup = Integer.parseInt(o.get("warmup"));
		// one buffer of up to 4000 events (about 28 MB), read again and again up to the
		// event count
		int inBuffer = (int) Math.min(events, 4000);
		Pods template = new Pods();
		Bytes b = new Bytes(inBuffer * 7500);
		for (int k = 0; k < inBuffer; k++) {
			template.writeEvent(b, "MODIFIED", k % pods, Pods.eventRv(pods, k));
		}
		byte[] stream = b.toByteArray();
		long passes = Math.max(1, events / inBuffer);
		long total = passes * inBuffer;
		JsonFactory factory = JsonFactory.builder().build();
		ObjectDecoder<KubernetesObject> decoder = new ObjectDecoder<>(KubernetesObject.class,
				JsonMapper.builder().build(), false);
		// decode-typed: the same, bound to the typed benchmark's record (listwatch-typed)
		ObjectDecoder<TypedRunner.Pod> typed = new ObjectDecoder<>(TypedRunner.Pod.class, JsonMapper.builder().build(),
				false);
		double[] rates = new double[rounds];
		for (int round = 0; round < warmup + rounds; round++) {
			long sink = 0;
			long t0 = System.nanoTime();
			for (long pass = 0; pass < passes; pass++) {
				if (args[0].equals("tokenize")) {
					try (JsonParser p = factory.createParser(ObjectReadContext.empty(), stream)) {
						JsonToken t;
						while ((t = p.nextToken()) != null) {
							sink += t.ordinal();
						}
					}
				}
				else if (args[0].equals("decode-typed")) {
					JsonFrameReader frames = new JsonFrameReader(new ByteArrayInputStream(stream), 16 << 20);
					WatchEvent<TypedRunner.Pod> e;
					while ((e = frames.next(typed::decodeEvent)) != null) {
						sink += e.object().spec().size();
					}
				}
				else {
					JsonFrameReader frames = new JsonFrameReader(new ByteArrayInputStream(stream), 16 << 20);
					WatchEvent<KubernetesObject> e;
					while ((e = frames.next(decoder::decodeEvent)) != null) {
						sink += e.object().jsonSize();
					}
				}
			}
			double seconds = (System.nanoTime() - t0) / 1e9;
			double rate = total / seconds;
			if (round >= warmup) {
				rates[round - warmup] = rate;
			}
			String client = switch (args[0]) {
				case "tokenize" -> "jackson-tokenize";
				case "decode-typed" -> "listwatch-decode-typed";
				default -> "listwatch-decode";
			};
			BenchMain.result("throughput", client, "round", round, "warmup", round < warmup, "eventsPerSec",
					String.format("%.0f", rate), "seconds", String.format("%.3f", seconds), "cpuMsPer1kEvents",
					String.format("%.3f", seconds * 1e6 / total), "handlerCalls",
					(args[0].equals("tokenize") ? 0 : total), "sink", sink % 10);
		}
		System.err.println("median " + Stats.median(rates));
		System.exit(0);
	}

}
