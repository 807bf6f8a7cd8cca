package dev.listwatch.client;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.listwatch.ObjectMeta;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.JsonTokenId;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JacksonStdImpl;
import tools.jackson.databind.deser.ValueDeserializerModifier;
import tools.jackson.databind.deser.bean.BeanDeserializerBase;
import tools.jackson.databind.deser.jdk.CollectionDeserializer;
import tools.jackson.databind.deser.jdk.MapDeserializer;
import tools.jackson.databind.deser.jdk.UntypedObjectDeserializer;
import tools.jackson.databind.deser.std.DelegatingDeserializer;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.type.CollectionType;
import tools.jackson.databind.type.MapType;

import com.fasterxml.jackson.annotation.Nulls;

/**
 * Binds a typed watch's objects to their Java type with Jackson, from the bytes the
 * decoder kept of each object, more leanly than the application's mapper would on its
 * own: with a copy of that mapper (the application's own is never changed) that adds,
 * where Jackson would use its standard deserializers and nothing of the application's
 * says otherwise,
 * <ul>
 * <li>untyped values ({@code Object}, {@code Map<String, Object>}, {@code List<Object>})
 * as read-only {@link CompactMap}s and {@link CompactList}s (one array each) instead of
 * {@code LinkedHashMap}s and {@code ArrayList}s, their string values shared through a
 * small bounded pool of the watch (most repeat from object to object: images, node names,
 * condition types, {@code "True"}), so are integers and the keys of maps of the same
 * shape (the containers of all Pods), numbers and booleans as Jackson binds them;</li>
 * <li>the object's own {@code metadata}, when the type holds it as {@link ObjectMeta}, as
 * the instance the decoder already read (the cache holds it anyway), instead of a second
 * one; so that the decoder need not even hand over its JSON (see
 * {@link #bind(InputStream, ObjectMeta, long[])}).</li>
 * </ul>
 * The objects bound are equal to what the mapper alone binds. A type or property that has
 * a deserializer of its own, Jackson annotations on an untyped {@code Map} or
 * {@code List} property, or features that change untyped values
 * ({@code USE_JAVA_ARRAY_FOR_JSON_ARRAY}, the number coercions) bind as the mapper alone
 * binds them; so does {@code metadata} when the mapper fails on unknown properties or on
 * missing or null creator properties. Thread-safe.
 *
 * @param <T> the Java type
 */
final class TypedBinding<T> {

	/**
	 * The object's metadata as the decoder read them, while this thread binds it (a
	 * thread-local rather than an attribute of the binding: no reader and configuration
	 * made per object).
	 */
	private static final ThreadLocal<@Nullable Scanned> SCANNED = new ThreadLocal<>();

	/** Slots of the string pool (a power of two). */
	static final int POOL_SLOTS = 4096;

	/**
	 * Strings longer than this are never pooled (rarely shared, and they would keep
	 * memory alive).
	 */
	static final int POOL_MAX_LENGTH = 128;

	private final ObjectReader reader;

	/**
	 * The reader of {@link #bind(InputStream, ObjectMeta, long[])}: stops at the end of
	 * the object.
	 */
	private final ObjectReader streamReader;

	TypedBinding(ObjectMapper mapper, Class<T> type) {
		SimpleModule module = new SimpleModule("dev.listwatch.client.TypedBinding");
		module.setDeserializerModifier(new Modifier(new StringPool(POOL_SLOTS, POOL_MAX_LENGTH)));
		ObjectMapper lean = mapper.rebuild().addModule(module).build();
		this.reader = lean.readerFor(type);
		this.streamReader = this.reader.without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
	}

	/**
	 * Binds one object.
	 * @param json the object's bytes
	 * @param meta its metadata as the decoder read them
	 * @return the object
	 * @throws JacksonException when it does not bind
	 */
	T bind(byte[] json, ObjectMeta meta) {
		Scanned previous = SCANNED.get();
		SCANNED.set(new Scanned(meta));
		try {
			return this.reader.readValue(json);
		}
		finally {
			SCANNED.set(previous);
		}
	}

