package dev.listwatch.client;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;

import dev.listwatch.ObjectMeta;
import org.jspecify.annotations.Nullable;

/**
 * Binds a typed watch's object to a record straight from its bytes, without Jackson, for
 * the records whose every component the mapper binds with {@link TypedBinding}'s lean
 * deserializers or with Jackson's plain ones for strings, numbers and booleans (see
 * {@link TypedBinding}, which decides that from the deserializers the mapper builds): the
 * untyped values as {@link CompactMap}s, {@link CompactList}s, shared strings and the
 * numbers Jackson's untyped values are, the metadata as the decoder read them, and the
 * record made by its canonical constructor. It reads the bytes with a
 * {@link StrictJsonReader}, so only JSON as strict as RFC 8259, and values it binds
 * exactly as the mapper would; at anything else (a coercion, such as a number for a
 * {@code String}, a {@code null} or a missing value for a primitive, a member twice, an
 * unknown member when the mapper fails on those, a limit of the mapper's parser, a
 * constructor that throws, bytes that are not UTF-8) it gives up and says so, and the
 * object is bound by Jackson as before, which decides what it is. So the objects it binds
 * are equal to what the mapper alone binds. Thread-safe.
 *
 * @param <T> the record type
 */
final class DirectBinding<T> {

	/** How a component binds. */
	enum Kind {

		/** {@link ObjectMeta} named {@code metadata}: the instance the decoder read. */
		METADATA,
		/** {@code Map<String, Object>}. */
		MAP,
		/** {@code List<Object>}. */
		LIST,
		/** {@code Object}. */
		UNTYPED,
		/** {@code String}, from a JSON string only. */
		STRING,
		/** {@code int} or {@code Integer}, from a JSON integer in range only. */
		INT,
		/** {@code long} or {@code Long}, from a JSON integer in range only. */
		LONG,
		/**
		 * {@code boolean} or {@code Boolean}, from {@code true} or {@code false} only.
		 */
		BOOLEAN,
		/**
		 * {@code double} or {@code Double}, from a JSON number with a fraction or
		 * exponent only.
		 */
		DOUBLE

	}

	/**
	 * What {@link #bind} leaves in {@code end[0]} when the bytes end inside the object.
	 */
	static final int INCOMPLETE = -1;

	/**
	 * What {@link #bind} leaves in {@code end[0]} when the object is Jackson's to bind.
	 */
	static final int GIVEN_UP = -2;

	private static final StrictJsonReader.GiveUp GIVE_UP = StrictJsonReader.GIVE_UP;

	private final Constructor<T> constructor;

	/** The components' names, as their JSON keys are compared. */
	private final String[] names;

	private final Kind[] kinds;

	private final boolean[] primitive;

	private final boolean failOnUnknown;

	private final StrictJsonReader.Limits limits;

	private final StringPool pool;

	private final boolean hasMetadata;

	/**
	 * A binding.
	 * @param constructor the record's canonical constructor (accessible)
	 * @param names the components' names in order
	 * @param kinds how each binds
	 * @param primitive whether each is of a primitive type
	 * @param failOnUnknown whether the mapper fails on unknown properties
	 * @param limits the mapper's parser's limits
	 * @param pool shares strings, integers and keys, as the lean deserializers do
	 */
	DirectBinding(Constructor<T> constructor, String[] names, Kind[] kinds, boolean[] primitive, boolean failOnUnknown,
			StrictJsonReader.Limits limits, StringPool pool) {
		this.constructor = constructor;
		this.names = names.clone();
		this.kinds = kinds.clone();
		this.primitive = primitive.clone();
		this.failOnUnknown = failOnUnknown;
		this.limits = limits;
		this.pool = pool;
		this.hasMetadata = Arrays.asList(kinds).contains(Kind.METADATA);
	}

	/**
	 * Whether the record holds its metadata as the {@link ObjectMeta} the decoder read.
	 */
	boolean hasMetadata() {
		return this.hasMetadata;
	}

