package dev.listwatch.client;

import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.listwatch.ObjectMeta;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
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
import tools.jackson.databind.deser.CreatorProperty;
import tools.jackson.databind.deser.SettableBeanProperty;
import tools.jackson.databind.deser.ValueInstantiator;
import tools.jackson.databind.annotation.JacksonStdImpl;
import tools.jackson.databind.deser.ValueDeserializerModifier;
import tools.jackson.databind.deser.bean.BeanDeserializer;
import tools.jackson.databind.deser.bean.BeanDeserializerBase;
import tools.jackson.databind.deser.jdk.CollectionDeserializer;
import tools.jackson.databind.deser.jdk.MapDeserializer;
import tools.jackson.databind.deser.jdk.UntypedObjectDeserializer;
import tools.jackson.databind.deser.std.DelegatingDeserializer;
import tools.jackson.databind.deser.std.StdValueInstantiator;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.type.CollectionType;
import tools.jackson.databind.type.MapType;

import com.fasterxml.jackson.annotation.JacksonAnnotation;
import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
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
 * missing or null creator properties.
 * <p>
 * A record that this mapper binds plainly, every component with the deserializers above
 * or Jackson's own for strings, numbers and booleans, is bound without Jackson's parser
 * at all, to the same values (see {@link #direct} and {@link DirectBinding}); an object
 * that binding is not sure of is bound here as above. Thread-safe.
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

	/**
	 * Binds the objects without Jackson when the type allows it (see
	 * {@link DirectBinding}); else {@code null}.
	 */
	private final @Nullable DirectBinding<T> direct;

	TypedBinding(ObjectMapper mapper, Class<T> type) {
		SimpleModule module = new SimpleModule("dev.listwatch.client.TypedBinding");
		StringPool pool = new StringPool(POOL_SLOTS, POOL_MAX_LENGTH);
		module.setDeserializerModifier(new Modifier(pool));
		ObjectMapper lean = mapper.rebuild().addModule(module).build();
		this.reader = lean.readerFor(type);
		this.streamReader = this.reader.without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
		this.direct = direct(lean, type, pool);
	}

	/**
	 * A binding without Jackson for a record the mapper binds with its canonical
	 * constructor, each component by its name, with the lean deserializers here or
	 * Jackson's plain ones for strings, numbers and booleans, and nothing else of the
	 * application's or of Jackson's that could change what it binds: no Jackson
	 * annotations on the record, no mix-ins, config overrides, problem handlers or active
	 * view, no naming strategy (the properties are the components' names), no
	 * case-insensitive properties, no strict duplicate detection, no failing on null or
	 * missing creator properties. Decided from the deserializer the mapper builds for the
	 * type.
	 * @param lean the mapper (with the lean deserializers)
	 * @param type the type
	 * @param pool the pool of the lean deserializers
	 * @return the binding, or {@code null} when Jackson binds every object
	 */
	static <T> @Nullable DirectBinding<T> direct(ObjectMapper lean, Class<T> type, StringPool pool) {
		if (!type.isRecord() || type.getRecordComponents().length > 64 || jacksonAnnotated(type)) {
			return null;
		}
		try {
			DeserializationContext ctxt = lean._deserializationContext();
			DeserializationConfig config = ctxt.getConfig();
			StreamReadConstraints constraints = lean.tokenStreamFactory().streamReadConstraints();
			if (config.getProblemHandlers() != null || config.findConfigOverride(type) != null
					|| config.findMixInClassFor(type) != null
					|| ctxt.isEnabled(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES)
					|| ctxt.isEnabled(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
					|| config.isEnabled(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
					|| lean.tokenStreamFactory().isEnabled(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
					|| constraints.getMaxDocumentLength() > 0 || constraints.getMaxTokenCount() > 0) {
				return null;
			}
			ValueDeserializer<Object> root = ctxt.findRootValueDeserializer(lean.constructType(type));
			if (root.getClass() != BeanDeserializer.class) {
				return null;
			}
			BeanDeserializer bean = (BeanDeserializer) root;
			ValueInstantiator instantiator = bean.getValueInstantiator();
			if (config.getActiveView() != null || bean.hasAnySetter() || bean.isCaseInsensitive()
					|| bean.getObjectIdReader(ctxt) != null || instantiator.getClass() != StdValueInstantiator.class
					|| !instantiator.canCreateFromObjectWith() || instantiator.getWithArgsCreator() == null) {
				return null;
			}
			RecordComponent[] components = type.getRecordComponents();
			Class<?>[] types = new Class<?>[components.length];
			String[] names = new String[components.length];
			for (int i = 0; i < components.length; i++) {
				types[i] = components[i].getType();
				names[i] = components[i].getName();
			}
			Constructor<T> canonical = type.getDeclaredConstructor(types);
			if (!canonical.equals(instantiator.getWithArgsCreator().getAnnotated())) {
				return null;
			}
			DirectBinding.Kind[] kinds = new DirectBinding.Kind[components.length];
			boolean[] primitive = new boolean[components.length];
			int properties = 0;
			for (Iterator<SettableBeanProperty> it = bean.properties(); it.hasNext(); properties++) {
				SettableBeanProperty property = it.next();
				int index = property.getCreatorIndex();
				if (!(property instanceof CreatorProperty) || index < 0 || index >= components.length
						|| kinds[index] != null || !property.getName().equals(names[index])
						|| property.getValueTypeDeserializer() != null || property.getInjectableValueId() != null
						|| property.getManagedReferenceName() != null || property.getObjectIdInfo() != null
						|| property.getNullValueProvider() != property.getValueDeserializer()) {
					return null;
				}
				kinds[index] = kind(property.getValueDeserializer(), types[index], names[index], ctxt);
				primitive[index] = types[index].isPrimitive();
				if (kinds[index] == null) {
					return null;
				}
			}
			if (properties != components.length || !canonical.trySetAccessible()) {
				return null;
			}
			return new DirectBinding<>(canonical, names, kinds, primitive,
					ctxt.isEnabled(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES),
					new StrictJsonReader.Limits(constraints.getMaxNestingDepth(), constraints.getMaxNumberLength(),
							constraints.getMaxStringLength(), constraints.getMaxNameLength()),
					pool);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			// whatever the mapper makes of the type, it binds it itself
			return null;
		}
	}

	/**
	 * How a component binds without Jackson, or {@code null} when it cannot.
	 */
	private static DirectBinding.@Nullable Kind kind(ValueDeserializer<?> deserializer, Class<?> type, String name,
			DeserializationContext ctxt) {
		String standard = deserializer.getClass().getName();
		if (type == ObjectMeta.class) {
			return (deserializer instanceof ScannedMeta && "metadata".equals(name) && ScannedMeta.allowed(ctxt))
					? DirectBinding.Kind.METADATA : null;
		}
		if (type == Map.class || type == List.class) {
			return (deserializer instanceof Container container && container.plain(ctxt))
					? ((type == Map.class) ? DirectBinding.Kind.MAP : DirectBinding.Kind.LIST) : null;
		}
		if (type == Object.class) {
			return (deserializer instanceof Untyped untyped && untyped.lean(ctxt)) ? DirectBinding.Kind.UNTYPED : null;
		}
		if (type == String.class) {
			return standard.equals("tools.jackson.databind.deser.jdk.StringDeserializer") ? DirectBinding.Kind.STRING
					: null;
		}
		String numbers = "tools.jackson.databind.deser.jdk.NumberDeserializers$";
		if (type == Integer.class || type == int.class) {
			return standard.equals(numbers + "IntegerDeserializer") ? DirectBinding.Kind.INT : null;
		}
		if (type == Long.class || type == long.class) {
			return standard.equals(numbers + "LongDeserializer") ? DirectBinding.Kind.LONG : null;
		}
		if (type == Boolean.class || type == boolean.class) {
			return standard.equals(numbers + "BooleanDeserializer") ? DirectBinding.Kind.BOOLEAN : null;
		}
		if (type == Double.class || type == double.class) {
			return standard.equals(numbers + "DoubleDeserializer") ? DirectBinding.Kind.DOUBLE : null;
		}
		return null;
	}

	/**
	 * Whether Jackson annotations are on the type, its members or its constructors'
	 * parameters (they may rename, alias, ignore or convert what it binds).
	 */
	private static boolean jacksonAnnotated(Class<?> type) {
		List<AnnotatedElement> elements = new ArrayList<>();
		elements.add(type);
		elements.addAll(List.of(type.getRecordComponents()));
		elements.addAll(List.of(type.getDeclaredFields()));
		elements.addAll(List.of(type.getDeclaredMethods()));
		for (Constructor<?> constructor : type.getDeclaredConstructors()) {
			elements.add(constructor);
			elements.addAll(List.of(constructor.getParameters()));
		}
		for (Method method : type.getDeclaredMethods()) {
			elements.addAll(List.of(method.getParameters()));
		}
		for (AnnotatedElement element : elements) {
			for (Annotation annotation : element.getAnnotations()) {
				Class<? extends Annotation> annotationType = annotation.annotationType();
				String name = annotationType.getName();
				if (name.startsWith("com.fasterxml.jackson.") || name.startsWith("tools.jackson.")
						|| annotationType.isAnnotationPresent(JacksonAnnotation.class)
						|| annotationType.isAnnotationPresent(JacksonAnnotationsInside.class)) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Binds the objects without Jackson, when the type allows it.
	 * @return the binding, or {@code null} when every object binds with Jackson
	 */
	@Nullable DirectBinding<T> direct() {
		return this.direct;
	}

	/**
	 * Binds one object.
	 * @param json the object's bytes
	 * @param meta its metadata as the decoder read them
	 * @return the object
	 * @throws JacksonException when it does not bind
	 */
	T bind(byte[] json, ObjectMeta meta) {
		DirectBinding<T> direct = this.direct;
		if (direct != null) {
			int[] end = new int[1];
			T value = direct.bind(json, 0, json.length, meta, -1, -1, end);
			if (value != null && new JsonScanner(json, end[0], json.length - end[0]).peek() == -1) {
				return value;
			}
		}
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

		/**
		 * Whether this one binds every JSON object (or array) of the property as the
		 * untyped values do.
		 */
		boolean plain(DeserializationContext ctxt) {
			Untyped values = this.values;
			return values != null && values.lean(ctxt);
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
					&& allowed(ctxt)) {
				p.skipChildren();
				meta.used = true;
				return meta.meta;
			}
			return this._delegatee.deserialize(p, ctxt);
		}

		/**
		 * Whether the metadata the decoder read may stand for the object's own: the
		 * mapper would not fail where the decoder does not.
		 */
		static boolean allowed(DeserializationContext ctxt) {
			return !ctxt.isEnabled(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
					&& !ctxt.isEnabled(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES)
					&& !ctxt.isEnabled(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES);
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