	/**
	 * Binds the object that starts the stream and reads no further than its end, provided
	 * its top-level {@code metadata} is bound as the metadata the decoder read (so that
	 * what the stream holds as that value is never read: the decoder gives {@code {}}
	 * there).
	 * @param in the object's bytes and whatever follows them
	 * @param meta its metadata as the decoder read them
	 * @param consumed receives how many bytes of the stream the object took
	 * @return the object, or {@code null} when its {@code metadata} was not bound from
	 * {@code meta} (the stream's value would have counted: the object must be bound from
	 * its own bytes)
	 * @throws JacksonException when it does not bind, or the stream is not one JSON
	 * object
	 */
	@Nullable T bind(InputStream in, ObjectMeta meta, long[] consumed) {
		Scanned scanned = new Scanned(meta);
		Scanned previous = SCANNED.get();
		SCANNED.set(scanned);
		try (JsonParser p = this.streamReader.createParser(in)) {
			T value = this.streamReader.readValue(p);
			if (!scanned.used || p.getLastClearedToken() != JsonToken.END_OBJECT) {
				return null;
			}
			consumed[0] = p.currentLocation().getByteOffset();
			return value;
		}
		finally {
			SCANNED.set(previous);
		}
	}

	/**
	 * The metadata the decoder read, and whether the object's own {@code metadata} was
	 * bound to them.
	 */
	private static final class Scanned {

		final ObjectMeta meta;

		boolean used;

		Scanned(ObjectMeta meta) {
			this.meta = meta;
		}

	}

	/**
	 * Shares equal strings, integers, and the keys of maps of the same shape:
	 * direct-mapped tables of the last one seen per hash slot, strings looked up from the
	 * parser's characters so that a string seen before is not even created again. Racy by
	 * design and safe: a slot holds one immutable object (a string with its characters,
	 * keys, an integer) or another one.
	 */
	static final class StringPool {

		/** Slots for map keys (a power of two). */
		private static final int KEYS_SLOTS = 1024;

		/** Slots for integers beyond the JDK's own cache (a power of two). */
		private static final int INTEGER_SLOTS = 256;

		/** Maps with more keys than this have keys of their own. */
		private static final int KEYS_MAX = 64;

		/** A string and its characters (compared as one range), published together. */
		private record Pooled(String string, char[] chars) {
		}

		private final Pooled[] slots;

		private final CompactMap.Keys[] keys = new CompactMap.Keys[KEYS_SLOTS];

		private final Integer[] integers = new Integer[INTEGER_SLOTS];

		private final int maxLength;

		StringPool(int slots, int maxLength) {
			this.slots = new Pooled[slots];
			this.maxLength = maxLength;
		}

		String get(char[] chars, int offset, int length) {
			if (length > this.maxLength) {
				return new String(chars, offset, length);
			}
			// at most 16 characters hashed: the first and last 8 (names and ids differ at
			// the end)
			int hash = length;
			int end = offset + length;
			if (length <= 16) {
				for (int i = offset; i < end; i++) {
					hash = 31 * hash + chars[i];
				}
			}
			else {
				for (int i = offset; i < offset + 8; i++) {
					hash = 31 * hash + chars[i];
				}
				for (int i = end - 8; i < end; i++) {
					hash = 31 * hash + chars[i];
				}
			}
			int slot = (hash ^ (hash >>> 16)) & (this.slots.length - 1);
			Pooled seen = this.slots[slot];
			if (seen != null && java.util.Arrays.equals(seen.chars, 0, seen.chars.length, chars, offset, end)) {
				return seen.string;
			}
			String string = new String(chars, offset, length);
			this.slots[slot] = new Pooled(string, java.util.Arrays.copyOfRange(chars, offset, end));
			return string;
		}

		String get(JsonParser p) {
			return get(p.getStringCharacters(), p.getStringOffset(), p.getStringLength());
		}

		/**
		 * An {@code Integer} equal to the value, shared with others seen before (ports,
		 * sizes...).
		 */
		Integer integer(int value) {
			if (value >= -128 && value <= 127) {
				return value;
			}
			int slot = (value ^ (value >>> 16)) & (this.integers.length - 1);
			Integer shared = this.integers[slot];
			if (shared != null && shared == value) {
				return shared;
			}
			Integer integer = value;
			this.integers[slot] = integer;
			return integer;
		}

		/**
		 * The keys of a map of this shape seen before, if they are still in the pool.
		 * @param names the names in order (not kept)
		 * @param size how many
		 * @return the keys, or {@code null}
		 */
		CompactMap.@Nullable Keys sharedKeys(String[] names, int size) {
			if (size > KEYS_MAX) {
				return null;
			}
			CompactMap.Keys shared = this.keys[slot(names, size)];
			return (shared != null && shared.sameAs(names, size)) ? shared : null;
		}