	/**
	 * Binds the object that starts at {@code start}.
	 * @param b the bytes
	 * @param start where the object starts (its '{')
	 * @param limit where the bytes read end
	 * @param meta the object's metadata as the decoder read them
	 * @param metadataStart where the value of its top-level {@code metadata} starts, when
	 * the decoder read them from there (the bytes up to {@code metadataEnd} are then not
	 * read again), else -1 (the value is read, and must be an object)
	 * @param metadataEnd where that value ends
	 * @param end receives where the object ends, or {@link #INCOMPLETE} or
	 * {@link #GIVEN_UP}
	 * @return the record, or {@code null} with {@code end[0]} negative
	 */
	@Nullable T bind(byte[] b, int start, int limit, ObjectMeta meta, int metadataStart, int metadataEnd, int[] end) {
		StrictJsonReader in = new StrictJsonReader(b, start, limit, this.limits, this.pool);
		try {
			@Nullable Object[] args = new Object[this.names.length];
			long seen = 0;
			if (in.next() != '{') {
				throw GIVE_UP;
			}
			in.pos++;
			int c = in.next();
			if (c == '}') {
				in.pos++;
			}
			else {
				while (true) {
					if (c != '"') {
						throw GIVE_UP;
					}
					int component = in.component(this.names);
					in.colon();
					if (component < 0) {
						if (this.failOnUnknown) {
							throw GIVE_UP;
						}
						in.value(1, false);
					}
					else {
						if ((seen & (1L << component)) != 0) {
							throw GIVE_UP;
						}
						seen |= 1L << component;
						args[component] = component(in, component, meta, metadataStart, metadataEnd);
					}
					c = in.next();
					in.pos++;
					if (c == '}') {
						break;
					}
					if (c != ',') {
						throw GIVE_UP;
					}
					c = in.next();
				}
			}
			for (int i = 0; i < args.length; i++) {
				if ((seen & (1L << i)) == 0 && this.primitive[i]) {
					// the mapper's default for a missing primitive depends on its
					// features
					throw GIVE_UP;
				}
			}
			T value = this.constructor.newInstance(args);
			end[0] = in.pos;
			return value;
		}
		catch (StrictJsonReader.NotWhole ex) {
			end[0] = INCOMPLETE;
			return null;
		}
		catch (StrictJsonReader.GiveUp | InstantiationException | IllegalAccessException | IllegalArgumentException
				| InvocationTargetException ex) {
			// a constructor that throws: Jackson says how
			end[0] = GIVEN_UP;
			return null;
		}
	}

	private @Nullable Object component(StrictJsonReader in, int i, ObjectMeta meta, int metadataStart,
			int metadataEnd) {
		int c = in.next();
		if (c == 'n' && this.kinds[i] != Kind.METADATA) {
			if (this.primitive[i]) {
				throw GIVE_UP;
			}
			in.literal("null");
			return null;
		}
		switch (this.kinds[i]) {
			case METADATA -> {
				if (metadataStart >= 0) {
					if (in.pos != metadataStart) {
						throw GIVE_UP;
					}
					in.pos = metadataEnd;
					return meta;
				}
				if (c == 'n') {
					in.literal("null");
					return null;
				}
				if (c != '{') {
					throw GIVE_UP;
				}
				in.value(1, false);
				return meta;
			}
			case MAP -> {
				if (c != '{') {
					throw GIVE_UP;
				}
				return in.value(1, true);
			}
			case LIST -> {
				if (c != '[') {
					throw GIVE_UP;
				}
				return in.value(1, true);
			}
			case UNTYPED -> {
				return in.value(1, true);
			}
			case STRING -> {
				if (c != '"') {
					throw GIVE_UP;
				}
				return in.string(this.limits.maxStringLength());
			}
			case BOOLEAN -> {
				if (c == 't') {
					in.literal("true");
					return Boolean.TRUE;
				}
				if (c == 'f') {
					in.literal("false");
					return Boolean.FALSE;
				}
				throw GIVE_UP;
			}
			default -> {
				if (c != '-' && (c < '0' || c > '9')) {
					throw GIVE_UP;
				}
				Object number = in.number(true);
				Kind kind = this.kinds[i];
				if (kind == Kind.INT && number instanceof Integer
						|| kind == Kind.LONG && (number instanceof Integer || number instanceof Long)
						|| kind == Kind.DOUBLE && number instanceof Double) {
					return (kind == Kind.LONG) ? (Object) ((Number) number).longValue() : number;
				}
				throw GIVE_UP;
			}
		}
	}

}
