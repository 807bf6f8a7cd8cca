package dev.listwatch;

import org.jspecify.annotations.Nullable;

/**
 * Makes {@link KubernetesObject}s that hold their JSON compressed (DEFLATE with a preset
 * dictionary, from the JDK's {@code java.util.zip}), for a large cache held in little
 * heap. One compressor serves one watch: its dictionary is learned from that watch's
 * first objects, which are held as they are while it learns (16 objects or 32 KB of JSON,
 * whichever comes first, usually part of the first list page; the object that completes
 * them is the first one compressed). The dictionary keeps one sample of each shape found
 * among them (the latest one, then each earlier one it does not already compress to a
 * quarter of its size), at most 32 KB. It is then fixed for the life of the compressor,
 * relists included: objects whose shape drifts away from the first ones are compressed
 * less well, never wrongly, and an object that would not get smaller is held as it is.
 * <p>
 * Objects so made keep their API and semantics: their metadata is decoded as before
 * (keys, labels and indexes never inflate anything), {@link KubernetesObject#json()} and
 * the methods that parse inflate the JSON on each call, and equality is still by JSON.
 * Compressing costs the writing thread some CPU per object, each read of the body some
 * more.
 * <p>
 * Thread-safe.
 */
public final class ObjectCompressor {

	/** The most objects the dictionary is learned from. */
	static final int SAMPLES = 16;

	private final Object lock = new Object();

	/** The JSON sampled so far, in order; {@code null} once learned. */
	private byte @Nullable [][] samples = new byte[SAMPLES][];

	private int sampled;

	private int sampledBytes;

	private volatile @Nullable JsonDictionary dictionary;

	private ObjectCompressor() {
	}

	/**
	 * A compressor that learns its dictionary from the first objects it is given.
	 * @return a new compressor, for one watch
	 */
	public static ObjectCompressor learning() {
		return new ObjectCompressor();
	}

	/**
	 * Makes an object from its parts, as {@link KubernetesObject#of} does, that holds its
	 * JSON compressed once the dictionary is learned. The array is taken as it is and
	 * must not be changed.
	 * @param metadata the metadata read from {@code json}
	 * @param apiVersion the {@code apiVersion} read from {@code json}, or {@code null}
	 * @param kind the {@code kind} read from {@code json}, or {@code null}
	 * @param json the object's UTF-8 JSON
	 * @return the object
	 */
	public KubernetesObject object(ObjectMeta metadata, @Nullable String apiVersion, @Nullable String kind,
			byte[] json) {
		JsonDictionary dictionary = this.dictionary;
		if (dictionary == null) {
			dictionary = sample(json);
			if (dictionary == null) {
				return KubernetesObject.of(metadata, apiVersion, kind, json);
			}
		}
		byte[] packed = dictionary.deflate(json);
		return (packed != null) ? KubernetesObject.compressed(metadata, apiVersion, kind, packed, dictionary)
				: KubernetesObject.of(metadata, apiVersion, kind, json);
	}

	/**
	 * The size of the learned dictionary.
	 * @return its bytes, 0 while it is being learned
	 */
	int dictionarySize() {
		JsonDictionary dictionary = this.dictionary;
		return (dictionary != null) ? dictionary.size() : 0;
	}

	/**
	 * Takes one more sample; learns the dictionary when there are enough.
	 * @return the dictionary, or {@code null} while it is being learned (this object
	 * included)
	 */
	private @Nullable JsonDictionary sample(byte[] json) {
		synchronized (this.lock) {
			byte[][] samples = this.samples;
			if (samples == null) {
				return this.dictionary;
			}
			samples[this.sampled++] = json;
			this.sampledBytes += json.length;
			if (this.sampled < SAMPLES && this.sampledBytes < JsonDictionary.MAX_SIZE) {
				return null;
			}
			byte[] bytes = learn(samples, this.sampled);
			this.samples = null;
			if (bytes.length == 0) {
				// nothing to learn from (empty JSON): hold every object as it is
				return null;
			}
			JsonDictionary learned = new JsonDictionary(bytes);
			this.dictionary = learned;
			return learned;
		}
	}

	/**
	 * A dictionary from samples: the latest sample, then each earlier one that the
	 * dictionary so far does not already compress to a quarter of its size, up to
	 * {@link JsonDictionary#MAX_SIZE} bytes (the latest samples nearest the end, where
	 * DEFLATE finds them closest). Objects of one shape thus give a dictionary of about
	 * one object, which costs less CPU for each object compressed (DEFLATE hashes the
	 * whole dictionary every time), and objects of several shapes one of each.
	 * @param samples the samples, in order
	 * @param count how many
	 * @return the dictionary's bytes, empty when the samples are
	 */
	static byte[] learn(byte[][] samples, int count) {
		byte[] bytes = new byte[0];
		for (int i = count - 1; i >= 0 && bytes.length < JsonDictionary.MAX_SIZE; i--) {
			byte[] sample = samples[i];
			if (sample.length == 0) {
				continue;
			}
			if (bytes.length > 0) {
				byte[] packed = new JsonDictionary(bytes).deflate(sample);
				if (packed != null && packed.length <= sample.length / 4) {
					continue; // the dictionary already holds most of it
				}
			}
			int n = Math.min(sample.length, JsonDictionary.MAX_SIZE - bytes.length);
			byte[] grown = new byte[bytes.length + n];
			System.arraycopy(sample, sample.length - n, grown, 0, n);
			System.arraycopy(bytes, 0, grown, n, bytes.length);
			bytes = grown;
		}
		return bytes;
	}

	@Override
	public String toString() {
		return "ObjectCompressor[dictionary " + dictionarySize() + " bytes]";
	}

}