		private static int slot(String[] names, int size) {
			int hash = 1;
			for (int i = 0; i < size; i++) {
				hash = 31 * hash + names[i].hashCode();
			}
			return (hash ^ (hash >>> 16)) & (KEYS_SLOTS - 1);
		}

		/**
		 * The keys of these names, shared with the maps of the same shape.
		 * @param names the distinct names in order (may be kept)
		 * @return the keys
		 */
		CompactMap.Keys keys(String[] names) {
			if (names.length > KEYS_MAX) {
				return new CompactMap.Keys(names);
			}
			int slot = slot(names, names.length);
			CompactMap.Keys shared = this.keys[slot];
			if (shared != null && shared.sameAs(names, names.length)) {
				return shared;
			}
			CompactMap.Keys keys = new CompactMap.Keys(names);
			this.keys[slot] = keys;
			return keys;
		}

	}

	/**
	 * Puts the lean deserializers in front of Jackson's standard ones, and nowhere else.
	 */
	private static final class Modifier extends ValueDeserializerModifier {

		private static final long serialVersionUID = 1L;

		private final transient StringPool pool;

		Modifier(StringPool pool) {
			this.pool = pool;
		}

		@Override
		public ValueDeserializer<?> modifyDeserializer(DeserializationConfig config, BeanDescription.Supplier beanDesc,
				ValueDeserializer<?> deserializer) {
			if (deserializer instanceof UntypedObjectDeserializer) {
				return new Untyped(deserializer, this.pool);
			}
			// ObjectMeta as listwatch declares it (no mix-in of the application's changes
			// how it binds)
			if (beanDesc.getBeanClass() == ObjectMeta.class && deserializer instanceof BeanDeserializerBase
					&& config.findMixInClassFor(ObjectMeta.class) == null) {
				return new ScannedMeta(deserializer);
			}
			return deserializer;
		}

		@Override
		public ValueDeserializer<?> modifyMapDeserializer(DeserializationConfig config, MapType type,
				BeanDescription.Supplier beanDesc, ValueDeserializer<?> deserializer) {
			// the type is the one Jackson makes (LinkedHashMap for Map): the declared one
			// is checked in createContextual
			if ((type.getRawClass() == Map.class || type.getRawClass() == LinkedHashMap.class)
					&& type.getKeyType().getRawClass() == String.class
					&& type.getContentType().getRawClass() == Object.class
					&& deserializer.getClass() == MapDeserializer.class) {
				return new Container(deserializer, this.pool, false);
			}
			return deserializer;
		}

		@Override
		public ValueDeserializer<?> modifyCollectionDeserializer(DeserializationConfig config, CollectionType type,
				BeanDescription.Supplier beanDesc, ValueDeserializer<?> deserializer) {
			if ((type.getRawClass() == List.class || type.getRawClass() == ArrayList.class)
					&& type.getContentType().getRawClass() == Object.class
					&& deserializer.getClass() == CollectionDeserializer.class) {
				return new Container(deserializer, this.pool, true);
			}
			return deserializer;
		}

	}

	/**
	 * {@code Object}: JSON objects, arrays and strings leanly, anything else (numbers) by
	 * Jackson's own; all by Jackson's own unless it is its vanilla one (no custom
	 * deserializers for the untyped containers, strings or numbers).
	 */
	static final class Untyped extends DelegatingDeserializer {

		private static final long serialVersionUID = 1L;

		private final transient StringPool pool;

		private final transient java.util.function.Function<String[], CompactMap.Keys> keys;

		Untyped(ValueDeserializer<?> delegate, StringPool pool) {
			super(delegate);
			this.pool = pool;
			this.keys = pool::keys;
		}

		@Override
		protected ValueDeserializer<?> newDelegatingInstance(ValueDeserializer<?> delegate) {
			return new Untyped(delegate, this.pool);
		}

		/**
		 * Whether Jackson's own is the vanilla one (package-private in Jackson: by name).
		 */
		boolean vanilla() {
			return this._delegatee.getClass()
				.getName()
				.equals("tools.jackson.databind.deser.jdk.UntypedObjectDeserializerNR");
		}

		/**
		 * Whether this one may stand for Jackson's own: the vanilla one, no features that
		 * change its values.
		 */
		boolean lean(DeserializationContext ctxt) {
			return vanilla() && !ctxt.hasSomeOfFeatures(F_MASK_INT_COERCIONS)
					&& !ctxt.isEnabled(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
					&& !ctxt.isEnabled(DeserializationFeature.USE_JAVA_ARRAY_FOR_JSON_ARRAY);
		}

		@Override
		public @Nullable Object deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
			return lean(ctxt) ? value(p, ctxt) : this._delegatee.deserialize(p, ctxt);
		}

		/**
		 * The value at the current token (which must not be a property name or an
		 * object's end).
		 */
		@Nullable Object value(JsonParser p, DeserializationContext ctxt) throws JacksonException {
			switch (p.currentTokenId()) {
				case JsonTokenId.ID_START_OBJECT:
					return map(p, ctxt, p.nextName());
				case JsonTokenId.ID_PROPERTY_NAME:
					return map(p, ctxt, p.currentName());
				case JsonTokenId.ID_END_OBJECT:
					return CompactMap.EMPTY;
				case JsonTokenId.ID_START_ARRAY:
					return list(p, ctxt);
				case JsonTokenId.ID_STRING:
					return this.pool.get(p);
				case JsonTokenId.ID_NUMBER_INT:
					// as Jackson's vanilla one without coercions: an Integer when the
					// value fits one
					return (p.getNumberType() == JsonParser.NumberType.INT) ? this.pool.integer(p.getIntValue())
							: this._delegatee.deserialize(p, ctxt);
				case JsonTokenId.ID_TRUE:
					return Boolean.TRUE;
				case JsonTokenId.ID_FALSE:
					return Boolean.FALSE;
				case JsonTokenId.ID_NULL:
					return null;
				default:
					return this._delegatee.deserialize(p, ctxt);
			}
		}

		/**
		 * An object's members from {@code name} (the first, or {@code null} when none) to
		 * its end.
		 */
		CompactMap map(JsonParser p, DeserializationContext ctxt, @Nullable String name) throws JacksonException {
			if (name == null) {
				return CompactMap.EMPTY;
			}
			String[] names = new String[8];
			Object[] values = new Object[8];
			int size = 0;
			for (String key = name; key != null; key = p.nextName()) {
				p.nextToken();
				if (size == names.length) {
					names = java.util.Arrays.copyOf(names, size * 2);
					values = java.util.Arrays.copyOf(values, size * 2);
				}
				names[size] = key;
				values[size] = value(p, ctxt);
				size++;
			}
			// most maps have the shape of one seen before (whose names are distinct)
			CompactMap.Keys shared = this.pool.sharedKeys(names, size);
			if (shared != null) {
				return new CompactMap(shared, java.util.Arrays.copyOf(values, size));
			}
			Object[] entries = new Object[2 * size];
			for (int i = 0; i < size; i++) {
				entries[2 * i] = names[i];
				entries[2 * i + 1] = values[i];
			}
			return CompactMap.build(entries, size, this.keys);
		}

		/** An array's elements, from its start to its end. */
		CompactList list(JsonParser p, DeserializationContext ctxt) throws JacksonException {
			Object[] elements = new Object[8];
			int size = 0;
			while (p.nextToken() != tools.jackson.core.JsonToken.END_ARRAY) {
				if (size == elements.length) {
					elements = java.util.Arrays.copyOf(elements, size * 2);
				}
				elements[size++] = value(p, ctxt);
			}
			return CompactList.of(elements, size);
		}

	}

	/**
	 * A property declared {@code Map<String, Object>} or {@code List<Object>} (the
	 * interfaces): JSON objects or arrays as the untyped values do, when Jackson's own
	 * deserializer would bind them as plain untyped values (no annotations on the
	 * property, no defaults for nulls, vanilla values); anything else (null, coercions
	 * from other tokens) by Jackson's own.
	 */
	// Jackson's untyped deserializer looks up the one for Map and List: it stays vanilla
	// with
	// this one
	@JacksonStdImpl
	static final class Container extends DelegatingDeserializer {

		private static final long serialVersionUID = 1L;

		private final transient StringPool pool;

		private final boolean list;

		/**
		 * Jackson's own untyped deserializer when this one may stand in, else
		 * {@code null}.
		 */
		private final transient @Nullable Untyped values;

		Container(ValueDeserializer<?> delegate, StringPool pool, boolean list) {
			this(delegate, pool, list, null);
		}

		private Container(ValueDeserializer<?> delegate, StringPool pool, boolean list, @Nullable Untyped values) {
			super(delegate);
			this.pool = pool;
			this.list = list;
			this.values = values;
		}

		@Override
		protected ValueDeserializer<?> newDelegatingInstance(ValueDeserializer<?> delegate) {
			return new Container(delegate, this.pool, this.list, null);
		}

		@Override
		public ValueDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property) {
			ValueDeserializer<?> delegate = this._delegatee.createContextual(ctxt, property);
			ValueDeserializer<?> content = (delegate instanceof MapDeserializer map) ? map.getContentDeserializer()
					: (delegate instanceof CollectionDeserializer collection) ? collection.getContentDeserializer()
							: null;
			boolean plain = (delegate.getClass() == MapDeserializer.class
					|| delegate.getClass() == CollectionDeserializer.class) && content instanceof Untyped untyped
					&& untyped.vanilla() && property != null
					&& property.getType().getRawClass() == (this.list ? List.class : Map.class) && unannotated(property)
					&& ctxt.getConfig().getDefaultNullHandling().getContentNulls() == Nulls.DEFAULT
					&& ctxt.getConfig().getDefaultNullHandling().getValueNulls() == Nulls.DEFAULT
					&& ctxt.getConfig().findConfigOverride(this.list ? List.class : Map.class) == null
					&& (this.list || standardStringKeys(ctxt, property));
			return new Container(delegate, this.pool, this.list, plain ? (Untyped) content : null);
		}

		private static boolean unannotated(@Nullable BeanProperty property) {
			return property == null || property.getMember() == null
					|| property.getMember().annotations().findAny().isEmpty();
		}

		private static boolean standardStringKeys(DeserializationContext ctxt, @Nullable BeanProperty property) {
			Object keys = ctxt.findKeyDeserializer(ctxt.constructType(String.class), property);
			return keys != null
					&& keys.getClass().getName().equals("tools.jackson.databind.deser.jdk.JDKKeyDeserializer$StringKD");
		}

		@Override
		public Object deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
			Untyped values = this.values;
			if (values != null && values.lean(ctxt)) {
				int token = p.currentTokenId();
				if (!this.list && token == JsonTokenId.ID_START_OBJECT) {
					return values.map(p, ctxt, p.nextName());
				}
				if (!this.list && token == JsonTokenId.ID_PROPERTY_NAME) {
					return values.map(p, ctxt, p.currentName());
				}
				if (this.list && token == JsonTokenId.ID_START_ARRAY) {
					return values.list(p, ctxt);
				}
			}
			return this._delegatee.deserialize(p, ctxt);
		}

	}

	/**
	 * {@link ObjectMeta} of the object itself (its {@code metadata}, at the top): the
	 * instance the decoder read, its JSON skipped; any other, or when the mapper would
	 * fail where the decoder does not, by Jackson's own.
	 */
	static final class ScannedMeta extends DelegatingDeserializer {

		private static final long serialVersionUID = 1L;

		ScannedMeta(ValueDeserializer<?> delegate) {
			super(delegate);
		}

		@Override
		protected ValueDeserializer<?> newDelegatingInstance(ValueDeserializer<?> delegate) {
			return new ScannedMeta(delegate);
		}

		@Override
		public Object deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
			Scanned meta = SCANNED.get();
			if (meta != null && p.currentTokenId() == JsonTokenId.ID_START_OBJECT && topLevelMetadata(p)
					&& !ctxt.isEnabled(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
					&& !ctxt.isEnabled(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES)
					&& !ctxt.isEnabled(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)) {
				p.skipChildren();
				meta.used = true;
				return meta.meta;
			}
			return this._delegatee.deserialize(p, ctxt);
		}

		/**
		 * Whether the parser is at the start of the value of the root object's
		 * {@code metadata}.
		 */
		private static boolean topLevelMetadata(JsonParser p) {
			TokenStreamContext object = p.streamReadContext().getParent();
			return object != null && object.inObject() && "metadata".equals(object.currentName())
					&& object.getParent() != null && object.getParent().inRoot();
		}

	}

}
